package compiler

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

// staticSpec is a spec of critic evaluations alone: two critics, screen
// (4 votes, role critic at $1/$2 per million tokens, 800 in and 40 out)
// and free (2 votes, role free), and a critic_eval with body.
func staticSpec(body string) string {
	role := func(name string) string {
		return fmt.Sprintf("role %q {\n  kind = \"critic\"\n  llm = plugin.offline\n  tokens {\n    in  = 800\n    out = 40\n  }\n  price {\n    in  = 1\n    out = 2\n  }\n}\n", name)
	}
	return "name = \"static\"\nseed = 1\nplugin \"offline\" {\n  kind = \"llm\"\n  source = \"builtin:offline\"\n}\n" +
		role("critic") + role("free") +
		"critic \"screen\" {\n  role = role.critic\n  votes = 4\n  labels = \"3way\"\n  tie = \"lose\"\n}\n" +
		"critic \"free\" {\n  role = role.free\n  votes = 2\n  labels = \"3way\"\n  tie = \"lose\"\n}\n" +
		"critic_eval \"bench\" {\n" + body + "\n}\nbudget {\n  usd = 1\n}\n"
}

// pairLines are three pairs: an improving one of train, a losing and a
// tied one of holdout.
const pairLines = `{"run":"x","plan":"p","plan_hash":"h","env":"tiny","task":"t1","candidate":"c1","run_key":"c1","minimize":true,"parent":{"commit":"","id":"base","metric":2},"child":{"commit":"","id":"a","text":"a","metric":1.5},"idea":"a","label3":"improve","split":"train"}
{"run":"x","plan":"p","plan_hash":"h","env":"tiny","task":"t2","candidate":"c2","run_key":"c2","minimize":true,"parent":{"commit":"","id":"base","metric":2},"child":{"commit":"","id":"b","text":"b","metric":2.5},"idea":"b","label3":"lose","split":"holdout"}
{"run":"x","plan":"p","plan_hash":"h","env":"tiny","task":"t2","candidate":"c3","run_key":"c3","minimize":true,"parent":{"commit":"","id":"base","metric":2},"child":{"commit":"","id":"c","text":"c","metric":2},"idea":"c","label3":"tie","split":"holdout"}
`

// compileStatic writes the pairs and the spec to a fresh directory, loads
// the spec from disk and compiles it.
func compileStatic(t *testing.T, body, pairs string) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	dir := t.TempDir()
	withSource(t, dir, "pairs.jsonl", pairs)
	s, _, ds := load.Load(withSource(t, dir, "s.hcl", staticSpec(body)), load.Options{})
	if ds.HasErrors() {
		return nil, ds
	}
	return Compile(s, Options{})
}

// TestCriticEvalLowers: the phase judges the pairs of its split with each
// critic, examples x votes calls of the critic's role, and states its
// data, digest, critics and the default thresholds.
func TestCriticEvalLowers(t *testing.T) {
	p, ds := compileStatic(t, `  data = "pairs.jsonl"
  split = "holdout"
  k = [1, 2]`, pairLines)
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	v := p.Variants[0]
	if len(v.Phases) != 1 {
		t.Fatalf("%d phases, want the critic_eval alone", len(v.Phases))
	}
	ph := v.Phases[0]
	ce := ph.CriticEval
	if ph.Name != "critic_eval.bench" || ph.Kind != plan.PhaseCriticEval || ce == nil {
		t.Fatalf("phase %+v", ph)
	}
	// Two holdout pairs: screen 2 x 4 votes, free 2 x 2.
	if got := ph.Calls.LLM["critic"]; got != plan.Exact(8) {
		t.Errorf("critic calls %+v, want 8", got)
	}
	if got := ph.Calls.LLM["free"]; got != plan.Exact(4) {
		t.Errorf("free calls %+v, want 4", got)
	}
	if ce.Examples != 2 || ce.Split != "holdout" || !slices.Equal(ce.Critics, []string{"free", "screen"}) ||
		!slices.Equal(ce.K, []int{1, 2}) || !slices.Equal(ce.Thresholds, []float64{0.1, 0.25, 0.5}) ||
		!strings.HasPrefix(ce.Digest, "sha256:") || filepath.Base(ce.Data) != "pairs.jsonl" {
		t.Errorf("critic_eval %+v", ce)
	}
	// limit keeps the first pairs of the split; critics orders.
	p, ds = compileStatic(t, `  data = "pairs.jsonl"
  limit = 2
  critics = ["screen", "free"]`, pairLines)
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	ph = p.Variants[0].Phases[0]
	if ph.CriticEval.Examples != 2 || ph.Calls.LLM["free"] != plan.Exact(4) || ph.Calls.LLM["critic"] != plan.Exact(8) || ph.CriticEval.Critics[0] != "screen" {
		t.Errorf("limit 2, critics screen and free: %+v, calls %+v", ph.CriticEval, ph.Calls.LLM)
	}
}

