package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-lang/assay/features/rehearse"
	"github.com/assay-lang/assay/lang/load/loadtest"
)

// TestDocs runs the examples of README.md and docs/*.md, so a document
// cannot drift from the tool: every fenced spec snippet (```hcl, ```cue,
// ```json, ```yaml) validates, and every command block (```sh, ```console,
// or a block whose lines begin with "$ ") runs with the assay this test
// builds, against a copy of the repository's specs, its shown output
// compared. A block that is not meant to run as written says so in an
// HTML comment just before it, one directive per comment:
//
//	<!-- doc: fragment of specs/lm2lm.hcl -->   its lines appear in that file, in order
//	<!-- doc: extends specs/quickstart.hcl -->  it validates merged over that spec
//	<!-- doc: as specs/NAME.hcl -->             it is saved there, for the blocks after it in the file
//	<!-- doc: invalid E_CODE -->                validating it fails with E_CODE
//	<!-- doc: world file for SPEC -->           it parses as a rehearsal world file
//	<!-- doc: not a spec: REASON -->            a data excerpt, not checked
//	<!-- doc: not run: REASON -->               a command block that is not run
//	<!-- doc: skip PREFIX: REASON -->           its lines that begin with PREFIX are not run
//	<!-- doc: exit N -->                        the command exits N
//	<!-- doc: edit FILE from SRC: OLD -> NEW --> before running, FILE is SRC with OLD made NEW
//	<!-- doc: volatile REGEXP -->               text REGEXP matches is compared as N
//	<!-- doc: script -->                        the block runs as one bash script, not with -e
//	<!-- doc: git -->                           it runs in a git repository whose origin/main holds the specs
//	<!-- doc: git change FILE: OLD -> NEW -->   ... and HEAD changes FILE after origin/main
//
// In shown output, a line "..." stands for any lines. docs/cli.md is the
// commands' help (TestCLIDoc keeps it current) and holds no such blocks.
func TestDocs(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	// Every block runs in a folder of its own; the slow ones (a run, a
	// pairs export, rehearsals) overlap with each other and the scripts.
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	n := 0
	for _, f := range files {
		blocks, err := readDocBlocks(f, root)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			if b.kind() == "" {
				continue
			}
			n++
			t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
				t.Parallel()
				b.check(t, root)
			})
		}
	}
	if n < 10 {
		t.Fatalf("only %d example blocks found in README.md and docs/", n)
	}
}

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file  string // relative to the repository root
	line  int    // of the opening fence
	lang  string
	body  []string
	marks []string // the doc: directives before it, in order
	// saved are the spec blocks marked "as FILE" before it in the same
	// file, by FILE: they are in its working directory.
	saved map[string]string
}

var (
	fenceRE = regexp.MustCompile("^(\\s*)```\\s*([A-Za-z0-9_+-]*)\\s*$")
	markRE  = regexp.MustCompile(`^\s*<!-- doc: (.+?) -->\s*$`)
)

// readDocBlocks returns the fenced blocks of a Markdown file, with the
// directives written just before each (blank lines between allowed).
func readDocBlocks(path, root string) ([]docBlock, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(root, path)
	lines := strings.Split(string(b), "\n")
	var out []docBlock
	var marks []string
	saved := map[string]string{}
	for i := 0; i < len(lines); i++ {
		if m := markRE.FindStringSubmatch(lines[i]); m != nil {
			marks = append(marks, m[1])
			continue
		}
		m := fenceRE.FindStringSubmatch(lines[i])
		if m == nil {
			if strings.TrimSpace(lines[i]) != "" {
				marks = nil
			}
			continue
		}
		blk := docBlock{file: filepath.ToSlash(rel), line: i + 1, lang: m[2], marks: marks, saved: maps.Clone(saved)}
		marks = nil
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			blk.body = append(blk.body, strings.TrimPrefix(lines[i], m[1]))
		}
		if as, ok := blk.mark("as"); ok && blk.kind() == "spec" {
			saved[as] = strings.Join(blk.body, "\n") + "\n"
		}
		out = append(out, blk)
	}
	return out, nil
}

