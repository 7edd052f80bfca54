package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Bounds of what git and a build may produce and how long they may take.
const (
	// MaxPatch bounds a patch's size in bytes.
	MaxPatch = 1 << 20
	// MaxOutput bounds the captured output of git and of a build; a
	// build's output keeps its last MaxOutput bytes, where errors are.
	MaxOutput = 64 << 10
	// gitTimeout bounds one git command.
	gitTimeout = 2 * time.Minute
)

// Identity is the author and committer of every candidate commit.
const (
	identityName  = "Assay"
	identityEmail = "assay@localhost"
)

// Repo is a git repository on disk.
type Repo struct {
	// Dir is the repository's directory (its work tree's top, or a bare
	// repository).
	Dir string
}

// Error is a git command that failed: its arguments and what it said.
type Error struct {
	Args   []string
	Output string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Output)
	if msg == "" {
		msg = e.Err.Error()
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// run runs git with args in dir, with stdin when non-nil, and returns its
// standard output; see runEnv.
func run(ctx context.Context, dir string, stdin []byte, args ...string) (string, error) {
	return runEnv(ctx, dir, nil, stdin, args...)
}

// Open returns the repository at dir, checking that git sees one there.
func Open(ctx context.Context, dir string) (*Repo, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("repository %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("repository %s is not a directory", dir)
	}
	if _, err := run(ctx, dir, nil, "rev-parse", "--git-dir"); err != nil {
		return nil, fmt.Errorf("%s is not a git repository: %v", dir, err)
	}
	// A worktree, a patch's paths and a checkout are the whole
	// repository's: a directory inside one would be silently widened.
	if prefix, err := run(ctx, dir, nil, "rev-parse", "--show-prefix"); err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	} else if p := strings.TrimSpace(prefix); p != "" {
		return nil, fmt.Errorf("%s is the directory %s inside a git repository, not its top: name the repository's top directory", dir, strings.TrimSuffix(p, "/"))
	}
	return &Repo{Dir: dir}, nil
}

// Check reports whether dir is a git repository in which rev names a
// commit; the compiler calls it for validate and run alike.
func Check(dir, rev string) error {
	ctx := context.Background()
	r, err := Open(ctx, dir)
	if err != nil {
		return err
	}
	_, err = r.Resolve(ctx, rev)
	return err
}

var commitID = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// Resolve returns the commit id rev names.
func (r *Repo) Resolve(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("revision %q is not a revision", rev)
	}
	out, err := run(ctx, r.Dir, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	id := strings.TrimSpace(out)
	if err != nil || !commitID.MatchString(id) {
		return "", fmt.Errorf("revision %q names no commit in %s", rev, r.Dir)
	}
	return id, nil
}

// AddWorktree checks commit out, detached, in a new worktree at dir (an
// absolute path: git would read a relative one from the repository).
func (r *Repo) AddWorktree(ctx context.Context, dir, commit string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("worktree %s: not an absolute path", dir)
	}
	if !commitID.MatchString(commit) {
		return fmt.Errorf("worktree of %q: not a commit id", commit)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	_, err := run(ctx, r.Dir, nil, "worktree", "add", "--detach", "--force", "--", dir, commit)
	return err
}

// RemoveWorktree removes the worktree at dir, changes and all.
func (r *Repo) RemoveWorktree(ctx context.Context, dir string) error {
	_, err := run(ctx, r.Dir, nil, "worktree", "remove", "--force", "--force", "--", dir)
	if err != nil {
		// A worktree whose directory is already gone only needs pruning.
		if _, serr := os.Stat(dir); os.IsNotExist(serr) {
			_, err = run(ctx, r.Dir, nil, "worktree", "prune")
		}
	}
	return err
}

var badRefChar = regexp.MustCompile(`[^A-Za-z0-9._/-]+`)

