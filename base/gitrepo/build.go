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
// limit but ctx's), with env (KEY=VALUE pairs) as its whole environment:
// it inherits nothing else from the process. Its combined output is kept
// to its last MaxOutput bytes; a failure is a *BuildError carrying that
// output.
func Build(ctx context.Context, dir string, argv, env []string, limit time.Duration) (string, error) {
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
	// Never nil: a nil Env would hand the build all of the process's.
	cmd.Env = append(make([]string, 0, len(env)), env...)
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
