package load

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/assay-lang/assay/lang/diag"
)

// loadQuickly loads path in the background and fails the test when Load
// does not return within a generous bound: a FIFO or /dev/zero must be
// refused, not read.
func loadQuickly(t *testing.T, path string, opts Options) (Sources, diag.Diagnostics) {
	t.Helper()
	type res struct {
		src Sources
		ds  diag.Diagnostics
	}
	done := make(chan res, 1)
	go func() {
		_, src, ds := Load(path, opts)
		done <- res{src, ds}
	}()
	select {
	case r := <-done:
		return r.src, r.ds
	case <-time.After(30 * time.Second):
		t.Fatalf("Load(%s) did not return", path)
		return nil, nil
	}
}

// Spec files, bases and variable files that are devices, pipes or too large
// are refused with a positioned error, without reading them whole.
func TestLoadRefusesNonRegularAndHugeFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"ok.hcl":       "seed = 1\n",
		"ok.cue":       "seed: 1\n",
		"ext-zero.hcl": "extends = \"zero.hcl\"\n",
		"ext-fifo.hcl": "extends = \"fifo.hcl\"\n",
		"ext-huge.cue": "extends: \"huge.hcl\"\n",
		"huge.hcl":     "name = \"" + strings.Repeat("a", 2<<20) + "\"\n",
		"pkg/a.cue":    "seed: 1\n",
		"pkg/b.cue":    "name: \"" + strings.Repeat("a", 600<<10) + "\"\n",
		"pkg/c.cue":    "description: \"" + strings.Repeat("a", 600<<10) + "\"\n",
	})
	for _, l := range []struct{ name, target string }{{"zero.hcl", "/dev/zero"}, {"zero.cue", "/dev/zero"}, {"rand.hcl", "/dev/urandom"}, {"zero-vars.hcl", "/dev/zero"}} {
		if err := os.Symlink(l.target, filepath.Join(dir, l.name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"fifo.hcl", "fifo.cue", "fifo-vars.hcl"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	cases := []struct {
		name, spec string
		opts       Options
		code, file string
		line       int
		summary    string
	}{
		{"spec is /dev/zero (hcl)", "zero.hcl", Options{}, "E_FILE_READ", "zero.hcl", 1, "a character device, not a regular file"},
		{"spec is /dev/zero (cue)", "zero.cue", Options{}, "E_FILE_READ", "zero.cue", 1, "not a regular file"},
		{"spec is /dev/urandom", "rand.hcl", Options{}, "E_FILE_READ", "rand.hcl", 1, "not a regular file"},
		{"spec is a fifo (hcl)", "fifo.hcl", Options{}, "E_FILE_READ", "fifo.hcl", 1, "a named pipe"},
		{"spec is a fifo (cue)", "fifo.cue", Options{}, "E_FILE_READ", "fifo.cue", 1, "a named pipe"},
		{"spec too large", "huge.hcl", Options{}, "E_TOO_LARGE", "huge.hcl", 1, "1048576 bytes"},
		{"cue package too large", "pkg", Options{}, "E_TOO_LARGE", "", 1, "1048576 bytes"},
		{"extends /dev/zero", "ext-zero.hcl", Options{}, "E_EXTENDS", "ext-zero.hcl", 1, "not a regular file"},
		{"extends a fifo", "ext-fifo.hcl", Options{}, "E_EXTENDS", "ext-fifo.hcl", 1, "a named pipe"},
		{"extends a huge file", "ext-huge.cue", Options{}, "E_TOO_LARGE", "huge.hcl", 1, "1048576 bytes"},
		{"var file /dev/zero (hcl)", "ok.hcl", Options{VarFiles: []string{p("zero-vars.hcl")}}, "E_FILE_READ", "zero-vars.hcl", 1, "not a regular file"},
		{"var file fifo (hcl)", "ok.hcl", Options{VarFiles: []string{p("fifo-vars.hcl")}}, "E_FILE_READ", "fifo-vars.hcl", 1, "a named pipe"},
		{"var file /dev/zero (cue)", "ok.cue", Options{VarFiles: []string{p("zero-vars.hcl")}}, "E_FILE_READ", "zero-vars.hcl", 1, "not a regular file"},
		{"var file too large (cue)", "ok.cue", Options{VarFiles: []string{p("huge.hcl")}}, "E_TOO_LARGE", "huge.hcl", 1, "1048576 bytes"},
		{"var file too large (hcl)", "ok.hcl", Options{VarFiles: []string{p("huge.hcl")}}, "E_TOO_LARGE", "huge.hcl", 1, "1048576 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ds := loadQuickly(t, p(c.spec), c.opts)
			errs := ds.Errors()
			if len(errs) == 0 {
				t.Fatalf("no error; want %s", c.code)
			}
			d := errs[0]
			if d.Code != c.code || !strings.Contains(d.Summary, c.summary) || d.Range.Start.Line != c.line ||
				(c.file != "" && filepath.Base(d.Range.Filename) != c.file) {
				t.Fatalf("got %s %s %q; want %s at %s:%d containing %q\n%s", d.Range, d.Code, d.Summary, c.code, c.file, c.line, c.summary, ds.Format(0))
			}
		})
	}
}

// A base that is not a spec is refused at the extends attribute, and none of
// its lines reach the output; a directory as base is reported there too.
func TestExtendsNotASpec(t *testing.T) {
	secret := "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	dir := writeFiles(t, map[string]string{
		"passwd.hcl":   secret,
		"passwd.cue":   secret,
		"hostname.cue": "somehost\n",
		"ext-pw.hcl":   "# a comment\nname = \"x\"\nextends = \"passwd.hcl\"\n",
		"ext-pw.cue":   "extends: \"passwd.cue\"\n",
		"ext-host.hcl": "extends = \"hostname.cue\"\n",
		"ext-dir.hcl":  "seed = 1\nextends = \"empty\"\n",
		"empty/notes":  "x\n",
		"comment.hcl":  "// a spec may begin with a comment\n/* and a block\n comment */ seed = \n",
		"ext-synt.hcl": "extends = \"comment.hcl\"\n",
		"ext-typo.hcl": "extends = \"typo.hcl\"\n",
		"typo.hcl":     "seeed = 1\nname = \"b\"\n",
	})
	cases := []struct {
		file, code, at, summary string
	}{
		{"ext-pw.hcl", "E_EXTENDS", "ext-pw.hcl:3", "not an Assay spec"},
		{"ext-pw.cue", "E_EXTENDS", "ext-pw.cue:1", "not an Assay spec"},
		{"ext-host.hcl", "E_EXTENDS", "ext-host.hcl:1", "not an Assay spec"},
		{"ext-dir.hcl", "E_FILE_READ", "ext-dir.hcl:2", "holds no .cue files"},
		// A base that is a spec with mistakes still shows them where they are.
		{"ext-synt.hcl", "E_SYNTAX", "comment.hcl:3", ""},
		{"ext-typo.hcl", "E_UNKNOWN_FIELD", "typo.hcl:1", "seeed"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			src, ds := loadQuickly(t, filepath.Join(dir, c.file), Options{})
			errs := ds.Errors()
			if len(errs) != 1 {
				t.Fatalf("want one error, got:\n%s", ds.Format(0))
			}
			errs.Annotate(src)
			d := errs[0]
			where := filepath.Base(d.Range.Filename) + ":" + itoa(d.Range.Start.Line)
			if d.Code != c.code || where != c.at || !strings.Contains(d.Summary, c.summary) {
				t.Fatalf("got %s %s %q; want %s at %s containing %q", where, d.Code, d.Summary, c.code, c.at, c.summary)
			}
			if out := ds.Format(0); strings.Contains(out, "root:x") || strings.Contains(out, "somehost") {
				t.Fatalf("the base's content reached the output:\n%s", out)
			}
		})
	}
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
