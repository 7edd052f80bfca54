package model

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// The usual config formats, each with the settings the offline model
// must find in it (name=value), and nothing else.
var settingFormats = []struct {
	path, content string
	want          []string
}{
	{"params.txt", "# comment = 3\nrate = 0.5\nwidth=8\nname = \"tiny\"\n", []string{"rate=0.5", "width=8"}},
	{"config.json", "{\n  \"lr\": 0.001,\n  \"layers\": 4,\n  \"name\": \"x\",\n  \"opt\": {\"beta\": 0.9}\n}\n", []string{"lr=0.001", "layers=4", "beta=0.9"}},
	{"config.yaml", "model:\n  hidden: 64  # width\n  act: relu\ntrain:\n  lr: 3e-4\n  - steps: 100\n", []string{"hidden=64", "lr=3e-4", "steps=100"}},
	{"config.toml", "[optim]\nlearning_rate = 0.01\nweight_decay = 0\n\"warmup\" = 10\n", []string{"learning_rate=0.01", "weight_decay=0", "warmup=10"}},
	{"train.py", "LR = 1e-3\nBATCH_SIZE = 32\nclass C:\n    dropout: float = 0.1\nfor i in range(3):\n    x = 2 * n\nopt = Adam(lr=0.01, eps=1e-8)\n", []string{"LR=1e-3", "BATCH_SIZE=32", "dropout=0.1", "lr=0.01", "eps=1e-8"}},
	{"train.go", "package main\n\nconst (\n\tdefaultLR = 0.03 // rate\n\tdefaultL2 = 0.0\n)\n\nconst maxSteps = 100\n\nvar scale float64 = 1.5\n\nfunc f() {\n\tsum := 0.0\n\tbest = 3\n\tfor i := 0; i < 3; i++ {\n\t}\n\th := Hyper{Width: 16, Name: \"a\", Depth: 2}\n\tif n == 3 {\n\t}\n\t_ = h\n}\n",
		[]string{"defaultLR=0.03", "defaultL2=0.0", "maxSteps=100", "scale=1.5", "Width=16", "Depth=2"}},
	{"run.sh", "rate=0.5\nexport WIDTH=8\n[ -n \"$X\" ] && . \"$X\"\n", []string{"rate=0.5", "WIDTH=8"}},
}

func TestSettingsInEveryFormat(t *testing.T) {
	for _, f := range settingFormats {
		src := &payload.SourceContext{Files: []payload.SourceFile{{Path: f.path, Content: f.content}}}
		var got []string
		for _, s := range settingsOf(src) {
			got = append(got, s.name+"="+s.value)
			line := strings.Split(f.content, "\n")[s.line]
			if line[s.lo:s.hi] != s.value {
				t.Errorf("%s: %s: the span %d:%d of %q is not its value", f.path, s.name, s.lo, s.hi, line)
			}
		}
		if !slices.Equal(got, f.want) {
			t.Errorf("%s: settings %v, want %v", f.path, got, f.want)
		}
	}
	// A file that was cut is not patched.
	if s := settingsOf(&payload.SourceContext{Files: []payload.SourceFile{{Path: "a.txt", Content: "rate = 1\n", Truncated: true}}}); len(s) != 0 {
		t.Errorf("settings of a truncated file: %v", s)
	}
}

func TestMechanismOf(t *testing.T) {
	for name, want := range map[string]string{
		"defaultLR": "optimizer", "learning_rate": "optimizer", "defaultEpochs": "schedule", "max_steps": "schedule",
		"defaultHidden": "architecture", "n_layers": "architecture", "defaultInitScale": "initialisation",
		"defaultL2": "regularisation", "weight_decay": "regularisation", "dropout": "regularisation",
		"defaultBatch": "optimizer", "temperature": "tuning",
	} {
		if got := mechanismOf(name); got != want {
			t.Errorf("mechanismOf(%q) = %s, want %s", name, got, want)
		}
	}
}

// sourceReq is a builder's request in source mode for the idea with
// edits, over the files.
func sourceReq(text string, edits map[string]string, files ...payload.SourceFile) *payload.ImplementRequest {
	return &payload.ImplementRequest{Task: "t", Repair: 1, Proposal: plugins.Proposal{ID: "p", Text: text, Edits: edits},
		Source: &payload.SourceContext{Commit: strings.Repeat("a", 40), Files: files}}
}