// kind is "spec", "sh" or "console", or "" for a block this test leaves
// alone (Go, Lua, TOML, Python, Markdown, plain text).
func (b *docBlock) kind() string {
	switch b.lang {
	case "hcl", "cue", "json", "yaml", "yml":
		return "spec"
	case "sh", "bash":
		return "sh"
	case "console":
		return "console"
	case "":
		for _, l := range b.body {
			if strings.TrimSpace(l) != "" {
				if strings.HasPrefix(l, "$ ") {
					return "console"
				}
				return ""
			}
		}
	}
	return ""
}

// mark returns the argument of the directive that begins with name, and
// whether there is one.
func (b *docBlock) mark(name string) (string, bool) {
	for _, m := range b.marks {
		if m == name {
			return "", true
		}
		if rest, ok := strings.CutPrefix(m, name+" "); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

func (b *docBlock) check(t *testing.T, root string) {
	if reason, ok := b.mark("not run:"); ok {
		if reason == "" {
			t.Fatal("<!-- doc: not run: REASON --> needs a reason")
		}
		return
	}
	switch b.kind() {
	case "spec":
		b.checkSpec(t, root)
	case "sh":
		b.runScript(t, root)
	case "console":
		b.runConsole(t, root)
	}
}

// workDir is a fresh copy of the repository's specs, where the examples'
// relative paths (specs/lm2lm.hcl) resolve, set up as the block's
// directives say.
func (b *docBlock) workDir(t *testing.T, root string) string {
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "specs"), os.DirFS(filepath.Join(root, "specs"))); err != nil {
		t.Fatal(err)
	}
	for file, text := range b.saved {
		writeFile(t, filepath.Join(dir, file), text)
	}
	for _, m := range b.marks {
		if rest, ok := strings.CutPrefix(m, "edit "); ok {
			file, src, old, new := parseEdit(t, rest)
			editCopy(t, filepath.Join(root, src), filepath.Join(dir, file), old, new)
		}
	}
	if _, ok := b.mark("git"); ok {
		gitRepo(t, dir)
	}
	if change, ok := b.mark("git change"); ok {
		gitRepo(t, dir)
		file, old, new := parseChange(t, change)
		p := filepath.Join(dir, file)
		data, _ := os.ReadFile(p)
		if !strings.Contains(string(data), old) {
			t.Fatalf("git change: %s does not contain %q", file, old)
		}
		writeFile(t, p, strings.Replace(string(data), old, new, 1))
		runGit(t, dir, "commit", "-q", "-a", "-m", "change")
	}
	return dir
}

// editCopy writes dst as the spec src with old made new, and copies the
// bases src extends beside it, in the same places relative to it, so the
// copy loads as src does.
func editCopy(t *testing.T, src, dst, old, new string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("edit: %s does not contain %q", src, old)
	}
	copied := loadtest.CopySpec(t, src, filepath.Dir(dst))
	if filepath.Dir(copied[0]) != filepath.Dir(dst) {
		t.Fatalf("edit: %s extends a spec outside its folder; the copy cannot keep its name %s", src, dst)
	}
	if copied[0] != dst {
		if err := os.Remove(copied[0]); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, dst, strings.Replace(string(data), old, new, 1))
}

// parseEdit splits "FILE from SRC: OLD -> NEW".
func parseEdit(t *testing.T, s string) (file, src, old, new string) {
	head, change, ok := strings.Cut(s, ": ")
	file, src, ok2 := strings.Cut(head, " from ")
	old, new, ok3 := strings.Cut(change, " -> ")
	if !ok || !ok2 || !ok3 {
		t.Fatalf("<!-- doc: edit %s -->: write edit FILE from SRC: OLD -> NEW", s)
	}
	return file, src, old, new
}

// parseChange splits "FILE: OLD -> NEW".
func parseChange(t *testing.T, s string) (file, old, new string) {
	file, change, ok := strings.Cut(s, ": ")
	old, new, ok2 := strings.Cut(change, " -> ")
	if !ok || !ok2 {
		t.Fatalf("<!-- doc: git change %s -->: write git change FILE: OLD -> NEW", s)
	}
	return file, old, new
}

