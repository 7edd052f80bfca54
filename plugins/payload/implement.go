package payload

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/assay-lang/assay/base/gitrepo"
)

// The answer shapes of a source-mode builder, as ParseImplement reads
// them:
//
//   - the JSON object of ImplementResponse (patch, files, edits, or
//     infeasible with a reason), bare or fenced, prose around it;
//   - SEARCH/REPLACE blocks (<<<<<<< SEARCH, =======, >>>>>>> REPLACE),
//     each after its file's path on a line of its own (or after the
//     block before it, whose path it takes; or with none, the one file
//     shown that holds the SEARCH text), fenced or not;
//   - a unified diff, bare or fenced, prose around it; a fenced hunk
//     without --- and +++ lines after its file's path takes that path;
//   - a whole editable file in a fence, its path on the line before the
//     fence or in the fence's info string ("```python train.py");
//   - a line "INFEASIBLE: reason", in an answer that changes nothing.
//
// Shapes may be mixed: a diff of one file and a SEARCH/REPLACE block of
// another are one change.

var (
	srSearch  = regexp.MustCompile(`^<{5,9} ?SEARCH[ \t]*$`)
	srDivider = regexp.MustCompile(`^={5,9}[ \t]*$`)
	srReplace = regexp.MustCompile(`^>{5,9} ?REPLACE[ \t]*$`)
	fenceLine = regexp.MustCompile("^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^`]*)$")
	// pathLike is a line that is a file's path and nothing else, once its
	// Markdown (a heading, bold, backquotes, a "File:" label, a colon) is
	// taken off.
	pathLike   = regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_./+-]*$`)
	pathLabel  = regexp.MustCompile(`(?i)^(file ?name|file|path)\s*:\s*`)
	infeasible = regexp.MustCompile(`(?i)^[\s*_#>]*infeasible[\s*_]*[:.\-]\s*(.*)$`)
)

// implementKeys are the keys of ImplementResponse: an object with none of
// them (an editable JSON file shown whole) is not the answer's object.
var implementKeys = []string{"patch", "files", "edits", "proposal", "infeasible", "reason"}

// ParseImplement reads a builder's answer to a request whose source is
// src. In knob mode (src nil) the answer is ImplementResponse's JSON
// object; in source mode it may be any of the shapes above. An answer
// that holds no change and does not say the idea is infeasible, or one
// whose blocks cannot be read (a SEARCH without its REPLACE), is an
// error that says what to write.
func ParseImplement(text string, src *SourceContext) (ImplementResponse, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out ImplementResponse
	if raw, ok := objectOf(text, src == nil); ok {
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			return ImplementResponse{}, fmt.Errorf("the answer's JSON object does not fit the builder's answer: %v", err)
		}
		return out, nil
	}
	if src == nil {
		return out, errors.New("the answer is not a JSON object")
	}
	lines := strings.Split(text, "\n")
	used := make([]bool, len(lines))
	edits, err := searchReplace(lines, used)
	if err != nil {
		return out, err
	}
	out.Edits = edits
	out.Files = wholeFiles(lines, used, src)
	var rest []string
	for i, l := range lines {
		if !used[i] {
			rest = append(rest, l)
		}
	}
	patch, err := gitrepo.ExtractPatch(strings.Join(headed(rest, src), "\n"))
	if err != nil {
		return ImplementResponse{}, fmt.Errorf("the answer's diff cannot be read: %v", err)
	}
	out.Patch = patch
	changes := len(out.Edits) + len(out.Files)
	if changes > gitrepo.MaxEdits {
		return ImplementResponse{}, fmt.Errorf("the answer has %d edits and files; at most %d are read", changes, gitrepo.MaxEdits)
	}
	if changes > 0 || patch != "" {
		return out, nil
	}
	// Only an answer that changes nothing can say the idea is infeasible:
	// a line of a change that reads so is the change's.
	if reason, ok := infeasibleLine(rest); ok {
		out.Infeasible, out.Reason = true, reason
		return out, nil
	}
	return ImplementResponse{}, errors.New("the answer holds no change: write SEARCH/REPLACE blocks after each file's path, a unified diff, or a whole file in a fence after its path; or INFEASIBLE: and why")
}

