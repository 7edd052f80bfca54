package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// Bounds of a change written as edits.
const (
	// MaxEditFile bounds the size of a file an edit reads or writes.
	MaxEditFile = 8 << 20
	// MaxEdits bounds the edits and whole files of one change.
	MaxEdits = 256
)

// Replace is a SEARCH/REPLACE edit of a file: the one place its Search
// lines are in the file become its Replace lines. An empty Search creates
// a file that does not exist. A Replace without a Path edits the one file
// of Edit's candidates that holds Search.
type Replace struct {
	Path, Search, Replace string
}

// Write is a whole file's new content.
type Write struct {
	Path, Content string
}

// Edit writes whole files, then makes SEARCH/REPLACE edits in order (each
// on the file as the edits before it left it), in worktree, and stages
// what it changed; it returns the paths changed. Every path is checked as
// a patch's are (editable, inside the repository, not in .git), and a
// file must be a regular one reached through no symlink. Line ends follow
// the file's (CRLF in a CRLF file), and a file keeps its final newline. A
// refused edit is a *PatchError: a SEARCH found nowhere, or in several
// places (ambiguous), a path in no candidate, edits that change nothing.
func Edit(ctx context.Context, worktree string, writes []Write, replaces []Replace, editable, candidates []string) ([]string, error) {
	if len(writes)+len(replaces) > MaxEdits {
		return nil, refuse("the change has %d edits and files; the limit is %d", len(writes)+len(replaces), MaxEdits)
	}
	size := 0
	for _, w := range writes {
		size += len(w.Content)
	}
	for _, r := range replaces {
		size += len(r.Search) + len(r.Replace)
	}
	if size > MaxPatch {
		return nil, refuse("the change's edits are %d bytes; the limit is %d", size, MaxPatch)
	}
	t := &editTree{dir: worktree, editable: editable, files: map[string]*editFile{}}
	for _, w := range writes {
		f, err := t.file(w.Path)
		if err != nil {
			return nil, err
		}
		if f.written {
			return nil, refuse("%s is written whole twice: give each file once", w.Path)
		}
		f.written, f.content = true, wholeFile(f, w.Content)
	}
	for i, r := range replaces {
		if err := t.replace(i+1, r, candidates); err != nil {
			return nil, err
		}
	}
	var changed []string
	for _, p := range t.order {
		if f := t.files[p]; (f.exists && f.content != f.orig) || (!f.exists && f.written) {
			changed = append(changed, p)
		}
	}
	if len(changed) == 0 {
		return nil, refuse("the edits leave every file as it was: change the code the idea names")
	}
	for _, p := range changed {
		if err := writeTreeFile(worktree, p, t.files[p].content); err != nil {
			return nil, err
		}
	}
	if _, err := run(ctx, worktree, nil, append([]string{"add", "--"}, changed...)...); err != nil {
		return nil, refuse("git cannot stage the edited files: %s", gitMsg(err))
	}
	return changed, nil
}

// editTree is the files an Edit has read, by path, in the order read.
type editTree struct {
	dir      string
	editable []string
	files    map[string]*editFile
	order    []string
}

type editFile struct {
	orig, content string
	exists        bool
	written       bool
}

// file reads p once, checking it as a patch's path is checked.
func (t *editTree) file(p string) (*editFile, error) {
	if f, ok := t.files[p]; ok {
		return f, nil
	}
	if err := checkPath(p, t.editable); err != nil {
		return nil, err
	}
	content, ok, err := readTreeFile(t.dir, p)
	if err != nil {
		return nil, err
	}
	f := &editFile{orig: content, content: content, exists: ok}
	t.files[p] = f
	t.order = append(t.order, p)
	return f, nil
}

// replace makes SEARCH/REPLACE edit n.
func (t *editTree) replace(n int, r Replace, candidates []string) error {
	p := r.Path
	if p == "" {
		var err error
		if p, err = t.holder(r.Search, candidates); err != nil {
			return refuse("SEARCH/REPLACE block %d names no file: %v", n, err)
		}
	}
	f, err := t.file(p)
	if err != nil {
		return err
	}
	if !f.exists && !f.written {
		if strings.TrimSpace(r.Search) != "" {
			return refuse("SEARCH/REPLACE block %d: %s is not a file of the program; to create it, leave its SEARCH part empty", n, p)
		}
		f.written, f.content = true, wholeFile(f, r.Replace)
		return nil
	}
	out, err := replaceOnce(f.content, r.Search, r.Replace)
	if err != nil {
		return refuse("SEARCH/REPLACE block %d (%s): %v", n, p, err)
	}
	f.content = out
	return nil
}

// holder is the one candidate file that holds search once.
func (t *editTree) holder(search string, candidates []string) (string, error) {
	var hits []string
	for _, c := range candidates {
		if checkPath(c, t.editable) != nil {
			continue
		}
		f, err := t.file(c)
		if err != nil || !f.exists {
			continue
		}
		if _, err := replaceOnce(f.content, search, ""); err == nil {
			hits = append(hits, c)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", errors.New("its SEARCH text is once in no file shown: write the file's path on the line before the block")
	}
	return "", fmt.Errorf("its SEARCH text is in %s: write the file's path on the line before the block", strings.Join(hits, ", "))
}

// wholeFile is content as f's new content: LF line ends, or CRLF where f
// has them, and a final newline unless f had none.
func wholeFile(f *editFile, content string) string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	if content != "" && !strings.HasSuffix(content, "\n") && (!f.exists || strings.HasSuffix(f.orig, "\n")) {
		content += "\n"
	}
	if crlf(f.orig) {
		content = strings.ReplaceAll(content, "\n", "\r\n")
	}
	return content
}

