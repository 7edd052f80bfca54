package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

// gitTree holds the files of one revision that a spec and the bases it
// extends need, extracted folder by folder under a temporary directory
// laid out as the repository is, so that extends resolves there exactly as
// in the working tree.
type gitTree struct {
	rev  string
	top  string // the repository's top-level folder
	tmp  string // where the revision's folders are extracted
	spec string // the spec's path under tmp
	done map[string]bool
}

// maxGitFolders bounds how many folders one diff extracts: a chain of
// extends longer than this is refused rather than followed.
const maxGitFolders = 64

// openGitTree finds the repository that holds specPath (a path relative
// to the current folder, or absolute), and extracts the spec's folder as
// committed at rev.
func openGitTree(rev, specPath string) (*gitTree, error) {
	if filepath.Ext(specPath) == "" {
		return nil, fmt.Errorf("--git needs a spec file (.hcl, .cue, .json or .yaml), not %q", specPath)
	}
	if strings.HasPrefix(rev, "-") {
		// git would read it as an option.
		return nil, fmt.Errorf("--git: %q is not a revision: a revision does not begin with -", rev)
	}
	abs, err := filepath.Abs(specPath)
	if err != nil {
		return nil, err
	}
	// The folder, not the file, is resolved: the file may be new or
	// deleted in the working tree, and git reports its top level with
	// symbolic links resolved.
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("--git: %s: %w", filepath.Dir(specPath), unwrapPathErr(err))
	}
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--git: %s is not in a git repository: %v", specPath, err)
	}
	top = strings.TrimSpace(top)
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(top, filepath.Join(dir, filepath.Base(abs)))
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("--git: %s is not inside the repository at %s", specPath, top)
	}
	if _, err := git(top, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		return nil, fmt.Errorf("--git: %q is not a revision of the repository at %s", rev, top)
	}
	tmp, err := os.MkdirTemp("", "assay-diff-")
	if err != nil {
		return nil, err
	}
	t := &gitTree{rev: rev, top: top, tmp: tmp, done: map[string]bool{}}
	t.spec = filepath.Join(tmp, rel)
	if err := t.fetch(t.spec); err != nil {
		t.close()
		return nil, fmt.Errorf("--git: %v", err)
	}
	if _, err := os.Stat(t.spec); err != nil {
		t.close()
		return nil, fmt.Errorf("--git: %s is not in the repository at %s", filepath.ToSlash(rel), rev)
	}
	return t, nil
}

func (t *gitTree) close() { os.RemoveAll(t.tmp) }

// relabel names the revision's files in diagnostics and sources as
// REV:PATH (PATH from the repository's top), not by the temporary
// directory they were extracted to. A nil tree changes nothing.
func (t *gitTree) relabel(ds diag.Diagnostics, src load.Sources) {
	if t == nil {
		return
	}
	label := func(name string) string {
		rel, err := filepath.Rel(t.tmp, name)
		if err != nil || !filepath.IsLocal(rel) {
			return name
		}
		return t.rev + ":" + filepath.ToSlash(rel)
	}
	prefix := strings.NewReplacer(t.tmp+string(filepath.Separator), t.rev+":")
	for _, d := range ds {
		d.Range.Filename = label(d.Range.Filename)
		d.Summary, d.Detail = prefix.Replace(d.Summary), prefix.Replace(d.Detail)
	}
	for name, b := range src {
		if l := label(name); l != name {
			delete(src, name)
			src[l] = b
		}
	}
}

// fetch extracts, as committed at the revision, the folder that holds p (a
// path under t.tmp), or p itself when it is a folder (a CUE package). Only
// the folder's own files are extracted, not its subfolders.
func (t *gitTree) fetch(p string) error {
	rel, err := filepath.Rel(t.tmp, filepath.Clean(p))
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("it is outside the repository, so it cannot be read at %s", t.rev)
	}
	rel = filepath.ToSlash(rel)
	kind, err := git(t.top, "cat-file", "-t", t.rev+":"+rel)
	if err != nil {
		return fmt.Errorf("%s is not in the repository at %s", rel, t.rev)
	}
	folder := path.Dir(rel)
	if strings.TrimSpace(kind) == "tree" {
		folder = rel
	}
	if t.done[folder] {
		return nil
	}
	if len(t.done) >= maxGitFolders {
		return fmt.Errorf("more than %d folders of specs extend each other", maxGitFolders)
	}
	t.done[folder] = true
	spec := ":(glob)*"
	if folder != "." {
		spec = ":(glob)" + folder + "/*"
	}
	out, err := gitBytes(t.top, "archive", "--format=tar", t.rev, "--", spec)
	if err != nil {
		return fmt.Errorf("git archive %s %s: %v", t.rev, folder, err)
	}
	return untar(out, t.tmp)
}

// git runs a git command in dir and returns its output, or its error
// message.
func git(dir string, args ...string) (string, error) {
	b, err := gitBytes(dir, args...)
	return string(b), err
}

func gitBytes(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// untar extracts the regular files and directories of a tar archive into
// dir; git archive writes nothing else that a spec can use.
func untar(b []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading git archive: %w", err)
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			continue
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			// A file past the size limit is kept one byte over it: loading
			// it then says it is too large, and nothing more is held.
			data, err := io.ReadAll(io.LimitReader(tr, load.MaxSourceBytes+1))
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		}
	}
}