// objectOf is the answer's JSON object: the whole answer, one fenced
// block, or (any, in knob mode) the text from its first { to its last }.
// In source mode an object counts only with a key of ImplementResponse.
func objectOf(text string, any bool) (string, bool) {
	raw := ExtractJSON(text)
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &obj) != nil {
		return "", false
	}
	if any {
		return raw, true
	}
	for _, k := range implementKeys {
		if _, ok := obj[k]; ok {
			return raw, true
		}
	}
	return "", false
}

// ExtractJSON strips a Markdown code fence or prose around a JSON object,
// which some models add even when asked not to.
func ExtractJSON(text string) string {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimPrefix(s, "json")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
		return strings.TrimSpace(s)
	}
	if !strings.HasPrefix(s, "{") {
		if i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}'); i >= 0 && j > i {
			return s[i : j+1]
		}
	}
	return s
}

// searchReplace reads the SEARCH/REPLACE blocks of lines, marking the
// lines they (and their path and fences) take as used.
func searchReplace(lines []string, used []bool) ([]SourceEdit, error) {
	var out []SourceEdit
	prev := ""
	for i := 0; i < len(lines); i++ {
		if !srSearch.MatchString(lines[i]) {
			continue
		}
		mid, end := -1, -1
		for j := i + 1; j < len(lines) && end < 0; j++ {
			switch {
			case srSearch.MatchString(lines[j]):
				return nil, fmt.Errorf("the SEARCH block at line %d has no >>>>>>> REPLACE line before the next SEARCH", i+1)
			case mid < 0 && srDivider.MatchString(lines[j]):
				mid = j
			case mid >= 0 && srReplace.MatchString(lines[j]):
				end = j
			}
		}
		if mid < 0 || end < 0 {
			return nil, fmt.Errorf("the SEARCH block at line %d has no ======= line and >>>>>>> REPLACE line after it", i+1)
		}
		p, at := pathBefore(lines, i)
		if p == "" {
			p = prev
		}
		for k := max(at, 0); k <= end; k++ {
			used[k] = true
		}
		if end+1 < len(lines) && isFence(lines[end+1]) {
			used[end+1] = true
		}
		out = append(out, SourceEdit{Path: p, Search: joinLines(lines[i+1 : mid]), Replace: joinLines(lines[mid+1 : end])})
		prev, i = p, end
	}
	return out, nil
}