// The builder edits what the idea names, to the value it gives, in every
// format: a setting whose name holds the idea's (l2 is defaultL2), and
// an idea naming nothing findable is infeasible with a reason that says
// so, never a patch of something else.
func TestImplementEditsWhatTheIdeaNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	goFile := payload.SourceFile{Path: "train.go", Content: settingFormats[5].content}
	for _, c := range []struct {
		text        string
		edits       map[string]string
		file        payload.SourceFile
		minus, plus string
	}{
		{"I propose l2 = 0.001, a change to the regularisation.", nil, goFile, "\tdefaultL2 = 0.0", "\tdefaultL2 = 0.001"},
		{"", map[string]string{"l2": "0.01"}, goFile, "\tdefaultL2 = 0.0", "\tdefaultL2 = 0.01"},
		{"Change lr to 0.3 to improve the optimizer.", nil, goFile, "\tdefaultLR = 0.03 // rate", "\tdefaultLR = 0.3 // rate"},
		{"set width to 32", nil, goFile, "\th := Hyper{Width: 16, Name: \"a\", Depth: 2}", "\th := Hyper{Width: 32, Name: \"a\", Depth: 2}"},
		{"lr: 0.0005", nil, payload.SourceFile{Path: "config.json", Content: settingFormats[1].content}, "  \"lr\": 0.001,", "  \"lr\": 0.0005,"},
		{"hidden = 128", nil, payload.SourceFile{Path: "config.yaml", Content: settingFormats[2].content}, "  hidden: 64  # width", "  hidden: 128  # width"},
		{"Try setting weight_decay to 0.1", nil, payload.SourceFile{Path: "config.toml", Content: settingFormats[3].content}, "weight_decay = 0", "weight_decay = 0.1"},
		{"batch_size = 64", nil, payload.SourceFile{Path: "train.py", Content: settingFormats[4].content}, "BATCH_SIZE = 32", "BATCH_SIZE = 64"},
		{"a smaller learning rate", nil, payload.SourceFile{Path: "config.toml", Content: settingFormats[3].content}, "learning_rate = 0.01", "learning_rate = 0.005"},
	} {
		resp := Implement(sourceReq(c.text, c.edits, c.file), 1)
		if resp.Infeasible {
			t.Errorf("%q: infeasible: %s", c.text, resp.Reason)
			continue
		}
		if !strings.Contains(resp.Patch, "\n-"+c.minus+"\n") || !strings.Contains(resp.Patch, "\n+"+c.plus+"\n") || strings.Count(resp.Patch, "\n+") != 2 {
			t.Errorf("%q: want -%q +%q, the patch is\n%s", c.text, c.minus, c.plus, resp.Patch)
		}
		applyPatch(t, c.file, resp.Patch)
	}
	for _, c := range []struct{ text, reason string }{
		{"I propose momentum = 0.9", "no numeric setting of the editable files is named like momentum"},
		{"use a better optimizer", "the idea names no numeric setting"},
		{"defaultLR = 0.03", "the idea changes nothing: defaultLR is 0.03 in train.go"},
	} {
		resp := Implement(sourceReq(c.text, nil, goFile), 1)
		if !resp.Infeasible || !strings.Contains(resp.Reason, c.reason) || resp.Patch != "" {
			t.Errorf("%q: %+v, want infeasible: %s", c.text, resp, c.reason)
		}
	}
	if resp := Implement(sourceReq("", map[string]string{"defaultLR": "cosine"}, goFile), 1); !resp.Infeasible || !strings.Contains(resp.Reason, "not a number") {
		t.Errorf("a non-numeric value: %+v", resp)
	}
}

// applyPatch applies patch to f in a fresh directory with git.
func applyPatch(t *testing.T, f payload.SourceFile, patch string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, f.Path), []byte(f.Content), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", "--unsafe-paths", "--directory=", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the patch of %s does not apply: %v\n%s\n%s", f.Path, err, out, patch)
	}
}