// gitRepo makes dir a repository with one commit on main, pushed to an
// origin beside it, as a pull request's checkout has.
func gitRepo(t *testing.T, dir string) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return
	}
	origin := filepath.Join(t.TempDir(), "origin.git")
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "base")
	runGit(t, dir, "clone", "-q", "--bare", ".", origin)
	runGit(t, dir, "remote", "add", "origin", origin)
	runGit(t, dir, "fetch", "-q", "origin")
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=assay", "-c", "user.email=assay@example.com"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkSpec validates a spec snippet, or checks it as its directive says.
func (b *docBlock) checkSpec(t *testing.T, root string) {
	text := strings.Join(b.body, "\n") + "\n"
	if reason, ok := b.mark("not a spec:"); ok {
		if reason == "" {
			t.Fatal("<!-- doc: not a spec: REASON --> needs a reason")
		}
		return
	}
	if path, ok := b.mark("fragment of"); ok {
		checkFragment(t, b.body, filepath.Join(root, path))
		return
	}
	if spec, ok := b.mark("world file for"); ok {
		if _, ds := rehearse.ParseWorld(b.file, []byte(text)); ds.HasErrors() {
			t.Fatalf("the world file (for %s) does not parse:\n%s", spec, ds.Format(0))
		}
		return
	}
	dir := b.workDir(t, root)
	ext := b.lang
	if ext == "yml" {
		ext = "yaml"
	}
	path := filepath.Join(dir, "specs", "doc-example."+ext)
	if as, ok := b.mark("as"); ok {
		path = filepath.Join(dir, as)
	}
	if base, ok := b.mark("extends"); ok {
		if ext != "hcl" {
			t.Fatalf("<!-- doc: extends --> is for HCL snippets")
		}
		rel, err := filepath.Rel(filepath.Dir(filepath.Join(dir, "specs", "x")), filepath.Join(dir, base))
		if err != nil {
			t.Fatal(err)
		}
		text = fmt.Sprintf("extends = %q\n\n%s", filepath.ToSlash(rel), text)
	}
	writeFile(t, path, text)
	out, code := runIn(t, dir, "assay validate "+shellQuote(path))
	if want, ok := b.mark("invalid"); ok {
		if code == 0 || !strings.Contains(out, "["+want+"]") {
			t.Fatalf("validate exited %d, want an error %s:\n%s", code, want, out)
		}
		return
	}
	if code != 0 {
		t.Fatalf("the snippet does not validate (exit %d):\n%s\n%s", code, text, out)
	}
}

// checkFragment fails unless the fragment's lines (blank lines and "..."
// aside) appear in the file in the same order, spaces between words and
// trailing comments aside.
func checkFragment(t *testing.T, frag []string, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	// Alignment and trailing comments may differ: a trimmed block is
	// laid out anew.
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	j := 0
	for _, l := range frag {
		l = words(l)
		if l == "" || l == "..." {
			continue
		}
		for j < len(lines) && words(lines[j]) != l && words(uncomment(lines[j])) != l {
			j++
		}
		if j == len(lines) {
			t.Fatalf("line %q of the fragment is not in %s (after the lines before it)", l, path)
		}
		j++
	}
}

// uncomment is an HCL or CUE line without its trailing comment (# or //
// outside a string).
func uncomment(line string) string {
	in := false
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '"' && (i == 0 || line[i-1] != '\\'):
			in = !in
		case !in && (line[i] == '#' || strings.HasPrefix(line[i:], "//")):
			return line[:i]
		}
	}
	return line
}