func joinLines(ls []string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// pathBefore is the path written just before line i (over blank lines
// and a fence's opening line, whose info string may hold it) and the
// first line it and the fence take; "" and i when none is.
func pathBefore(lines []string, i int) (string, int) {
	j := i - 1
	for j >= 0 && strings.TrimSpace(lines[j]) == "" {
		j--
	}
	first := i
	if j >= 0 && isFence(lines[j]) {
		if p := fencePath(lines[j]); p != "" {
			return p, j
		}
		first = j
		for j--; j >= 0 && strings.TrimSpace(lines[j]) == ""; j-- {
		}
	}
	if j >= 0 {
		if p := pathOf(lines[j]); p != "" {
			return p, j
		}
	}
	return "", first
}

// pathOf is the path a line names alone ("train.py", "### `src/a.go`:",
// "File: a.go"), or "".
func pathOf(l string) string {
	l = strings.TrimSpace(l)
	l = strings.TrimLeft(l, "#> ")
	l = strings.Trim(l, "*_` ")
	l = pathLabel.ReplaceAllString(l, "")
	l = strings.TrimRight(strings.Trim(l, "*_` "), ":")
	l = strings.Trim(l, "*_` ")
	if !pathLike.MatchString(l) || !strings.ContainsAny(l, "./") || strings.HasSuffix(l, ".") {
		return ""
	}
	return strings.TrimPrefix(l, "./")
}

func isFence(l string) bool { return fenceLine.MatchString(l) }

// fencePath is a path in a fence's info string, its last word that is
// one ("python train.py", "python title=train.py", "train.py"); a
// language alone is none.
func fencePath(l string) string {
	m := fenceLine.FindStringSubmatch(l)
	if m == nil {
		return ""
	}
	words := strings.FieldsFunc(m[2], func(r rune) bool { return r == ' ' || r == '\t' || r == ':' || r == '=' })
	for _, w := range slices.Backward(words) {
		if p := pathOf(strings.Trim(w, `"'`)); p != "" {
			return p
		}
	}
	return ""
}

// fence is a fenced block: its opening and closing lines.
type fence struct{ open, close int }

// fences are the fenced blocks of lines not yet used.
func fences(lines []string, used []bool) []fence {
	var out []fence
	for i := 0; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil || used[i] {
			continue
		}
		closed := false
		for j := i + 1; j < len(lines) && !closed; j++ {
			c := fenceLine.FindStringSubmatch(lines[j])
			if closed = c != nil && c[2] == "" && c[1][0] == m[1][0] && len(c[1]) >= len(m[1]); closed {
				out = append(out, fence{i, j})
				i = j
			}
		}
		if !closed {
			break // an unclosed fence runs to the end: nothing after it is fenced
		}
	}
	return out
}

// wholeFiles reads the fenced blocks that are whole editable files: a
// path shown or editable before the fence or in its info string, and
// content that is neither a diff nor SEARCH/REPLACE blocks.
func wholeFiles(lines []string, used []bool, src *SourceContext) []WholeFile {
	var out []WholeFile
	for _, f := range fences(lines, used) {
		if slices.Contains(used[f.open:f.close+1], true) {
			continue
		}
		p, at := pathBefore(lines, f.open+1)
		if p == "" || !editablePath(src, p) {
			continue
		}
		body := joinLines(lines[f.open+1 : f.close])
		if d, err := gitrepo.ExtractPatch(body); d != "" || err != nil || strings.HasPrefix(strings.TrimSpace(body), "@@") {
			continue
		}
		for k := at; k <= f.close; k++ {
			used[k] = true
		}
		out = append(out, WholeFile{Path: p, Content: body})
	}
	return out
}

// editablePath reports whether p is a file src shows or one its editable
// paths take.
func editablePath(src *SourceContext, p string) bool {
	return slices.ContainsFunc(src.Files, func(f SourceFile) bool { return f.Path == p }) || gitrepo.Match(src.Editable, p)
}

// headed gives a fenced hunk written without --- and +++ lines the path
// before its fence, or the one file shown when there is one.
func headed(lines []string, src *SourceContext) []string {
	var out []string
	last := 0
	for _, f := range fences(lines, make([]bool, len(lines))) {
		k := f.open + 1
		for k < f.close && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		if k == f.close || !strings.HasPrefix(lines[k], "@@") {
			continue
		}
		p, _ := pathBefore(lines, f.open+1)
		if p == "" && len(src.Files) == 1 {
			p = src.Files[0].Path
		}
		if p == "" {
			continue
		}
		out = append(out, lines[last:k]...)
		out = append(out, "--- a/"+p, "+++ b/"+p)
		last = k
	}
	return append(out, lines[last:]...)
}

// infeasibleLine is the reason of an "INFEASIBLE: reason" line (and the
// lines after it), bounded.
func infeasibleLine(lines []string) (string, bool) {
	for i, l := range lines {
		if m := infeasible.FindStringSubmatch(l); m != nil {
			r := strings.TrimSpace(strings.Join(append([]string{m[1]}, lines[i+1:]...), "\n"))
			if len(r) > 500 {
				r = r[:500]
			}
			if r == "" {
				r = "the builder said the idea is infeasible, without a reason"
			}
			return r, true
		}
	}
	return "", false
}