// RefName is refs/assay/<run>/<parts...>, each part made safe for a ref
// name: characters git refuses become "-", and no part starts with a dot
// or ends in ".lock".
func RefName(run string, parts ...string) string {
	all := append([]string{run}, parts...)
	var out []string
	for _, p := range all {
		for _, seg := range strings.Split(p, "/") {
			seg = badRefChar.ReplaceAllString(seg, "-")
			seg = strings.ReplaceAll(seg, "..", "-")
			seg = strings.TrimLeft(seg, ".")
			seg = strings.TrimSuffix(seg, ".lock")
			if seg == "" {
				seg = "-"
			}
			out = append(out, seg)
		}
	}
	return "refs/assay/" + strings.Join(out, "/")
}

// Lookup reports, with one git process, whether the repository holds
// commit (a commit id) and which object ref names ("" for none).
func (r *Repo) Lookup(ctx context.Context, commit, ref string) (has bool, refAt string, err error) {
	if !commitID.MatchString(commit) {
		return false, "", fmt.Errorf("lookup of %q: not a commit id", commit)
	}
	if ref == "" || strings.ContainsAny(ref, "\n\x00") {
		return false, "", fmt.Errorf("lookup of ref %q: not a ref name", ref)
	}
	out, err := run(ctx, r.Dir, []byte(commit+"^{commit}\n"+ref+"\n"), "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return false, "", err
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		return false, "", fmt.Errorf("lookup of %s and %s: git answered %q", commit, ref, out)
	}
	id, typ, _ := strings.Cut(lines[0], " ")
	has = typ == "commit" && id == commit
	if id, _, _ := strings.Cut(lines[1], " "); commitID.MatchString(id) {
		refAt = id
	}
	return has, refAt, nil
}

// UpdateRef points ref at commit.
func (r *Repo) UpdateRef(ctx context.Context, ref, commit string) error {
	if !commitID.MatchString(commit) {
		return fmt.Errorf("ref %s: %q is not a commit id", ref, commit)
	}
	if _, err := run(ctx, r.Dir, nil, "check-ref-format", ref); err != nil {
		return fmt.Errorf("ref %q is not a valid ref name", ref)
	}
	_, err := run(ctx, r.Dir, nil, "update-ref", "--no-deref", ref, commit)
	return err
}

// Commit records the worktree's index as a commit on its detached HEAD,
// authored and committed by Assay at when (so the same patch on the same
// parent at the same time is the same commit id), and returns its id.
func Commit(ctx context.Context, worktree, message string, when time.Time) (string, error) {
	date := fmt.Sprintf("@%d +0000", when.Unix())
	// No automatic maintenance or gc: each commit would start `git
	// maintenance run --auto` (a process per candidate), and a gc it
	// detached would run in the user's repository while the run adds and
	// removes worktrees and refs there. Candidate commits are a few small
	// objects; the user's own next git command does the housekeeping.
	args := []string{"-c", "user.name=" + identityName, "-c", "user.email=" + identityEmail, "-c", "maintenance.auto=false", "-c", "gc.auto=0"}
	env := []string{"GIT_AUTHOR_NAME=" + identityName, "GIT_AUTHOR_EMAIL=" + identityEmail, "GIT_AUTHOR_DATE=" + date,
		"GIT_COMMITTER_NAME=" + identityName, "GIT_COMMITTER_EMAIL=" + identityEmail, "GIT_COMMITTER_DATE=" + date}
	if _, err := runEnv(ctx, worktree, env, []byte(message), append(args, "commit", "--quiet", "--no-verify", "--allow-empty", "--cleanup=verbatim", "-F", "-")...); err != nil {
		return "", err
	}
	out, err := run(ctx, worktree, nil, "rev-parse", "--verify", "HEAD")
	return strings.TrimSpace(out), err
}

// runEnv runs git with args in dir, extra environment variables env and
// stdin when non-nil, and returns its standard output (bounded by
// MaxOutput, like its error output). Hooks and signing are off: a
// candidate commit runs none of the user's hooks.
func runEnv(ctx context.Context, dir string, env []string, stdin []byte, args ...string) (string, error) {
	return runBounded(ctx, dir, env, stdin, MaxOutput, args...)
}

