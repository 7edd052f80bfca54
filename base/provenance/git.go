package provenance

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Git is the state of a spec's files in git.
type Git struct {
	// Commit is HEAD of the repository holding the spec ("" when there is
	// none: see NoCommit).
	Commit string `json:"commit,omitempty"`
	// Dirty is true when a spec file differs from Commit (modified, staged,
	// untracked or ignored), or when there is no commit to compare with.
	Dirty bool `json:"dirty"`
	// DirtyFiles are the spec files that differ, relative to the
	// repository's root.
	DirtyFiles []string `json:"dirty_files,omitempty"`
	// NoCommit says why Commit is empty: "not in a git repository", "git
	// is not installed", or git's own message.
	NoCommit string `json:"no_commit,omitempty"`
}

// gitTimeout bounds each git call: provenance must not hang a run.
const gitTimeout = 10 * time.Second

// GitState reports the commit of the repository holding files[0] (the
// spec) and which of files differ from it. Files outside that repository
// (a base spec elsewhere) cannot be pinned by its commit and count as
// dirty.
func GitState(files []string) Git {
	if len(files) == 0 {
		return Git{Dirty: true, NoCommit: "no spec files"}
	}
	abs := make([]string, 0, len(files))
	for _, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			a = f
		}
		if r, err := filepath.EvalSymlinks(a); err == nil {
			a = r
		}
		abs = append(abs, a)
	}
	dir := filepath.Dir(abs[0])
	top, err := git(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return Git{Dirty: true, NoCommit: noCommit(err)}
	}
	top = strings.TrimSpace(top)
	head, err := git(dir, "rev-parse", "--verify", "--quiet", "HEAD")
	if err != nil {
		return Git{Dirty: true, NoCommit: "the repository has no commit yet"}
	}
	st := Git{Commit: strings.TrimSpace(head)}
	args := []string{"status", "--porcelain=v1", "-z", "--ignored=matching", "--untracked-files=all", "--"}
	var inside []string
	for _, a := range abs {
		rel, err := filepath.Rel(top, a)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			st.Dirty = true
			st.DirtyFiles = append(st.DirtyFiles, a)
			continue
		}
		inside = append(inside, filepath.ToSlash(rel))
	}
	if len(inside) > 0 {
		// ":(literal)" keeps a file name from being read as a pathspec
		// pattern; the names are arguments, never shell words.
		for _, rel := range inside {
			args = append(args, ":(top,literal)"+rel)
		}
		out, err := git(top, args...)
		if err != nil {
			return Git{Commit: st.Commit, Dirty: true, NoCommit: "git status failed: " + noCommit(err)}
		}
		recs := strings.Split(out, "\x00")
		for i := 0; i < len(recs); i++ {
			rec := recs[i]
			if len(rec) < 4 {
				continue // the empty tail
			}
			st.Dirty = true
			st.DirtyFiles = append(st.DirtyFiles, rec[3:])
			if rec[0] == 'R' || rec[0] == 'C' {
				i++ // a rename or copy is followed by its old name
			}
		}
	}
	sort.Strings(st.DirtyFiles)
	return st
}

// git runs git with args in dir and returns its standard output.
func git(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// No optional locks: status must not write to the index of a
	// repository a person is working in.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", &gitError{err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.String(), nil
}

type gitError struct {
	err    error
	stderr string
}

func (e *gitError) Error() string {
	if e.stderr != "" {
		return e.stderr
	}
	return e.err.Error()
}

func noCommit(err error) string {
	var ge *gitError
	if errors.As(err, &ge) {
		if errors.Is(ge.err, exec.ErrNotFound) {
			return "git is not installed"
		}
		if strings.Contains(ge.stderr, "not a git repository") {
			return "not in a git repository"
		}
	}
	return err.Error()
}
