package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

// judgeWith is base.hcl with block added to the judge (critic) role.
func judgeWith(t *testing.T, block string) string {
	src, _ := mutate(t, readBase(t), "role \"judge\" {\n  kind = \"critic\"\n", "role \"judge\" {\n  kind = \"critic\"\n"+block+"\n")
	return src
}

// promptPlan loads src from dir as a spec file (so prompt files beside it
// are read) and compiles it.
func promptPlan(t *testing.T, dir, name, src string) (string, diag.Diagnostics) {
	t.Helper()
	return hashOfFile(t, withSource(t, dir, name, src))
}

// proveChanges compiles base.hcl with two judge blocks and wants two
// plan hashes.
func proveChanges(a, b string) func(t *testing.T) {
	return func(t *testing.T) {
		dir := t.TempDir()
		h1, ds := promptPlan(t, dir, "a.hcl", judgeWith(t, a))
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		h2, ds := promptPlan(t, dir, "b.hcl", judgeWith(t, b))
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		if h1 == h2 {
			t.Errorf("%q and %q compile to the same plan hash", a, b)
		}
	}
}

// proveFileChanges: a prompt file's text is in the plan, so changing the
// file changes the plan hash.
func proveFileChanges(attr string) func(t *testing.T) {
	return func(t *testing.T) {
		dir := t.TempDir()
		src := judgeWith(t, "  prompt {\n    "+attr+" = \"prompts/judge.tmpl\"\n  }")
		mkdir(t, filepath.Join(dir, "prompts"))
		withSource(t, dir, "prompts/judge.tmpl", "Judge {{.Child.Text}} against {{.Parent.Text}}.\n")
		h1, ds := promptPlan(t, dir, "s.hcl", src)
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		withSource(t, dir, "prompts/judge.tmpl", "Judge {{.Child.Text}} against {{.Parent.Text}}!\n")
		h2, ds := promptPlan(t, dir, "s.hcl", src)
		if ds != nil {
			t.Fatal(ds.Format(0))
		}
		if h1 == h2 {
			t.Errorf("changing the file %s names left the plan hash as it was", attr)
		}
	}
}

func init() {
	specialFields["role.*.prompt.system"] = proveChanges(`  prompt { system = "Judge." }`, `  prompt { system = "Judge {{.Child.Text}}." }`)
	specialFields["role.*.prompt.user"] = proveChanges(`  prompt { user = "{{.Input}}" }`, `  prompt { user = "{{.Child.Text}}" }`)
	specialFields["role.*.prompt.system_file"] = proveFileChanges("system_file")
	specialFields["role.*.prompt.user_file"] = proveFileChanges("user_file")
	specialFields["role.*.prompt.criteria"] = proveChanges(`  prompt { criteria = "Soundness." }`, `  prompt { criteria = "Soundness, then cost." }`)
	specialFields["role.*.prompt.criteria_file"] = proveFileChanges("criteria_file")
	specialFields["role.*.answer.format"] = proveChanges(`  answer { reasks = 1 }`, "  answer {\n    format = \"pattern\"\n    pattern = \"verdict: (\\\\w+)\"\n    reasks = 1\n  }")
	specialFields["role.*.answer.pattern"] = proveChanges("  answer {\n    format = \"pattern\"\n    pattern = \"verdict: (\\\\w+)\"\n  }", "  answer {\n    format = \"pattern\"\n    pattern = \"Verdict: (\\\\w+)\"\n  }")
	specialFields["role.*.answer.reasks"] = proveChanges(`  answer { reasks = 1 }`, `  answer { reasks = 2 }`)
}

func TestPromptRefused(t *testing.T) {
	dir := t.TempDir()
	mkdir(t, filepath.Join(dir, "prompts"))
	withSource(t, dir, "prompts/bad.tmpl", "Judge the child.\nLabels: {{.Labels}}, knobs: {{range .Knobs}}{{.Name}}{{end}}\n")
	cases := []struct {
		block, code, at, msg string
	}{
		{"  prompt {\n    user_file = \"prompts/bad.tmpl\"\n  }", CodePrompt, "prompts/bad.tmpl:2:37", ".Knobs: the role's variables has no Knobs"},
		{"  prompt {\n    user_file = \"prompts/none.tmpl\"\n  }", "E_PROMPT_FILE", "s.hcl:99:17", "cannot read prompt file prompts/none.tmpl"},
		{"  prompt {\n    system = \"{{.Child.Txt}}\"\n  }", CodePrompt, "s.hcl:99:23", ".Child.Txt: a Proposal has no Txt"},
		{"  prompt {\n    system = \"{{.Child\"\n  }", CodePrompt, "s.hcl:99:", "unclosed action"},
		{"  prompt {\n    system = <<EOT\nJudge.\nChild: {{.Chld}}\nEOT\n  }", CodePrompt, "s.hcl:101:10", ".Chld: the role's variables has no Chld"},
		{"  prompt {\n    system = \"x\"\n    system_file = \"prompts/bad.tmpl\"\n  }", CodeConflict, "s.hcl:100:", "both system and system_file"},
		{"  answer {\n    format = \"pattern\"\n    pattern = \"verdict: (?<=x)\"\n  }", CodeAnswerPattern, "s.hcl:100:", "does not compile"},
		{"  answer {\n    format = \"pattern\"\n    pattern = \"verdict: \\\\w+\"\n  }", CodeAnswerPattern, "s.hcl:100:", "no capture group"},
		{"  answer {\n    format = \"pattern\"\n  }", CodeMissing, "s.hcl:98:", "needs a pattern"},
		{"  answer {\n    pattern = \"(x)\"\n  }", CodeNotApplicable, "s.hcl:99:", "format is not \"pattern\""},
		{"  answer {\n    reasks = 99\n  }", CodeRange, "s.hcl:99:", "reasks must lie in [0, 8]"},
	}
	for _, c := range cases {
		_, ds := promptPlan(t, dir, "s.hcl", judgeWith(t, c.block))
		var hit *diag.Diagnostic
		for _, d := range ds {
			if d.Code == c.code {
				hit = d
			}
		}
		if hit == nil {
			t.Errorf("%s: no %s in:\n%s", c.block, c.code, ds.Format(0))
			continue
		}
		at := hit.Range.String()
		if !strings.Contains(at, c.at) || !strings.Contains(hit.Summary, c.msg) {
			t.Errorf("%s: got %s: %s, want %s: ...%s", c.block, at, hit.Summary, c.at, c.msg)
		}
	}
}