// runLimit is run with standard output bounded by limit bytes instead of
// MaxOutput, for an output whose size the caller knows and has bounded.
func runLimit(ctx context.Context, dir string, stdin []byte, limit int, args ...string) (string, error) {
	return runBounded(ctx, dir, nil, stdin, limit, args...)
}

// runBounded is runEnv with standard output bounded by limit bytes.
func runBounded(ctx context.Context, dir string, env []string, stdin []byte, limit int, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	full := append([]string{"-C", dir, "-c", "core.hooksPath=" + os.DevNull, "-c", "commit.gpgsign=false", "-c", "core.quotePath=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1"), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr limitedBuffer
	stdout.max, stderr.max = limit, MaxOutput
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", errors.New("git is not installed (not found on PATH)")
		}
		return "", &Error{Args: args, Output: stderr.String(), Err: err}
	}
	if stdout.cut {
		return "", &Error{Args: args, Err: fmt.Errorf("output longer than %d bytes", limit)}
	}
	return stdout.String(), nil
}

// CommitTime is commit's committer date.
func (r *Repo) CommitTime(ctx context.Context, commit string) (time.Time, error) {
	if !commitID.MatchString(commit) {
		return time.Time{}, fmt.Errorf("date of %q: not a commit id", commit)
	}
	out, err := run(ctx, r.Dir, nil, "show", "-s", "--format=%ct", commit)
	if err != nil {
		return time.Time{}, err
	}
	var sec int64
	if _, err := fmt.Sscanf(strings.TrimSpace(out), "%d", &sec); err != nil {
		return time.Time{}, fmt.Errorf("date of %s: %q", commit, out)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// DiffStat is `git diff --numstat` summed: files changed, lines added and
// deleted.
type DiffStat struct {
	Files     int `json:"files"`
	Additions int `json:"additions"`
	Deletions int `json:"deletions"`
}

func (d DiffStat) String() string {
	return fmt.Sprintf("%d file(s) changed, %d insertion(s)(+), %d deletion(s)(-)", d.Files, d.Additions, d.Deletions)
}

// Stat returns the diffstat from commit a to commit b.
func (r *Repo) Stat(ctx context.Context, a, b string) (DiffStat, error) {
	if !commitID.MatchString(a) || !commitID.MatchString(b) {
		return DiffStat{}, fmt.Errorf("diffstat of %q..%q: not commit ids", a, b)
	}
	out, err := run(ctx, r.Dir, nil, "diff", "--numstat", "--no-renames", a, b, "--")
	if err != nil {
		return DiffStat{}, err
	}
	var st DiffStat
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var add, del int
		// Binary files show "-\t-"; they count as a file with no lines.
		fmt.Sscanf(line, "%d\t%d", &add, &del)
		st.Files++
		st.Additions += add
		st.Deletions += del
	}
	return st, nil
}

// Diff returns the unified diff from commit a to commit b, as git prints
// it (no colour, no renames), bounded as a patch is, by MaxPatch.
func (r *Repo) Diff(ctx context.Context, a, b string) (string, error) {
	if !commitID.MatchString(a) || !commitID.MatchString(b) {
		return "", fmt.Errorf("diff of %q..%q: not commit ids", a, b)
	}
	return runLimit(ctx, r.Dir, nil, MaxPatch, "diff", "--no-color", "--no-renames", "--no-ext-diff", "--no-textconv", a, b, "--")
}

// limitedBuffer keeps at most max bytes: the first ones, or with tail set
// the last ones; cut says whether any were dropped.
type limitedBuffer struct {
	buf  []byte
	max  int
	tail bool
	cut  bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if b.tail {
		b.buf = append(b.buf, p...)
		if len(b.buf) > b.max {
			b.buf = append([]byte(nil), b.buf[len(b.buf)-b.max:]...)
			b.cut = true
		}
		return n, nil
	}
	if room := b.max - len(b.buf); room < len(p) {
		p = p[:max(room, 0)]
		b.cut = true
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

func (b *limitedBuffer) String() string { return string(b.buf) }
