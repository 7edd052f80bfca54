package load

import (
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/internal/budget"
	"github.com/assay-lang/assay/lang/spec"
)

// baseDiags adjusts the diagnostics of loading the base spec at path, which
// the extends attribute at names. A diagnostic without a position (a
// directory with no .cue files) is moved to the extends attribute, where the
// user can act on it. A base that has errors and has no line that begins like
// a spec (a password file linked under a .hcl name) is refused in one error
// at the extends attribute: its errors would quote its lines, and a file
// that is not a spec has nothing to show.
func (r *resolver) baseDiags(path string, at diag.Range, ds diag.Diagnostics) diag.Diagnostics {
	if ds.HasErrors() && !r.looksLikeSpec(path) {
		out := diag.Diagnostics{diag.Errorf(codeExtends, at, "base spec %s is not an Assay spec", path).
			WithDetail("No line of it begins with a spec attribute or block (name, seed, plugin, environment, ...), so its content is not shown. Point extends at a .hcl or .cue spec.")}
		for _, d := range ds {
			if !inFile(d, path) {
				out = append(out, d)
			}
		}
		delete(r.src, path)
		return out
	}
	for _, d := range ds {
		if d.Range.Valid() {
			continue
		}
		if d.Range.Filename != "" && d.Range.Filename != at.Filename && !strings.Contains(d.Summary, d.Range.Filename) {
			d.Summary = "base spec " + d.Range.Filename + ": " + d.Summary
		}
		d.Range = at
	}
	return ds
}

func inFile(d *diag.Diagnostic, path string) bool {
	f := d.Range.Filename
	return f != "" && (f == path || key(f) == key(path) || strings.HasPrefix(key(f), key(path)+string(filepath.Separator)))
}

// looksLikeSpec reports whether some line of the file at path (a directory
// counts as CUE) begins, after comments, with something a spec begins a
// line with: a top-level attribute or block name, a CUE package, import or
// let clause, or an opening brace. A spec with a typo in one name still has
// others; a password file or a binary has none.
func (r *resolver) looksLikeSpec(path string) bool {
	src, ok := r.overlay(path)
	if !ok {
		var err error
		if src, err = budget.ReadFile(path, budget.DefaultMaxSourceBytes); err != nil {
			return true // a directory, or unreadable: its own diagnostics say so
		}
	}
	cue := strings.EqualFold(filepath.Ext(path), ".cue")
	top := spec.Describe()
	for _, word := range lineWords(src) {
		switch {
		case word == "{", word == "package", word == "import", word == "let", word == "locals", word == "dynamic":
			return true
		case cue && strings.HasPrefix(word, "_"): // a hidden CUE helper field
			return true
		case top.Field(word) != nil:
			return true
		}
	}
	return false
}

// lineWords is the first identifier (unquoted, or a quoted CUE label) or "{"
// of every line of src, skipping blank lines and #, // and /* */ comments.
func lineWords(src []byte) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(string(src), "\n") {
		line = strings.TrimSpace(line)
		for line != "" {
			if inBlock {
				i := strings.Index(line, "*/")
				if i < 0 {
					line = ""
					break
				}
				line, inBlock = strings.TrimSpace(line[i+2:]), false
				continue
			}
			switch {
			case strings.HasPrefix(line, "#"), strings.HasPrefix(line, "//"):
				line = ""
			case strings.HasPrefix(line, "/*"):
				line, inBlock = line[2:], true
			case line[0] == '{':
				out, line = append(out, "{"), ""
			default:
				line = strings.TrimPrefix(line, `"`)
				end := 0
				for end < len(line) && (line[end] == '_' || line[end] >= 'a' && line[end] <= 'z' || line[end] >= 'A' && line[end] <= 'Z' || end > 0 && line[end] >= '0' && line[end] <= '9') {
					end++
				}
				out, line = append(out, line[:end]), ""
			}
		}
	}
	return out
}
