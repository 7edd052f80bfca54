package cue

import (
	"strings"
	"testing"
	"time"
)

// Specs written as JSON and YAML load through the CUE front end, and their
// errors point into the file: a syntax error, an unknown field (with a
// hint), a value of the wrong type, and a document that is not a mapping.
func TestDataSpecErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src, want string
	}{
		{"s.json", "{\"name\": \"x\",\n \"seed\": 1,,\n}", "s.json:2:12: error[cue_syntax]"},
		{"s.json", "{\"name\": \"x\",\n \"sed\": 1\n}", "s.json:2:3: error[E_UNKNOWN_FIELD]"},
		{"s.json", "{\"name\": \"x\",\n \"seed\": \"one\"\n}", "s.json:2:10: error[cue_constraint]"},
		{"s.json", "[1]", "s.json:1:1: error[E_TYPE]: a JSON spec must be an object"},
		{"s.yaml", "name: x\n  seed: [1\n", "s.yaml:2:1: error[cue_syntax]: invalid YAML: mapping values are not allowed"},
		{"s.yml", "name: x\nsed: 1\n", "s.yml:2:1: error[E_UNKNOWN_FIELD]"},
		{"s.yaml", "name: x\nseed: one\n", "s.yaml:2:7: error[cue_constraint]"},
		{"s.yaml", "- 1\n- 2\n", "s.yaml:1:1: error[E_TYPE]: a YAML spec must be a mapping"},
		// CUE's YAML decoder panics on bare carriage returns; that is an
		// error placed on the file, not a crash.
		{"s.yaml", "\r\r0", "s.yaml:1:1: error[cue_syntax]: the YAML decoder could not read this file"},
		// Aliases that expand exponentially are refused, not expanded.
		{"s.yaml", bomb(), "s.yaml:1:1: error[cue_syntax]: invalid YAML: aliases expand to more than"},
	} {
		_, ds := Load([]Source{{Name: tc.name, Src: []byte(tc.src)}}, Options{})
		if got := ds.Format(0); !strings.Contains(got, tc.want) {
			t.Errorf("%s %q: want %q, got:\n%s", tc.name, tc.src, tc.want, got)
		}
	}
}

// FuzzLoadData checks that no JSON or YAML input makes Load panic or hang.
func FuzzLoadData(f *testing.F) {
	f.Add(true, []byte(`{"name": "x", "loop": {"p": {"kind": "rl", "steps": 3}}}`))
	f.Add(false, []byte("name: x\nloop:\n  p:\n    kind: rl\n    steps: 3\n"))
	f.Add(false, []byte("a: &a [*a]\n"))
	f.Add(false, []byte("- 1\n"))
	f.Add(true, []byte(`[{}]`))
	f.Add(false, []byte("\r\r0"))
	f.Fuzz(func(t *testing.T, isJSON bool, b []byte) {
		if len(b) > maxFuzzInput {
			return
		}
		name := "fuzz.yaml"
		if isJSON {
			name = "fuzz.json"
		}
		s, ds := Load([]Source{{Name: name, Src: b}}, Options{Timeout: time.Second})
		if s == nil && !ds.HasErrors() {
			t.Fatal("nil spec without an error")
		}
		for _, d := range ds {
			if !d.Range.Valid() && d.Range.Filename == "" {
				t.Fatalf("diagnostic without a file: %s", d.Summary)
			}
		}
	})
}

// bomb is YAML whose aliases expand to 9^9 strings.
func bomb() string {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, n := range "bcdefghi" {
		b.WriteString(string(n) + ": &" + string(n) + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n")
		prev = string(n)
	}
	return b.String()
}
