package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// BuildError is a build command that failed: the builder is told Msg (its
// exit and the tail of its output) and may repair the patch.
type BuildError struct{ Msg string }

func (e *BuildError) Error() string { return e.Msg }

// Build runs argv in dir, never through a shell, for at most limit (0: no
// limit but ctx's). Its combined output is kept to its last MaxOutput
// bytes; a failure is a *BuildError carrying that output.
func Build(ctx context.Context, dir string, argv []string, limit time.Duration) (string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", errors.New("build: no command")
	}
	if limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out := &limitedBuffer{max: MaxOutput, tail: true}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	text := out.String()
	if out.cut {
		text = "[output cut to its last bytes]\n" + text
	}
	if err == nil {
		return text, nil
	}
	what := err.Error()
	if ctx.Err() == context.DeadlineExceeded {
		what = fmt.Sprintf("it ran past its time limit of %s", limit)
	}
	return text, &BuildError{Msg: fmt.Sprintf("build %s failed: %s\n%s", strings.Join(argv, " "), what, text)}
}

// File is an editable file of a commit, as shown to the builder.
type File struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// Truncated marks a file cut at the per-file limit (or left empty
	// once the total limit was reached).
	Truncated bool `json:"truncated,omitempty"`
}

// Files returns the editable regular files of commit, in path order, each
// cut to perFile bytes and all together to total bytes; at most maxFiles.
func (r *Repo) Files(ctx context.Context, commit string, editable []string, perFile, total, maxFiles int) ([]File, error) {
	if !commitID.MatchString(commit) {
		return nil, fmt.Errorf("files of %q: not a commit id", commit)
	}
	out, err := run(ctx, r.Dir, nil, "ls-tree", "-r", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	var files []File
	left := total
	for _, rec := range strings.Split(out, "\x00") {
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") || !Match(editable, p) {
			continue
		}
		if len(files) == maxFiles {
			break
		}
		file := File{Path: p}
		if left > 0 {
			body, err := run(ctx, r.Dir, nil, "cat-file", "blob", f[2])
			if err != nil && !strings.Contains(err.Error(), "output longer") {
				return nil, err
			}
			if err != nil {
				body, file.Truncated = "", true
			}
			if n := min(perFile, left); len(body) > n {
				body, file.Truncated = body[:n], true
			}
			file.Content = body
			left -= len(body)
		} else {
			file.Truncated = true
		}
		files = append(files, file)
	}
	return files, nil
}