// crlf reports whether most of s's line ends are CRLF.
func crlf(s string) bool {
	return strings.Count(s, "\r\n")*2 > strings.Count(s, "\n")
}

// replaceOnce replaces the one place search's lines are in content by
// repl's lines. Lines are matched whole: exactly (line ends aside), else
// with trailing whitespace ignored, else with the indentation of every
// line shifted alike (repl's lines then take the same shift). No place or
// several are an error.
func replaceOnce(content, search, repl string) (string, error) {
	s := textLines(search)
	if len(s) == 0 {
		return "", errors.New("its SEARCH part is empty: quote the lines to replace")
	}
	lines := splitLines(content)
	r := textLines(repl)
	exact := func(f, p string) bool { return trimEOL(f) == p }
	loose := func(f, p string) bool { return strings.TrimRight(f, " \t\r\n") == strings.TrimRight(p, " \t") }
	at, shift := matchLines(lines, s, exact), ""
	if len(at) == 0 {
		at = matchLines(lines, s, loose)
	}
	if len(at) == 0 {
		at = matchLines(lines, s, func(f, p string) bool { return strings.TrimSpace(f) == strings.TrimSpace(p) })
		at = slices.DeleteFunc(at, func(i int) bool { _, ok := indentShift(lines[i:i+len(s)], s); return !ok })
		if len(at) == 1 {
			shift, _ = indentShift(lines[at[0]:at[0]+len(s)], s)
		}
	}
	switch {
	case len(at) == 0:
		return "", fmt.Errorf("its SEARCH lines are not in the file%s", firstMissing(lines, s, loose))
	case len(at) > 1:
		return "", fmt.Errorf("its SEARCH lines are in %s (lines %s): it is ambiguous; quote more lines around the change so it matches one", places(len(at)), lineList(at))
	}
	i := at[0]
	eol := "\n"
	if crlf(content) {
		eol = "\r\n"
	}
	var b strings.Builder
	for _, l := range lines[:i] {
		b.WriteString(l)
	}
	for _, l := range r {
		if l != "" {
			l = shift + l
		}
		b.WriteString(l + eol)
	}
	end := i + len(s)
	for _, l := range lines[end:] {
		b.WriteString(l)
	}
	out := b.String()
	if end == len(lines) && !strings.HasSuffix(content, "\n") && len(r) > 0 && r[len(r)-1] != "" {
		out = strings.TrimSuffix(out, eol) // the file had no final newline
	}
	return out, nil
}

// indentShift is the indentation that, put before each of want's lines,
// makes them got's (blank lines aside); ok is false when no one shift
// does.
func indentShift(got, want []string) (string, bool) {
	shift, set := "", false
	for k, w := range want {
		g := strings.TrimRight(trimEOL(got[k]), " \t")
		w = strings.TrimRight(w, " \t")
		if strings.TrimSpace(w) == "" {
			continue
		}
		if !strings.HasSuffix(g, strings.TrimLeft(w, " \t")) {
			return "", false
		}
		gi, wi := g[:len(g)-len(strings.TrimLeft(g, " \t"))], w[:len(w)-len(strings.TrimLeft(w, " \t"))]
		if !strings.HasSuffix(gi, wi) {
			return "", false
		}
		if sh := gi[:len(gi)-len(wi)]; !set {
			shift, set = sh, true
		} else if sh != shift {
			return "", false
		}
	}
	return shift, set
}

// textLines splits an answer's text into lines without their line ends;
// a final line end ends the last line, it starts no empty one.
func textLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// readTreeFile reads the file at p (checked) in dir: ok is false when
// there is none. One reached through a symlink, or that is not a regular
// file, or is over MaxEditFile bytes, is refused.
func readTreeFile(dir, p string) (string, bool, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", false, err
	}
	defer root.Close()
	parts := strings.Split(p, "/")
	for i := range parts {
		sub := path.Join(parts[:i+1]...)
		fi, err := root.Lstat(sub)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		if err != nil {
			return "", false, refuse("%s: %v", p, err)
		}
		switch last := i == len(parts)-1; {
		case !last && !fi.IsDir():
			return "", false, refuse("%s is reached through %s, which is not a directory (a symlink?): a change may edit regular files only", p, sub)
		case last && !fi.Mode().IsRegular():
			return "", false, refuse("%s is not a regular file (a symlink or a directory): a change may edit regular files only", p)
		case last && fi.Size() > MaxEditFile:
			return "", false, refuse("%s is %d bytes; an edit reads files of at most %d", p, fi.Size(), MaxEditFile)
		}
	}
	b, err := root.ReadFile(p)
	if err != nil {
		return "", false, err
	}
	return string(b), true, nil
}

// writeTreeFile writes content to p in dir, making its directories; p was
// read by readTreeFile, which refused any symlink on its way.
func writeTreeFile(dir, p, content string) error {
	if len(content) > MaxEditFile {
		return refuse("%s would be %d bytes; an edit writes files of at most %d", p, len(content), MaxEditFile)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if d := path.Dir(p); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return refuse("%s: %v", p, err)
		}
	}
	return root.WriteFile(p, []byte(content), 0o644)
}
