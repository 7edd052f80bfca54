package gitrepo

import (
	"context"
	"fmt"
	"regexp"
	"slices"
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

// checkPath refuses a path a change may not touch: outside the
// repository or in .git, not editable, or a name checkName refuses.
func checkPath(p string, editable []string) error {
	switch {
	case p == "":
		return refuse("the patch names an empty path")
	case strings.HasPrefix(p, "/"):
		return refuse("absolute path %q: paths are relative to the repository's top", p)
	case strings.Contains(p, "\\"):
		return refuse("path %q has a backslash: separate directories with /", p)
	}
	if err := checkName(p, editable); err != nil {
		return err
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

// Apply reads patch leniently and fits it to worktree's files as git
// holds them (fitPatch: hunk counts from their lines, missing a/ and b/
// prefixes, CRLF in the patch or in a file checked out with it, trailing
// whitespace, a missing final newline), checks what it
// will apply against editable (CheckPatch), asks git which paths that
// touches and refuses any the check did not see, then applies it (with
// --recount) to worktree's files and index. A refused or failed patch is
// a *PatchError whose message the builder can act on.
func Apply(ctx context.Context, worktree, patch string, editable []string) ([]string, error) {
	if len(patch) > MaxPatch {
		return nil, refuse("the patch is %d bytes; the limit is %d", len(patch), MaxPatch)
	}
	raw := patch
	patch, err := fitPatch(ctx, worktree, patch, editable)
	if pe, ok := err.(*PatchError); ok && strings.HasPrefix(pe.Msg, notApply) {
		return nil, refuse("%s%s", pe.Msg, lineEndNote(worktree, raw, false))
	}
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
		return nil, refuse("%s: %s%s", notApply, gitMsg(err), lineEndNote(worktree, raw, true))
	}
	return paths, nil
}

// notApply starts the message of a patch whose hunks are not where it
// says, or that git did not apply.
const notApply = "the patch does not apply"

// lineEndNote is what line ends had to do with a patch that did not
// apply, for its message, when the patch or a file it changes has CRLF
// line ends; "" when neither has. Fitting (fitted false: a hunk was not
// found) reads both as LF, so they are not why; a fitted patch that git
// did not apply to a CRLF file is best made as SEARCH/REPLACE edits,
// which keep a file's line ends.
func lineEndNote(worktree, patch string, fitted bool) string {
	parts, _ := readPatch(patch)
	var files []string
	for _, fp := range parts {
		old, _ := fp.names()
		if old == devNull || old == "" || slices.Contains(files, old) || checkPath(old, []string{"*"}) != nil {
			continue
		}
		if c, ok, err := readTreeFile(worktree, old); err == nil && ok && crlf(c) {
			files = append(files, old)
		}
	}
	inPatch := strings.Contains(patch, "\r\n")
	switch {
	case fitted && len(files) > 0:
		return fmt.Sprintf("; %s %s CRLF line ends: change %s with SEARCH/REPLACE blocks, which keep a file's line ends", strings.Join(files, ", "), plural(len(files), "has", "have"), plural(len(files), "it", "them"))
	case len(files) == 0 && !inPatch:
		return ""
	}
	whose := files
	if inPatch {
		whose = append([]string{"the patch's"}, files...)
	}
	return fmt.Sprintf("; line ends are not why: CRLF line ends (%s) are read as LF and fitted to each file's own, so quote the file's lines exactly as they are", strings.Join(whose, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
