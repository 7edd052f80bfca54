package load

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// baseWithSteps declares steps and uses it, so a test can see which default
// the base evaluated with.
const baseWithSteps = `variable "steps" {
  type    = number
  default = 96
}
loop "policy" {
  preset = "dapo"
  steps  = var.steps
}
`

// A variable declared again with a new default in a spec that extends
// another takes effect in the base too: the chain has one value per
// variable, the nearest file's default over the base's, -var-file and -var
// over both. Every front end of the chain applies it.
func TestExtendsVariableDefaults(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.hcl": baseWithSteps,
		"base.cue": `variable: steps: {type: "number", default: 96}
loop: policy: {preset: "dapo", steps: var.steps}
`,
		"child.hcl": `extends = "base.hcl"
variable "steps" {
  type    = number
  default = 40
}
`,
		"child-of-cue.hcl": `extends = "base.cue"
variable "steps" {
  default = 40
}
`,
		"child.cue": `extends: "base.hcl"
variable: steps: {type: "number", default: 40}
`,
		// The nearest default wins over a middle file's and the base's.
		"grandchild.hcl": `extends = "child.hcl"
variable "steps" {
  type    = number
  default = 24
}
`,
		// A middle file that does not declare it passes the default on.
		"over-plain.hcl": `extends = "plain.hcl"
variable "steps" {
  type    = number
  default = 24
}
`,
		// A redeclaration without a default takes the base's.
		"no-default.hcl": `extends = "base.hcl"
variable "steps" {
  type = number
}
seed = var.steps
`,
		"plain.hcl": "extends = \"child.hcl\"\nname = \"plain\"\n",
		"vars.hcl":  "steps = 12\n",
	})
	cases := []struct {
		file string
		want int
	}{
		{"child.hcl", 40},
		{"child-of-cue.hcl", 40},
		{"child.cue", 40},
		{"grandchild.hcl", 24},
		{"over-plain.hcl", 24},
		{"no-default.hcl", 96},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			s, _ := mustLoad(t, path, Options{})
			if got := s.Loops[0].Steps.V; got != c.want {
				t.Errorf("steps = %d, want the extending file's default %d", got, c.want)
			}
			if len(s.Variables) != 1 || s.Variables[0].Value.V != float64(c.want) {
				t.Errorf("variables = %+v, want steps with value %d", s.Variables, c.want)
			}
			s, _ = mustLoad(t, path, Options{Vars: []string{"steps=8"}})
			if got := s.Loops[0].Steps.V; got != 8 {
				t.Errorf("with -var steps=8: steps = %d, want 8", got)
			}
		})
	}
	s, _ := mustLoad(t, filepath.Join(dir, "grandchild.hcl"), Options{VarFiles: []string{filepath.Join(dir, "vars.hcl")}})
	if got := s.Loops[0].Steps.V; got != 12 {
		t.Errorf("with -var-file steps = 12: steps = %d, want 12", got)
	}
}

// A redeclaration cannot change a variable's type, and a default the base's
// type does not take is refused at the extending file's default.
func TestExtendsVariableConflicts(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"base.hcl": baseWithSteps,
		"retyped.hcl": `extends = "base.hcl"
variable "steps" {
  type    = string
  default = "many"
}
`,
		"untyped.hcl": `extends = "base.hcl"
variable "steps" {
  default = "many"
}
`,
		"retyped.cue": `extends: "base.hcl"
variable: steps: {type: "string", default: "many"}
`,
	})
	cases := []struct{ file, at, summary string }{
		{"retyped.hcl", "retyped.hcl:3", "declared number in"},
		{"untyped.hcl", "untyped.hcl:3", "want number"},
		{"retyped.cue", "retyped.cue:2", "declared number in"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, _, ds := Load(filepath.Join(dir, c.file), Options{})
			errs := ds.Errors()
			if len(errs) != 1 {
				t.Fatalf("want one E_VAR_TYPE, got:\n%s", ds.Format(0))
			}
			d := errs[0]
			where := filepath.Base(d.Range.Filename) + ":" + strconv.Itoa(d.Range.Start.Line)
			if d.Code != "E_VAR_TYPE" || where != c.at || !strings.Contains(d.Summary, c.summary) {
				t.Fatalf("got %s %s %q, want E_VAR_TYPE at %s containing %q", where, d.Code, d.Summary, c.at, c.summary)
			}
		})
	}
}
