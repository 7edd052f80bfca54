package gitrepo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// gitFiles are the files, at any depth, whose content git itself reads:
// attributes (filter, diff and merge drivers, line-end conversion),
// submodules, and what git leaves unseen. A change of one changes what
// git does and shows, not the program, so only an editable entry that
// names one literally allows it.
var gitFiles = []string{".gitattributes", ".gitmodules", ".gitignore"}

// checkName refuses a path whose name could deceive a reader of the diff
// or change git's own behaviour: a control character, an invisible
// format character (the bidirectional overrides of Trojan Source among
// them) or a line separator, bytes that are not UTF-8, a part that starts
// with "-" (a program reads it as an option), or a git control file that
// editable does not name literally. Every check of a path (checkPath,
// CheckChange) starts with it.
func checkName(p string, editable []string) error {
	if !utf8.ValidString(p) {
		return refuse("path %q is not valid UTF-8: name files in UTF-8", p)
	}
	for _, r := range p {
		if what := hiddenRune(r); what != "" {
			return refuse("path %q holds %s (U+%04X), which shows differently from what it is: name files with visible characters only", p, what, r)
		}
	}
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, "-") {
			return refuse("path %q has a part that starts with \"-\", which programs read as an option: name files without a leading \"-\"", p)
		}
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	for _, g := range gitFiles {
		if strings.EqualFold(base, g) && !slices.Contains(editable, p) {
			return refuse("path %q is git's own %s file, which changes what git does, not the program: change it only where editable names %q itself (a glob does not count)", p, g, p)
		}
	}
	return nil
}

// hiddenRune says what r is when a file name must not hold it: "a control
// character", "a bidirectional control", "an invisible format character"
// or "a line separator"; "" for a rune a name may hold.
func hiddenRune(r rune) string {
	switch {
	case unicode.IsControl(r):
		return "a control character"
	case r == '\u061c', r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return "a bidirectional control"
	case unicode.Is(unicode.Cf, r):
		return "an invisible format character"
	case unicode.In(r, unicode.Zl, unicode.Zp):
		return "a line separator"
	}
	return ""
}

// CheckChange is the last check of a change before it is built and
// committed, whatever shape the builder's answer had (a patch, whole
// files, SEARCH/REPLACE edits): it reads from git, unquoted (-z), every
// path and mode the worktree's index changes against HEAD, as the commit
// will hold them, and refuses a path checkPath refuses, a symlink or a
// submodule, a new file that is not a plain one (mode 100644), and a
// change of a file's mode. A refusal is a *PatchError naming the path.
func CheckChange(ctx context.Context, worktree string, editable []string) error {
	out, err := runLimit(ctx, worktree, nil, MaxPatch, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--no-textconv", "HEAD", "--")
	if err != nil {
		return refuse("git cannot list the change's files (%s): make a smaller change", gitMsg(err))
	}
	changes, err := rawChanges(out)
	if err != nil {
		return err
	}
	for _, c := range changes {
		if err := checkPath(c.path, editable); err != nil {
			return err
		}
		if err := c.checkModes(); err != nil {
			return err
		}
	}
	return nil
}

// rawChange is one record of `git diff-index --raw -z`: the file's old and
// new modes ("000000" where it is absent), its status letter and path.
type rawChange struct {
	oldMode, newMode, status, path string
}

// rawChanges reads `git diff-index --raw -z`: each record is
// ":OLDMODE NEWMODE OLDID NEWID STATUS\0PATH\0" (no renames asked for, so
// one path each).
func rawChanges(out string) ([]rawChange, error) {
	recs := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var changes []rawChange
	for i := 0; i+1 < len(recs); i += 2 {
		f := strings.Fields(strings.TrimPrefix(recs[i], ":"))
		if len(f) != 5 || !strings.HasPrefix(recs[i], ":") {
			return nil, fmt.Errorf("git diff-index: unexpected record %q", recs[i])
		}
		changes = append(changes, rawChange{oldMode: f[0], newMode: f[1], status: f[4], path: recs[i+1]})
	}
	return changes, nil
}

const (
	modeNone       = "000000"
	modeFile       = "100644"
	modeExecutable = "100755"
	modeSymlink    = "120000"
	modeSubmodule  = "160000"
)

// checkModes refuses a symlink or submodule (added, changed or removed),
// a new file that is not a plain one, and a file whose mode changes.
func (c rawChange) checkModes() error {
	for _, m := range []string{c.oldMode, c.newMode} {
		switch m {
		case modeSymlink:
			return refuse("%q is a symlink (mode 120000): a change may add, change or delete regular files only; write the file's content itself", c.path)
		case modeSubmodule:
			return refuse("%q is a submodule (mode 160000): a change may add, change or delete regular files only; leave submodules as they are", c.path)
		case modeNone, modeFile, modeExecutable:
		default:
			return refuse("%q has mode %s: a change may add, change or delete regular files only", c.path, m)
		}
	}
	switch {
	case c.oldMode == modeNone && c.newMode != modeFile:
		return refuse("new file %q has mode %s: a new file may be a plain file (mode 100644) only; drop the patch's \"new file mode %s\" line", c.path, c.newMode, c.newMode)
	case c.oldMode != modeNone && c.newMode != modeNone && c.oldMode != c.newMode:
		return refuse("the change makes %q mode %s (it was %s): a change may not change a file's mode; drop the patch's \"old mode\" and \"new mode\" lines", c.path, c.newMode, c.oldMode)
	}
	return nil
}
