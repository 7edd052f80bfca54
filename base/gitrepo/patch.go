package gitrepo

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Match reports whether p (a slash-separated path from the repository's
// top) is under one of the editable globs, read as git reads a pathspec
// without magic: * and ? match any characters, / included, and a glob
// that names a directory matches everything under it.
func Match(editable []string, p string) bool {
	for _, g := range editable {
		if matchOne(g, p) {
			return true
		}
	}
	return false
}

func matchOne(g, p string) bool {
	g = strings.TrimSuffix(g, "/")
	if g == "" {
		return false
	}
	var re strings.Builder
	re.WriteString("^")
	for _, r := range g {
		switch r {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("(/.*)?$")
	ok, err := regexp.MatchString(re.String(), p)
	return err == nil && ok
}

// PatchError is a patch refused before git applied it, or one git did not
// apply: the builder is told Msg and may repair it.
type PatchError struct{ Msg string }

func (e *PatchError) Error() string { return e.Msg }

func refuse(format string, args ...any) error {
	return &PatchError{Msg: fmt.Sprintf(format, args...)}
}

var hunkHeader = regexp.MustCompile(`^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@`)

// CheckPatch reads the paths a unified diff touches and refuses it when
// one is absolute, leaves the repository, enters .git, is not editable,
// or when the patch is binary, too large, or changes a file mode to
// anything but a plain or executable file (no symlinks, no submodules).
// It returns the paths, in the order seen.
func CheckPatch(patch string, editable []string) ([]string, error) {
	if len(patch) > MaxPatch {
		return nil, refuse("the patch is %d bytes; the limit is %d", len(patch), MaxPatch)
	}
	if strings.TrimSpace(patch) == "" {
		return nil, refuse("the patch is empty")
	}
	var paths []string
	seen := map[string]bool{}
	add := func(p string) error {
		if err := checkPath(p, editable); err != nil {
			return err
		}
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
		return nil
	}
	oldLeft, newLeft := 0, 0
	for _, line := range strings.Split(patch, "\n") {
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, " ") || line == "":
				oldLeft, newLeft = oldLeft-1, newLeft-1
				continue
			case strings.HasPrefix(line, "-"):
				oldLeft--
				continue
			case strings.HasPrefix(line, "+"):
				newLeft--
				continue
			case strings.HasPrefix(line, `\`):
				continue
			}
			oldLeft, newLeft = 0, 0 // a short hunk: git will say so
		}
		if m := hunkHeader.FindStringSubmatch(line); m != nil {
			oldLeft, newLeft = hunkCount(m[1]), hunkCount(m[2])
			continue
		}
		p, err := headerPath(line)
		if err != nil {
			return nil, err
		}
		if p != "" {
			if err := add(p); err != nil {
				return nil, err
			}
		}
	}
	if len(paths) == 0 {
		return nil, refuse("the patch names no file: write a unified diff with --- a/PATH and +++ b/PATH lines")
	}
	return paths, nil
}

func hunkCount(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// headerPath reads a header line of a diff: the path it names ("" for
// none), or why the line is refused.
func headerPath(line string) (string, error) {
	switch {
	case strings.HasPrefix(line, "GIT binary patch"), strings.HasPrefix(line, "Binary files "):
		return "", refuse("binary patches are refused: change text files only")
	case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "):
		p := line[4:]
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i] // diff -u writes a date after a tab
		}
		p = strings.TrimRight(p, " \r")
		if p == "/dev/null" {
			return "", nil
		}
		if strings.HasPrefix(p, `"`) {
			return "", refuse("quoted path %s: name files plainly", p)
		}
		_, rest, ok := strings.Cut(p, "/")
		if !ok {
			return "", refuse("path %q has no a/ or b/ prefix: write --- a/PATH and +++ b/PATH", p)
		}
		return rest, nil
	case strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "rename to "),
		strings.HasPrefix(line, "copy from "), strings.HasPrefix(line, "copy to "):
		_, p, _ := strings.Cut(line, " ")
		_, p, _ = strings.Cut(p, " ")
		return p, nil
	case strings.HasPrefix(line, "old mode "), strings.HasPrefix(line, "new mode "),
		strings.HasPrefix(line, "new file mode "), strings.HasPrefix(line, "deleted file mode "):
		f := strings.Fields(line)
		if m := f[len(f)-1]; m != "100644" && m != "100755" {
			return "", refuse("file mode %s is refused: a patch may change regular files only (no symlinks, no submodules)", m)
		}
	case strings.HasPrefix(line, "index "):
		f := strings.Fields(line)
		if len(f) == 3 && f[2] != "100644" && f[2] != "100755" {
			return "", refuse("file mode %s is refused: a patch may change regular files only (no symlinks, no submodules)", f[2])
		}
	}
	return "", nil
}

// checkPath refuses a path a patch may not touch.
func checkPath(p string, editable []string) error {
	switch {
	case p == "":
		return refuse("the patch names an empty path")
	case strings.HasPrefix(p, "/"):
		return refuse("absolute path %q: paths are relative to the repository's top", p)
	case strings.ContainsAny(p, "\\\x00\r"):
		return refuse("path %q has a backslash or control character", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." || part == "" {
			return refuse("path %q leaves the repository or is not clean", p)
		}
		if strings.EqualFold(part, ".git") {
			return refuse("path %q is inside .git", p)
		}
	}
	if !Match(editable, p) {
		return refuse("path %q is not editable; a patch may change only %s", p, strings.Join(editable, ", "))
	}
	return nil
}

// Apply reads patch leniently and fits it to worktree's files (fitPatch:
// hunk counts from their lines, missing a/ and b/ prefixes, CRLF in the
// patch, trailing whitespace, a missing final newline), checks what it
// will apply against editable (CheckPatch), asks git which paths that
// touches and refuses any the check did not see, then applies it (with
// --recount) to worktree's files and index. A refused or failed patch is
// a *PatchError whose message the builder can act on.
func Apply(ctx context.Context, worktree, patch string, editable []string) ([]string, error) {
	if len(patch) > MaxPatch {
		return nil, refuse("the patch is %d bytes; the limit is %d", len(patch), MaxPatch)
	}
	patch, err := fitPatch(worktree, patch, editable)
	if err != nil {
		return nil, err
	}
	paths, err := CheckPatch(patch, editable)
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(patch, "\n") {
		patch += "\n"
	}
	// Fitted hunks name their exact place; one may have no context
	// (a model writes many so), which git takes only with
	// --unidiff-zero.
	out, err := run(ctx, worktree, []byte(patch), "apply", "--recount", "--unidiff-zero", "--numstat", "-z", "-")
	if err != nil {
		return nil, refuse("git cannot read the patch: %s", gitMsg(err))
	}
	for _, p := range numstatPaths(out) {
		if err := checkPath(p, editable); err != nil {
			return nil, err
		}
	}
	if _, err := run(ctx, worktree, []byte(patch), "apply", "--index", "--recount", "--unidiff-zero", "--whitespace=nowarn", "-"); err != nil {
		return nil, refuse("the patch does not apply: %s", gitMsg(err))
	}
	return paths, nil
}

// numstatPaths reads the paths of `git apply --numstat -z`: "a\td\tpath\0",
// or for a rename or copy "a\td\t\0old\0new\0".
func numstatPaths(out string) []string {
	var paths []string
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if r == "" {
			continue
		}
		f := strings.SplitN(r, "\t", 3)
		if len(f) < 3 {
			paths = append(paths, r)
			continue
		}
		if f[2] != "" {
			paths = append(paths, f[2])
			continue
		}
		for j := 1; j <= 2 && i+j < len(recs); j++ {
			paths = append(paths, recs[i+j])
		}
		i += 2
	}
	return paths
}

func gitMsg(err error) string {
	if ge, ok := err.(*Error); ok && strings.TrimSpace(ge.Output) != "" {
		return strings.TrimSpace(ge.Output)
	}
	return err.Error()
}
