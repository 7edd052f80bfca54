package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/base/gitrepo/gittest"
)

// oddName is a file name git must quote (a tab, a non-ASCII letter).
const oddName = "odd name\t\u20ac.txt"

// filesRepo commits text, binary, oversized, executable, symlinked, oddly
// named and non-editable files.
func filesRepo(t *testing.T) (*Repo, string) {
	t.Helper()
	r, _ := seedRepo(t)
	files := map[string]string{
		"a.txt": "hello\n", "big.txt": strings.Repeat("x", MaxOutput+1), "bin.dat": "\x00\x01\x02\xff\n\x00tail",
		"exec.sh": "echo\n", oddName: "odd\n", "sub/c.txt": "c\n", "other/x.bin": "not editable\n", "empty.txt": "",
	}
	for name, body := range files {
		p := filepath.Join(r.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, p, body)
	}
	if err := os.Chmod(filepath.Join(r.Dir, "exec.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(r.Dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "files"}} {
		if out, err := exec.Command("git", append([]string{"-C", r.Dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	head, err := r.Resolve(context.Background(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	return r, head
}

var filesEditable = []string{"*.txt", "*.dat", "*.sh", "sub", "missing/path"}

// Files reads every editable regular file of a commit, binary and oddly
// named ones included, and neither symlinks nor other paths.
func TestFilesBatched(t *testing.T) {
	r, head := filesRepo(t)
	got, err := r.Files(context.Background(), head, filesEditable, 1<<20, 1<<20, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{Path: "a.txt", Content: "hello\n"}, {Path: "big.txt", Truncated: true}, {Path: "bin.dat", Content: "\x00\x01\x02\xff\n\x00tail"},
		{Path: "empty.txt"}, {Path: "exec.sh", Content: "echo\n"}, {Path: oddName, Content: "odd\n"}, {Path: "sub/c.txt", Content: "c\n"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("files (-want +got):\n%s", d)
	}
	if got, err := r.Files(context.Background(), head, []string{"missing/path"}, 10, 10, 10); err != nil || len(got) != 0 {
		t.Fatalf("a path the commit lacks: %+v, %v", got, err)
	}
	if _, err := r.Files(context.Background(), strings.Repeat("ab", 20), filesEditable, 10, 10, 10); err == nil {
		t.Fatal("files of a commit the repository lacks")
	}
}

// Files keeps the bounds of one cat-file per file: each file cut at
// perFile, all together at total (later files empty and truncated), at
// most maxFiles, a file over MaxOutput empty; oracleFiles reads as it did.
func TestFilesBounds(t *testing.T) {
	r, head := filesRepo(t)
	ctx := context.Background()
	got, err := r.Files(ctx, head, filesEditable, 3, 8, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []File{{Path: "a.txt", Content: "hel", Truncated: true}, {Path: "big.txt", Truncated: true}, {Path: "bin.dat", Content: "\x00\x01\x02", Truncated: true},
		{Path: "empty.txt"}, {Path: "exec.sh", Content: "ec", Truncated: true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("files (-want +got):\n%s", d)
	}
	for _, b := range [][3]int{{1 << 20, 1 << 20, 100}, {4, 100, 100}, {100, 5, 100}, {100, 100, 2}, {0, 0, 3}, {6, 6, 100}, {2, 13, 1}} {
		got, err := r.Files(ctx, head, filesEditable, b[0], b[1], b[2])
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(oracleFiles(t, r, head, filesEditable, b[0], b[1], b[2]), got); d != "" {
			t.Errorf("bounds %v (-one process a file +batched):\n%s", b, d)
		}
	}
}

// oracleFiles reads files as Files did before it batched: one cat-file
// per file, an output over MaxOutput shown empty.
func oracleFiles(t *testing.T, r *Repo, commit string, editable []string, perFile, total, maxFiles int) []File {
	t.Helper()
	out, err := exec.Command("git", "-C", r.Dir, "ls-tree", "-r", "-z", "--full-tree", commit).Output()
	if err != nil {
		t.Fatal(err)
	}
	var files []File
	left := total
	for _, rec := range strings.Split(string(out), "\x00") {
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
			b, err := exec.Command("git", "-C", r.Dir, "cat-file", "blob", f[2]).Output()
			if err != nil {
				t.Fatal(err)
			}
			body := string(b)
			if len(body) > MaxOutput {
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
	return files
}

// Lookup says whether a commit is there and where a ref points, in one
// process.
func TestLookup(t *testing.T) {
	r, head := seedRepo(t)
	ctx := context.Background()
	if has, at, err := r.Lookup(ctx, head, "refs/assay/x/y"); err != nil || !has || at != "" {
		t.Fatalf("no ref yet: %v %q %v", has, at, err)
	}
	if err := r.UpdateRef(ctx, "refs/assay/x/y", head); err != nil {
		t.Fatal(err)
	}
	if has, at, err := r.Lookup(ctx, head, "refs/assay/x/y"); err != nil || !has || at != head {
		t.Fatalf("ref set: %v %q %v", has, at, err)
	}
	if has, _, err := r.Lookup(ctx, strings.Repeat("ab", 20), "refs/assay/x/y"); err != nil || has {
		t.Fatalf("a missing commit: %v %v", has, err)
	}
	tree := strings.TrimSpace(gitOut(t, r.Dir, "rev-parse", head+"^{tree}"))
	if has, _, err := r.Lookup(ctx, tree, "refs/assay/x/y"); err != nil || has {
		t.Fatalf("a tree is not a commit: %v %v", has, err)
	}
	if _, _, err := r.Lookup(ctx, head, "refs/x\nHEAD"); err == nil {
		t.Fatal("a ref with a newline was looked up")
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

func TestReadBatchRefuses(t *testing.T) {
	id := strings.Repeat("ab", 20)
	for _, out := range []string{
		id + " missing\n",
		id + " blob 5\nabc\n",
		id + " blob 3\nabcX",
		id + " blob -1\n\n",
		id + " blob 3",
		"zz blob 1\na\n",
	} {
		if _, err := readBatch(out); err == nil {
			t.Errorf("readBatch(%q) read it", out)
		}
	}
	got, err := readBatch(id + " blob 3\na\nb\n" + id + " blob 0\n\n")
	if err != nil || len(got) != 2 || got[0].body != "a\nb" || got[1].body != "" {
		t.Fatalf("%+v, %v", got, err)
	}
}

func FuzzReadBatch(f *testing.F) {
	id := strings.Repeat("0f", 20)
	f.Add(id + " blob 3\nabc\n")
	f.Add(id + " blob 2\n\x00\n\n" + id + " missing\n")
	f.Add(id + " blob 99999999999999999999\nx\n")
	f.Add("100644 blob " + id + "       3\tpath\x00")
	f.Fuzz(func(t *testing.T, out string) {
		objs, err := readBatch(out)
		if err == nil {
			n := 0
			for _, o := range objs {
				n += len(o.body)
			}
			if n > len(out) {
				t.Fatalf("%d body bytes from %d", n, len(out))
			}
		}
		for _, rec := range strings.Split(out, "\x00") {
			if e, ok := treeEntry(rec); ok && (e.size < 0 || e.path == "" || !objectID.MatchString(e.id)) {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}

// Files runs two git processes however many files it reads (it ran one
// per file). A git on PATH that logs each start counts them.
func TestFilesTwoProcesses(t *testing.T) {
	r, head := filesRepo(t)
	starts := gittest.Logged(t)
	files, err := r.Files(context.Background(), head, filesEditable, 1<<20, 1<<20, 100)
	if err != nil || len(files) != 7 {
		t.Fatalf("%d files, %v", len(files), err)
	}
	if got := starts(); len(got) != 2 {
		t.Fatalf("%d git processes for %d files, want 2: %q", len(got), len(files), got)
	}
}

// A candidate's commit starts no automatic maintenance or gc in the
// user's repository (git's trace names each command git starts itself).
func TestCommitStartsNoMaintenance(t *testing.T) {
	r, head := seedRepo(t)
	ctx := context.Background()
	wt := filepath.Join(t.TempDir(), "wt")
	if err := r.AddWorktree(ctx, wt, head); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)
	if _, err := Commit(ctx, wt, "assay: c\n", time.Unix(1_700_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(trace)
	if err != nil || !strings.Contains(string(b), "commit") {
		t.Skipf("git wrote no trace (%v): nothing to check", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "run_command") && (strings.Contains(line, "maintenance") || strings.Contains(line, " gc ")) {
			t.Fatalf("the commit started %s", line)
		}
	}
}
