package hcl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assay-lang/assay/lang/spec"
)

func TestFormatSpecsIdempotent(t *testing.T) {
	for _, f := range specFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		once, ds := Format(f, src)
		if len(ds) > 0 {
			t.Fatalf("%s: %s", f, ds.Format(0))
		}
		// The committed specs are canonical already.
		if string(once) != string(src) {
			t.Errorf("%s is not canonical:\n%s", f, once)
		}
		twice, _ := Format(f, once)
		if string(twice) != string(once) {
			t.Errorf("%s: Format is not idempotent", f)
		}
	}
}

func TestFormatCases(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"align", "a=1\nbbb = 2\n", "a   = 1\nbbb = 2\n"},
		{"blank runs", "\n\n\na = 1\n\n\n\nb = 2\n\n\n", "a = 1\n\nb = 2\n"},
		{"no final newline", "a = 1", "a = 1\n"},
		{"crlf", "a = 1\r\nb = 2\r\n", "a = 1\nb = 2\n"},
		{"trailing space", "a = 1   \n", "a = 1\n"},
		{"blocks", "budget {\nreal_runs=1\n}\n", "budget {\n  real_runs = 1\n}\n"},
		{"heredoc kept", "d = <<EOT\nx   \n\n\n\ny\nEOT\n", "d = <<EOT\nx   \n\n\n\ny\nEOT\n"},
		{"comment", "# c  \n\n\n\na = 1 # d\n", "# c\n\na = 1 # d\n"},
		{"blank collapse realigns", "a = 1\n\n\nbbb = 2\n", "a = 1\n\nbbb = 2\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ds := Format("f.hcl", []byte(c.in))
			if len(ds) > 0 {
				t.Fatal(ds.Format(0))
			}
			if string(got) != c.want {
				t.Errorf("Format(%q) = %q, want %q", c.in, got, c.want)
			}
			again, _ := Format("f.hcl", got)
			if string(again) != string(got) {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestFormatRefusesSyntaxErrors(t *testing.T) {
	out, ds := Format("bad.hcl", []byte("a = = 1\n"))
	if out != nil || !ds.HasErrors() || ds[0].Code != "E_SYNTAX" || ds[0].Range.Start.Line != 1 {
		t.Fatalf("out %q, diagnostics %v", out, ds)
	}
}

// TestWriteRoundTrip checks Load(Write(Load(x))) == Load(x) by meaning.
func TestWriteRoundTrip(t *testing.T) {
	for _, f := range specFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, ds := LoadFile(f, Options{})
			if len(ds) > 0 {
				t.Fatal(ds.Format(0))
			}
			out := Write(s)
			s2, ds := Load("written.hcl", out, Options{})
			if len(ds) > 0 {
				t.Fatalf("%s\n%s", ds.Format(0), out)
			}
			if diff := cmp.Diff(spec.Tree(s), spec.Tree(s2)); diff != "" {
				t.Errorf("tree changed (-loaded +written):\n%s\n%s", diff, out)
			}
			if again, _ := Format("written.hcl", out); string(again) != string(out) {
				t.Error("Write output is not canonical")
			}
		})
	}
}

func TestWriteShapes(t *testing.T) {
	s := mustLoad(t, "w.hcl", `
variable "after" {
  type    = list(number)
  default = [1, 2]
}
plugin "p" {
  config = { "odd-key" = [1, "a"], nested = { x = true } }
}
sweep {
  axis "critic.screen.votes" {
    values = [4, 8]
  }
}
`, Options{})
	out := string(Write(s))
	for _, want := range []string{"type    = list(number)", `odd-key = [1, "a"]`, "sweep {\n  axis", `axis "critic.screen.votes"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
