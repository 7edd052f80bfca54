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

// compileStatic writes the pairs (none when pairs is "") and the spec to
// a fresh directory, loads the spec from disk and compiles it. The
// diagnostics are the loader's and the compiler's.
func compileStatic(t *testing.T, body, pairs string) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	return compileStaticIn(t, t.TempDir(), body, pairs)
}

func compileStaticIn(t *testing.T, dir, body, pairs string) (*plan.Plan, diag.Diagnostics) {
	t.Helper()
	if pairs != "" {
		withSource(t, dir, "pairs.jsonl", pairs)
	}
	s, _, ds := load.Load(withSource(t, dir, "s.hcl", staticSpec(body)), load.Options{})
	if ds.HasErrors() {
		return nil, ds
	}
	p, cds := Compile(s, Options{})
	return p, append(ds, cds...)
}

// TestCriticEvalLowers: the phase judges the first limit pairs of its
// split with each critic, limit x votes calls of the critic's role, and
// states its data as the spec wrote it, its critics and the default
// thresholds; it prices from the spec alone, so a spec whose pairs file
// does not exist yet compiles to the same plan, with a warning.
func TestCriticEvalLowers(t *testing.T) {
	body := `  data = "pairs.jsonl"
  split = "holdout"
  limit = 2
  k = [1, 2]`
	p, ds := compileStatic(t, body, pairLines)
	if ds.HasErrors() || len(ds) != 0 {
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
		ce.Data != "pairs.jsonl" || filepath.Base(ce.Source.Filename) != "s.hcl" {
		t.Errorf("critic_eval %+v", ce)
	}
	// No pairs file yet: the same plan, and a warning at data.
	dir := t.TempDir()
	q, ds := compileStaticIn(t, dir, body, "")
	if ds.HasErrors() || q == nil {
		t.Fatal(ds.Format(0))
	}
	if out := ds.Format(0); !strings.Contains(out, "warning[W_PAIRS_MISSING]") || !strings.Contains(out, "s.hcl:") || !strings.Contains(out, "does not exist") {
		t.Errorf("a missing pairs file: want a positioned W_PAIRS_MISSING, got:\n%s", out)
	}
	if q.Variants[0].Phases[0].Calls.LLM["critic"] != plan.Exact(8) || q.Variants[0].Phases[0].CriticEval.Examples != 2 {
		t.Errorf("without its file the phase prices %+v", q.Variants[0].Phases[0].Calls.LLM)
	}
	// critics orders.
	p, ds = compileStatic(t, `  data = "pairs.jsonl"
  limit = 3
  critics = ["screen", "free"]`, pairLines)
	if ds.HasErrors() {
		t.Fatal(ds.Format(0))
	}
	ph = p.Variants[0].Phases[0]
	if ph.CriticEval.Examples != 3 || ph.Calls.LLM["free"] != plan.Exact(6) || ph.Calls.LLM["critic"] != plan.Exact(12) || ph.CriticEval.Critics[0] != "screen" {
		t.Errorf("limit 3, critics screen and free: %+v, calls %+v", ph.CriticEval, ph.Calls.LLM)
	}
}

// TestCriticEvalRefusals: each fault is refused with its code, at the
// field; the file's faults when it exists, as the phase would refuse it.
func TestCriticEvalRefusals(t *testing.T) {
	const d = "  data = \"pairs.jsonl\"\n  limit = 1\n"
	for _, c := range []struct {
		body, pairs, code, says string
	}{
		{`  split = "holdout"`, pairLines, CodeMissing, "data is missing"},
		{`  data = "pairs.jsonl"`, pairLines, CodeMissing, `critic_eval "bench": limit is missing`},
		{"  data = \"pairs.jsonl\"\n  limit = 0", pairLines, CodeRange, "limit must be at least 1"},
		{d, "{\"label3\":\"better\"}\n", "E_CRITIC_EVAL_DATA", "line 1: label3"},
		{"  data = \"pairs.jsonl\"\n  split = \"holdout\"\n  limit = 3", pairLines, "E_CRITIC_EVAL_DATA", "holds 2 pairs of split holdout, and limit judges 3"},
		{"  data = \"pairs.jsonl\"\n  split = \"train\"\n  limit = 2", pairLines, "E_CRITIC_EVAL_DATA", "holds 1 pairs of split train"},
		{d + `  critics = ["nope"]`, pairLines, CodeUnknownRef, `no critic "nope"`},
		{d + "  k = [3]", pairLines, CodeRange, `critic "free" votes 2 times`},
		{d + "  thresholds = [1.5]", pairLines, CodeRange, "outside [0, 1]"},
		{"  data = \"pairs.jsonl\"\n  limit = 4000000", "", CodeTooLarge, "critic calls; one evaluation makes at most"},
	} {
		_, ds := compileStatic(t, c.body, c.pairs)
		out := ds.Format(0)
		if !ds.HasErrors() || !strings.Contains(out, c.code) || !strings.Contains(out, c.says) || !strings.Contains(out, "s.hcl:") {
			t.Errorf("%q: want %s %q at a position, got:\n%s", c.body, c.code, c.says, out)
		}
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
	d := "  data = \"pairs.jsonl\"\n  limit = 1\n"
	specialFields["critic_eval.*.data"] = func(t *testing.T) {
		dir := t.TempDir()
		withSource(t, dir, "other.jsonl", pairLines)
		pa, ds := compileStaticIn(t, dir, d, pairLines)
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		pb, ds := compileStaticIn(t, dir, strings.Replace(d, "pairs.jsonl", "other.jsonl", 1), pairLines)
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		if pa.Hash == pb.Hash {
			t.Error("naming another pairs file left the plan hash as it was")
		}
		// The plan holds the path, not the content: a file the user
		// supplies later leaves the plan as it was priced.
		pc, ds := compileStaticIn(t, dir, d, strings.Replace(pairLines, `"label3":"tie"`, `"label3":"lose"`, 1))
		if ds.HasErrors() {
			t.Fatal(ds.Format(0))
		}
		if pc.Hash != pa.Hash {
			t.Error("the plan hash depends on the pairs file's content")
		}
	}
	specialFields["critic_eval.*.critics"] = proveCriticEval(d+`  critics = ["free", "screen"]`, d+`  critics = ["screen", "free"]`)
	specialFields["critic_eval.*.split"] = proveCriticEval(d, d+`  split = "holdout"`)
	specialFields["critic_eval.*.limit"] = proveCriticEval(d, "  data = \"pairs.jsonl\"\n  limit = 2\n")
	specialFields["critic_eval.*.k"] = proveCriticEval(d, d+`  k = [1]`)
	specialFields["critic_eval.*.thresholds"] = proveCriticEval(d, d+`  thresholds = [0.3]`)
}