// TestCriticEvalRefusals: each fault is refused with its code, at the
// field.
func TestCriticEvalRefusals(t *testing.T) {
	for _, c := range []struct {
		body, pairs, code, says string
	}{
		{`  split = "holdout"`, pairLines, CodeMissing, "data is missing"},
		{`  data = "nope.jsonl"`, pairLines, "E_CRITIC_EVAL_DATA", "cannot read pairs file"},
		{`  data = "pairs.jsonl"`, "{\"label3\":\"better\"}\n", "E_CRITIC_EVAL_DATA", "line 1: label3"},
		{"  data = \"pairs.jsonl\"\n  critics = [\"nope\"]", pairLines, CodeUnknownRef, `no critic "nope"`},
		{"  data = \"pairs.jsonl\"\n  k = [3]", pairLines, CodeRange, `critic "free" votes 2 times`},
		{"  data = \"pairs.jsonl\"\n  thresholds = [1.5]", pairLines, CodeRange, "outside [0, 1]"},
		{"  data = \"pairs.jsonl\"\n  split = \"train\"\n  limit = -1", pairLines, CodeRange, "limit must be at least 0"},
		{"  data = \"pairs.jsonl\"\n  split = \"holdout\"", strings.SplitAfter(pairLines, "\n")[0], CodeRange, "no pairs of split holdout"},
	} {
		_, ds := compileStatic(t, c.body, c.pairs)
		out := ds.Format(0)
		if !strings.Contains(out, c.code) || !strings.Contains(out, c.says) || !strings.Contains(out, "s.hcl:") {
			t.Errorf("%q: want %s %q at a position, got:\n%s", c.body, c.code, c.says, out)
		}
	}
	// A spec not loaded from disk has not read its pairs file.
	s, _, ds := load.Load(withSource(t, t.TempDir(), "s.hcl", staticSpec(`  data = "p.jsonl"`)), load.Options{})
	if !ds.HasErrors() {
		t.Fatal("a missing pairs file loaded")
	}
	if _, ds = Compile(s, Options{}); !strings.Contains(ds.Format(0), "was not read") {
		t.Errorf("an unread pairs file compiled: %s", ds.Format(0))
	}
}

// proveCriticEval compiles the static spec with two bodies and wants two
// plan hashes.
func proveCriticEval(a, b string) func(t *testing.T) {
	return func(t *testing.T) {
		pa, ds := compileStatic(t, a, pairLines)
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		pb, ds := compileStatic(t, b, pairLines)
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		if pa.Hash == pb.Hash {
			t.Errorf("%q and %q compile to the same plan hash", a, b)
		}
	}
}

func init() {
	d := "  data = \"pairs.jsonl\"\n"
	specialFields["critic_eval.*.data"] = func(t *testing.T) {
		pa, ds := compileStatic(t, d, pairLines)
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		pb, ds := compileStatic(t, d, strings.Replace(pairLines, `"label3":"tie"`, `"label3":"lose"`, 1))
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		if pa.Hash == pb.Hash {
			t.Error("changing the pairs file left the plan hash as it was")
		}
	}
	specialFields["critic_eval.*.critics"] = proveCriticEval(d+`  critics = ["free", "screen"]`, d+`  critics = ["screen", "free"]`)
	specialFields["critic_eval.*.split"] = proveCriticEval(d, d+`  split = "holdout"`)
	specialFields["critic_eval.*.limit"] = proveCriticEval(d, d+`  limit = 1`)
	specialFields["critic_eval.*.k"] = proveCriticEval(d, d+`  k = [1]`)
	specialFields["critic_eval.*.thresholds"] = proveCriticEval(d, d+`  thresholds = [0.3]`)
}