// In source mode the proposer's ideas come from the program it is shown:
// each names a numeric setting found there and its new value, with a
// mechanism read off the name, and the builder, given the idea, patches
// exactly that setting to that value; a JSON config alone gets
// candidates too.
func TestProposeFromTheProgram(t *testing.T) {
	for _, f := range []payload.SourceFile{{Path: "train.go", Content: settingFormats[5].content}, {Path: "config.json", Content: settingFormats[1].content}} {
		src := &payload.SourceContext{Commit: strings.Repeat("b", 40), Editable: []string{f.Path}, Files: []payload.SourceFile{f}}
		req := &payload.ProposeRequest{Task: "t", State: "s", N: 24, Source: src}
		pol, _ := LoadPolicy(nil)
		resp, err := pol.Propose(req, 1, 7)
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, p := range resp.Proposals {
			if len(p.Edits) != 1 {
				t.Fatalf("%s: %+v: want one edit", f.Path, p)
			}
			for k, v := range p.Edits {
				names[k] = true
				if !strings.Contains(p.Text, k) || !strings.Contains(p.Text, v) || p.Mechanism != mechanismOf(k) {
					t.Errorf("%s: %+v: the text must name the setting and its value, the mechanism be %s", f.Path, p, mechanismOf(k))
				}
				impl := Implement(&payload.ImplementRequest{Task: "t", Repair: 1, Proposal: p, Source: src}, 3)
				if impl.Infeasible || !strings.Contains(impl.Patch, v) {
					t.Errorf("%s: the builder did not make %s = %s: %+v", f.Path, k, v, impl)
				}
				sum := Summarize(&payload.SummarizeRequest{Task: "t", Proposal: impl.Proposal}, 1).Summary
				if !strings.Contains(sum, k+" in "+f.Path+" from ") || !strings.Contains(sum, " to "+v) {
					t.Errorf("%s: the summary %q does not say %s changed to %s", f.Path, sum, k, v)
				}
			}
		}
		if len(names) < 3 {
			t.Errorf("%s: 24 ideas named only %v", f.Path, names)
		}
	}
	_, err := (&Policy{Weights: map[string]float64{}}).Propose(&payload.ProposeRequest{N: 1, Source: &payload.SourceContext{Files: []payload.SourceFile{{Path: "a.md", Content: "words\n"}}}}, 1, 1)
	if err == nil || !strings.Contains(err.Error(), "no numeric setting") {
		t.Errorf("a program with no setting: %v", err)
	}
}

// The summarizer describes the patch, not the idea: an idea that claims
// one change and a patch that makes another is summarized as the patch.
func TestSummarizeReadsThePatch(t *testing.T) {
	patch := "diff --git a/train.go b/train.go\n--- a/train.go\n+++ b/train.go\n@@ -30,3 +30,4 @@\n const (\n-\tdefaultBatch = 32\n+\tdefaultBatch = 26\n+\t// a note\n \tdefaultHidden = 4\n"
	p := plugins.Proposal{ID: "p", Text: "I propose l2 = 0.001", Mechanism: "regularisation", Edits: map[string]string{"l2": "0.001"}, Patch: patch}
	s := Summarize(&payload.SummarizeRequest{Proposal: p}, 2).Summary
	if !strings.Contains(s, "defaultBatch in train.go from 32 to 26") || !strings.Contains(s, "1 other line(s) of train.go") || !strings.Contains(s, "Mechanism: optimizer.") || strings.Contains(s, "l2") {
		t.Errorf("summary %q", s)
	}
}

// FuzzSettings: any file reads without a panic, each setting's span is
// its value, and a patch setting it to another number changes only it.
func FuzzSettings(f *testing.F) {
	for _, sf := range settingFormats {
		f.Add(sf.path, sf.content)
	}
	f.Fuzz(func(t *testing.T, path, content string) {
		if len(content) > 1<<14 {
			return
		}
		src := &payload.SourceContext{Files: []payload.SourceFile{{Path: path, Content: content}}}
		sites := settingsOf(src)
		lines := strings.Split(content, "\n")
		for _, s := range sites {
			if lines[s.line][s.lo:s.hi] != s.value {
				t.Fatalf("%s: span %d:%d of line %q is not %q", s.name, s.lo, s.hi, lines[s.line], s.value)
			}
		}
		if len(sites) == 0 {
			return
		}
		s := sites[0]
		resp := Implement(sourceReq("", map[string]string{s.name: "12345"}, src.Files[0]), 1)
		if resp.Infeasible {
			if !strings.Contains(resp.Reason, "changes nothing") {
				t.Fatalf("setting %s found but infeasible: %s", s.name, resp.Reason)
			}
			return
		}
		sum := Summarize(&payload.SummarizeRequest{Proposal: resp.Proposal}, 1).Summary
		if !strings.Contains(sum, fmt.Sprintf("to %s", "12345")) && !strings.Contains(sum, "other line") {
			t.Fatalf("summary %q of a patch to 12345", sum)
		}
	})
}