// runScript runs a shell block: with bash -e, so each command must
// succeed, unless marked script; a block of other programs than assay must
// say how it is run.
func (b *docBlock) runScript(t *testing.T, root string) {
	skip, skipping := b.mark("skip")
	prefix, reason, _ := strings.Cut(skip, ": ")
	if skipping && (prefix == "" || reason == "") {
		t.Fatal("<!-- doc: skip PREFIX: REASON --> needs both")
	}
	_, script := b.mark("script")
	_, git := b.mark("git")
	_, change := b.mark("git change")
	whole := script || git || change
	var lines []string
	for i, l := range b.body {
		cmd := strings.TrimSpace(l)
		if skipping && strings.HasPrefix(cmd, prefix) {
			continue
		}
		if !whole && cmd != "" && !strings.HasPrefix(cmd, "#") && !strings.HasPrefix(cmd, "assay ") && !continues(b.body, i) {
			t.Fatalf("line %d runs %q, which is not assay: mark the block <!-- doc: not run: REASON -->, <!-- doc: skip PREFIX: REASON --> or <!-- doc: script -->", b.line+1+i, strings.Fields(cmd)[0])
		}
		lines = append(lines, l)
	}
	dir := b.workDir(t, root)
	out, code := runIn(t, dir, scriptOf(lines, !whole))
	want := 0
	if n, ok := b.mark("exit"); ok {
		want, _ = strconv.Atoi(n)
	}
	if code != want {
		t.Fatalf("the block exited %d, want %d:\n%s", code, want, out)
	}
}

// continues reports whether line i is the continuation of the line
// before it (which ends in a backslash).
func continues(body []string, i int) bool {
	return i > 0 && strings.HasSuffix(strings.TrimRight(body[i-1], " "), "\\")
}

func scriptOf(lines []string, strict bool) string {
	s := strings.Join(lines, "\n") + "\n"
	if strict {
		s = "set -e\n" + s
	}
	return s
}

// runConsole runs each "$ " command of a console block and compares what
// it prints (stdout and stderr) with the lines shown after it.
func (b *docBlock) runConsole(t *testing.T, root string) {
	var volatile []*regexp.Regexp
	for _, m := range b.marks {
		if expr, ok := strings.CutPrefix(m, "volatile "); ok {
			volatile = append(volatile, regexp.MustCompile(expr))
		}
	}
	want := 0
	if n, ok := b.mark("exit"); ok {
		want, _ = strconv.Atoi(n)
	}
	dir := b.workDir(t, root)
	for i := 0; i < len(b.body); {
		cmd, ok := strings.CutPrefix(b.body[i], "$ ")
		if !ok {
			t.Fatalf("line %d: a console block begins each command with \"$ \"", b.line+1+i)
		}
		if !strings.HasPrefix(cmd, "assay ") {
			t.Fatalf("line %d runs %q, which is not assay: mark the block <!-- doc: not run: REASON -->", b.line+1+i, cmd)
		}
		var shown []string
		for i++; i < len(b.body) && !strings.HasPrefix(b.body[i], "$ "); i++ {
			shown = append(shown, b.body[i])
		}
		out, code := runIn(t, dir, cmd)
		if code != want {
			t.Fatalf("%s exited %d, want %d:\n%s", cmd, code, want, out)
		}
		if msg := matchShown(normalise(shown, volatile), normalise(strings.Split(out, "\n"), volatile)); msg != "" {
			t.Errorf("%s: %s\nit printed:\n%s", cmd, msg, out)
		}
	}
}

func normalise(lines []string, volatile []*regexp.Regexp) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		for _, re := range volatile {
			l = re.ReplaceAllString(l, "N")
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// matchShown says how got differs from the shown lines, where a line
// "..." stands for any lines; "" when it does not.
func matchShown(shown, got []string) string {
	var segs [][]string
	cur := []string{}
	for _, l := range shown {
		if strings.TrimSpace(l) == "..." {
			segs = append(segs, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, l)
	}
	segs = append(segs, cur)
	pos := 0
	for k, seg := range segs {
		first, last := k == 0, k == len(segs)-1
		found := -1
		for at := pos; at+len(seg) <= len(got); at++ {
			if first && at != 0 {
				break
			}
			if last && at+len(seg) != len(got) {
				continue
			}
			if equalLines(seg, got[at:at+len(seg)]) {
				found = at
				break
			}
		}
		if found < 0 {
			return fmt.Sprintf("the shown lines %q are not what it printed there", seg)
		}
		pos = found + len(seg)
	}
	return ""
}

func equalLines(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// runIn runs a bash command line in dir with the assay under test first
// on PATH, and returns its combined output and exit code.
func runIn(t *testing.T, dir, line string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "BASE=origin/main")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return string(out), 0
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