// Criteria are a critic's.
func TestCriteriaCriticOnly(t *testing.T) {
	src, _ := mutate(t, readBase(t), "role \"builder\" {\n", "role \"builder\" {\n  prompt {\n    criteria = \"x\"\n  }\n")
	_, ds := promptPlan(t, t.TempDir(), "s.hcl", src)
	if !strings.Contains(ds.Format(0), CodeNotApplicable) || !strings.Contains(ds.Format(0), "criteria are a critic's") {
		t.Errorf("a builder's criteria were not refused:\n%s", ds.Format(0))
	}
}

// The pattern answer is for critics only.
func TestAnswerPatternCriticOnly(t *testing.T) {
	src, _ := mutate(t, readBase(t), "role \"builder\" {\n", "role \"builder\" {\n  answer {\n    format = \"pattern\"\n    pattern = \"(x)\"\n  }\n")
	_, ds := promptPlan(t, t.TempDir(), "s.hcl", src)
	if !strings.Contains(ds.Format(0), CodeNotApplicable) {
		t.Errorf("a builder's pattern answer was not refused:\n%s", ds.Format(0))
	}
}

// A proposer's free-text formats are a proposer's, and need a builder
// wherever the proposer is sampled: a free-text idea carries no edits.
func TestAnswerIdeasFormats(t *testing.T) {
	critic := judgeWith(t, "  answer {\n    format = \"list\"\n  }")
	if _, ds := promptPlan(t, t.TempDir(), "s.hcl", critic); !strings.Contains(ds.Format(0), CodeNotApplicable) || !strings.Contains(ds.Format(0), `answer format "list" reads a proposer's ideas`) {
		t.Errorf("a critic's list answer was not refused:\n%s", ds.Format(0))
	}
	listed, _ := mutate(t, readBase(t), "role \"proposer\" {\n", "role \"proposer\" {\n  answer {\n    format = \"list\"\n  }\n")
	if _, ds := promptPlan(t, t.TempDir(), "s.hcl", listed); ds.HasErrors() {
		t.Fatalf("a listing proposer with a builder was refused:\n%s", ds.Format(0))
	}
	noBuilder, _ := mutate(t, listed, "role \"builder\" {\n", "role \"builder\" {\n  kind = \"summarizer\"\n")
	_, ds := promptPlan(t, t.TempDir(), "s.hcl", noBuilder)
	got := ds.Format(0)
	if !strings.Contains(got, CodeNotApplicable) || !strings.Contains(got, `samples it without a builder`) || !strings.Contains(got, "s.hcl:62:") {
		t.Errorf("a listing proposer without a builder was not refused at its format:\n%s", got)
	}
}

// The plan carries the resolved templates: Assay's defaults where the spec
// has none.
func TestPromptInPlan(t *testing.T) {
	dir := t.TempDir()
	s, _, ds := load.Load(withSource(t, dir, "s.hcl", judgeWith(t, `  prompt { system = "Judge {{.Child.Text}}." }`)), load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	p, ds := Compile(s, Options{})
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	for _, r := range p.Variants[0].Roles {
		if r.Prompt == nil {
			t.Fatalf("role %s has no prompt in the plan", r.Name)
		}
		switch r.Name {
		case "judge":
			if r.Prompt.System != "Judge {{.Child.Text}}." || r.Prompt.SystemFrom != "inline" || r.Prompt.UserFrom != "default v6" {
				t.Errorf("judge's prompt: %+v", r.Prompt)
			}
		default:
			if r.Prompt.SystemFrom != "default v6" || !strings.Contains(r.Prompt.System, "Reply with the JSON object only.") {
				t.Errorf("%s's prompt: %+v", r.Name, r.Prompt)
			}
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
