package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pairsSpec is a spec whose critic training (its critic labelling in
// labels) reads the train pairs of pairs.jsonl, 2 for SFT, and whose
// critic_eval judges 1 holdout pair of it.
func pairsSpec(labels string) string {
	return `name = "p"
critic "screen" {
  labels = "` + labels + `"
}
critic_training "c" {
  critic   = critic.screen
  pairs    = "pairs.jsonl"
  split    = "train"
  examples = 2
  sft {}
}
critic_eval "bench" {
  data  = "pairs.jsonl"
  split = "holdout"
  limit = 1
}
`
}

const (
	trainPair5 = `{"label3":"improve","label5":"SmallWin","split":"train"}` + "\n"
	trainPair3 = `{"label3":"lose","split":"train"}` + "\n"
	holdPair   = `{"label3":"tie","split":"holdout"}` + "\n"
)

// TestPairFilesChecked: validate reads a pairs file that exists as the
// phase will, refusing a malformed one or one short of what the block
// judges or trains on at the field, and only warns of one that does not
// exist yet, as the phase reads it when it starts.
func TestPairFilesChecked(t *testing.T) {
	for _, c := range []struct {
		name, labels, pairs string // pairs "-": no file
		want                []string
		errors              bool
	}{
		{"missing", "3way", "-", []string{`s.hcl:7:14: warning[W_PAIRS_MISSING]: critic_training "c": pairs file pairs.jsonl does not exist`,
			`s.hcl:13:11: warning[W_PAIRS_MISSING]: critic_eval "bench": pairs file pairs.jsonl does not exist`}, false},
		{"enough", "3way", trainPair5 + trainPair3 + holdPair, nil, false},
		{"malformed", "3way", `{"label3":"better"}` + "\n", []string{`s.hcl:7:14: error[E_CRITIC_PAIRS]: critic_training "c": pairs file pairs.jsonl: line 1: label3`,
			`s.hcl:13:11: error[E_CRITIC_EVAL_DATA]: critic_eval "bench": pairs file pairs.jsonl: line 1: label3`}, true},
		{"short of 5-way labels", "5way", trainPair5 + trainPair3 + holdPair, []string{`s.hcl:9:14: error[E_CRITIC_PAIRS]: critic_training "c": pairs.jsonl holds 1 pairs of split train labelled in 5way, and the training needs at least 2`}, true},
		{"short of holdout", "3way", trainPair5 + trainPair3, []string{`s.hcl:15:11: error[E_CRITIC_EVAL_DATA]: critic_eval "bench": pairs.jsonl holds 0 pairs of split holdout, and limit judges 1`}, true},
	} {
		dir := t.TempDir()
		if c.pairs != "-" {
			if err := os.WriteFile(filepath.Join(dir, "pairs.jsonl"), []byte(c.pairs), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, "s.hcl")
		if err := os.WriteFile(path, []byte(pairsSpec(c.labels)), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, ds := Load(path, Options{})
		out := ds.Format(0)
		if ds.HasErrors() != c.errors || (c.want == nil && len(ds) != 0) {
			t.Errorf("%s: errors %v, want %v:\n%s", c.name, ds.HasErrors(), c.errors, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: want %q in:\n%s", c.name, w, out)
			}
		}
	}
}

// TestBalancedPoolChecked: validate refuses, at balance, a class the GRPO
// pool (the split's pairs after the SFT's examples) has no pair of, as the
// run would before its first phase.
func TestBalancedPoolChecked(t *testing.T) {
	spec := strings.Replace(pairsSpec("3way"), "  sft {}\n", "  sft {}\n  grpo {\n    steps          = 1\n    pairs_per_step = 2\n    balance        = [\"improve\", \"lose\"]\n  }\n", 1)
	for _, c := range []struct {
		name, pairs string
		want        string
	}{
		{"both classes", trainPair3 + trainPair3 + trainPair5 + trainPair3 + holdPair, ""},
		// The only improve pair is one of the SFT's 2 examples.
		{"improve only in the SFT pool", trainPair5 + trainPair3 + trainPair3 + holdPair,
			`s.hcl:14:22: error[E_CRITIC_PAIRS]: critic_training "c": grpo.balance draws class "improve", and the GRPO pool (1 pairs of pairs.jsonl after the SFT's) has none`},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "pairs.jsonl"), []byte(c.pairs), 0o644); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "s.hcl")
		if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, ds := Load(path, Options{})
		out := ds.Format(0)
		if c.want == "" && len(ds) != 0 || c.want != "" && !strings.Contains(out, c.want) {
			t.Errorf("%s: want %q, got:\n%s", c.name, c.want, out)
		}
	}
}

// TestPairFilesFiltered: with min_improving_children, validate counts the
// pairs whose parent has that many improving children in the file, as
// the phase does, and says so at the field it refuses.
func TestPairFilesFiltered(t *testing.T) {
	dir := t.TempDir()
	// Two train children of one task's reference configuration, one
	// improving, and a child of another task's, which does not.
	pairs := trainPair5 + trainPair3 + `{"task":"h","label3":"tie","split":"holdout"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "pairs.jsonl"), []byte(pairs), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		min  string
		want []string
	}{
		{"1", []string{`critic_eval "bench": pairs.jsonl holds 0 pairs of split holdout whose parent has at least 1 improving children, and limit judges 1`}},
		{"2", []string{`critic_training "c": pairs.jsonl holds 0 pairs of split train labelled in 3way whose parent has at least 2 improving children, and the training needs at least 2`,
			`critic_eval "bench": pairs.jsonl holds 0 pairs of split holdout whose parent has at least 2 improving children`}},
	} {
		s := strings.Replace(pairsSpec("3way"), `  split    = "train"`, `  split    = "train"
  min_improving_children = `+c.min, 1)
		s = strings.Replace(s, `  limit = 1`, `  limit = 1
  min_improving_children = `+c.min, 1)
		path := filepath.Join(dir, "s.hcl")
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, ds := Load(path, Options{})
		out := ds.Format(0)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("min %s: want %q in:\n%s", c.min, w, out)
			}
		}
		if c.min == "1" && strings.Contains(out, `critic_training "c"`) {
			t.Errorf("min 1 keeps the train parent's two pairs:\n%s", out)
		}
	}
}
