package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"time"

	"github.com/assay-lang/assay/base/stats"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins"
	command "github.com/assay-lang/assay/plugins/builtin/command/trainer"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	tinylm "github.com/assay-lang/assay/plugins/builtin/tinylm/model"
	"github.com/assay-lang/assay/runtime"
)

func main() {
	seeds := flag.Int("seeds", 3, "seeds per arm (seeds 1..N)")
	specs := flag.String("specs", "specs/laptop", "folder of the laptop-scale specs")
	out := flag.String("out", "docs/reproducing.md", "Markdown file whose generated section is rewritten")
	steps := flag.Int("train-steps", 0, "tinylm optimiser steps per real run (0: as the specs say); for quick checks only")
	only := flag.String("only", "", "run only the experiments whose title holds this text: their tables replace theirs in the generated section, the others stay as they were")
	flag.Parse()
	if err := reproduce(*specs, *out, *only, *seeds, *steps, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(1)
	}
}

// reproduce runs every experiment (those whose title holds only, when it
// is set) and rewrites the generated section of out with the tables.
func reproduce(specs, out, only string, seeds, trainSteps int, log io.Writer) error {
	if seeds < 1 {
		return fmt.Errorf("-seeds must be at least 1, got %d", seeds)
	}
	start := time.Now()
	dir, err := os.MkdirTemp("", "assay-reproduce-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var results []*experimentResult
	for _, e := range experiments {
		if !strings.Contains(e.Title, only) {
			continue
		}
		res, err := runExperiment(e, specs, dir, seeds, trainSteps, log)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Title, err)
		}
		results = append(results, res)
	}
	if only != "" {
		// The other tables stay as the last run of them wrote them.
		old, err := os.ReadFile(out)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if gen, ok := spliceTables(string(old), results, only, seeds, time.Since(start), cpuTime(), machine()); ok {
			return writeGenerated(out, gen)
		}
	}
	gen := render(results, seeds, time.Since(start), cpuTime(), machine())
	return writeGenerated(out, gen)
}

// An experiment is a set of arms run under the same seeds, with the
// figures to show for each.
type experiment struct {
	Title   string
	Paper   string // what the papers report, for the reader's comparison
	Arms    []arm
	Columns []column
	// Pairs, when set, collects each seed's labelled pairs, which every
	// arm's critic training and bench then read.
	Pairs *collection
}

// arm is one spec (and one variant of it; empty: every variant); Critic,
// for a spec's critic_eval, names the critic whose figures are the arm's.
type arm struct {
	Label   string
	Spec    string
	Variant string
	Critic  string
}

// column is one figure of a run.
type column struct {
	Key, Head string
}

// The papers' ablations at laptop scale. Figures are in gains over tau_e
// (the environment's scale, 0.2 bpb), as the evaluation reports them.
var experiments = []experiment{
	{
		Title: "Calibration: top-rated vs random vs none (frozen world model)",
		Paper: "seed 000, same 200 real runs: top-rated calibration Avg@4 17.06, random calibration 10.84, random records (no calibration) 14.76; a frozen world model's advantage cosine falls to -0.42 and rank accuracy to 0.37 by step 128, calibrated ones stay 0.50-0.71 / 0.61-0.69",
		Arms: []arm{
			{Label: "top-rated", Spec: "lm2lm-top-rated.hcl"},
			{Label: "random", Spec: "lm2lm-random.hcl"},
			{Label: "none (frozen)", Spec: "lm2lm-frozen.hcl"},
		},
		Columns: []column{{"avg", "Avg@4"}, {"best", "Best@4"}, {"beats_base", "beats Base"}, {"negative", "negative share"},
			{"base_avg", "Base Avg@4"}, {"icl_avg", "Base-ICL Avg@4"}, {"rwm_rank", "RWM rank acc."}, {"rwm_cos", "RWM adv. cosine"}, {"rwm_gap", "RWM pred. - real"}},
	},
	{
		Title: "Critic-screened vs verify-all GRPO at an equal real-run budget (48 training runs)",
		Paper: "seed 002, 10,000 verifications: verify-all about 40 steps, critic-in-loop about 110 (36.3% routed, 2.75x candidates per verification); domain average 19.57 verify-all vs 25.21 critic-in-loop (Qwen-3.5-9B), Base 18.75",
		Arms: []arm{
			{Label: "verify-all", Spec: "verify-all.hcl"},
			{Label: "critic-screened", Spec: "critic-grpo.hcl"},
			{Label: "critic-screened, audit 0.5", Spec: "critic-grpo-audit.hcl"},
		},
		Columns: []column{{"avg", "Avg@4"}, {"best", "Best@4"}, {"beats_base", "beats Base"}, {"base_avg", "Base Avg@4"},
			{"steps", "steps"}, {"candidates", "candidates rewarded"}, {"train_runs", "training runs"}, {"routed", "routed share"}, {"auroc", "critic AUROC"}, {"recall", "error recall"}},
	},
	{
		Title: "Critic-only rewards, k votes (8 steps, no real run in training)",
		Paper: "seed 002, appendix J.2: more votes help modestly and saturate past k = 16",
		Arms: []arm{
			{Label: "k = 1", Spec: "critic-only.hcl"},
			{Label: "k = 4", Spec: "critic-only-k.hcl", Variant: "votes=4"},
			{Label: "k = 8", Spec: "critic-only-k.hcl", Variant: "votes=8"},
			{Label: "k = 16", Spec: "critic-only-k.hcl", Variant: "votes=16"},
			{Label: "k = 32", Spec: "critic-only-k.hcl", Variant: "votes=32"},
		},
		Columns: []column{{"avg", "Avg@4"}, {"best", "Best@4"}, {"beats_base", "beats Base"}, {"base_avg", "Base Avg@4"}},
	},
	{
		Title: "Critic-only rewards, training steps (k = 16, no real run in training)",
		Paper: "seed 002, appendix J.2, figure 5: policy performance generally improves from 0 to 160 steps of critic-only GRPO (clearest on graph generation); step 0 is the base policy, here Base Avg@4",
		Arms: []arm{
			{Label: "2 steps", Spec: "critic-only-steps.hcl", Variant: "steps=2"},
			{Label: "4 steps", Spec: "critic-only-steps.hcl", Variant: "steps=4"},
			{Label: "8 steps", Spec: "critic-only-steps.hcl", Variant: "steps=8"},
			{Label: "16 steps", Spec: "critic-only-steps.hcl", Variant: "steps=16"},
		},
		Columns: []column{{"avg", "Avg@4"}, {"best", "Best@4"}, {"beats_base", "beats Base"}, {"base_avg", "Base Avg@4"}, {"steps", "steps"}},
	},
	{
		Title: "Static critic benchmark: the offline critic on 32 labelled pairs (ML-Idea-Critic-Bench in miniature)",
		Paper: "seed 002, 1.5K held-out pairs: Qwen-3.5-9B base Improve acc. 49.9, Dir-3 41.3, F1 58.3, 5-Ladder 22.4; after SFT+GRPO (soft rubric) 66.7, 60.7, 75.6, 41.5; Gemini-3.1-Pro Dir-3 46.6; at T = 0.25 about 70% of errors routed, about 30% of ideas",
		Arms: []arm{
			{Label: "3-way, 8 votes", Spec: "critic-static.hcl", Critic: "three"},
			{Label: "5-way, 8 votes", Spec: "critic-static.hcl", Critic: "ladder"},
		},
		Columns: criticColumns,
	},
	{
		Title: "Soft-rubric vs freestyle critic prompts (the same 32 pairs)",
		Paper: "seed 002, table 11 (Qwen-3.5-9B): after SFT, soft rubric Dir-3 55.6 vs freestyle 54.6; after SFT+GRPO 60.7 vs 40.3",
		Arms: []arm{
			{Label: "soft rubric", Spec: "critic-rubric.hcl", Critic: "rubric"},
			{Label: "freestyle", Spec: "critic-rubric.hcl", Critic: "free"},
		},
		Columns: criticColumns,
	},
	{
		Title: "Critic training: the untrained critic vs the trained one on 96 held-out pairs of a two-stage collection",
		Paper: "seed 002, 1.5K held-out pairs: Qwen-3.5-9B base Improve acc. 49.9, Dir-3 41.3, F1 58.3; after SFT+GRPO (soft rubric) 66.7, 60.7, 75.6; AUROC saturates past k = 16; its SFT pool, parents with fewer than 3 improving children dropped: 58.4% improve (BigWin 25.4, MediumWin 17.5, SmallWin 15.5)",
		Arms: []arm{
			{Label: "untrained", Spec: "critic-untrained.hcl", Critic: "screen"},
			{Label: "SFT + GRPO", Spec: "critic-train.hcl", Critic: "screen"},
		},
		Columns: []column{{"pool_kept_parents", "parents kept"}, {"pool_parents", "of parents"}, {"pool_kept", "pairs kept"}, {"pool_improve", "improve share kept"},
			{"ce_acc", "Improve acc., k 8"}, {"ce_dir3", "Dir-3, k 8"}, {"ce_f1", "F1, k 8"}, {"ce_auroc_k1", "AUROC, k 1"}, {"ce_auroc_k8", "AUROC, k 8"}},
		Pairs: &collection{Spec: "critic-pairs.hcl", Holdout: []string{"train-04"}, MinImproving: 3},
	},
	{
		Title: "OpenEvolve: no critic vs critic (48 verifications)",
		Paper: "seed 002, 30 verifications per task: domain average 38.77 with no screening, 41.51 with the 9B critic",
		Arms: []arm{
			{Label: "no critic", Spec: "openevolve.hcl"},
			{Label: "critic", Spec: "critic-evolve.hcl"},
		},
		Columns: []column{{"final_best", "final best gain"}, {"auroc", "critic AUROC"}, {"recall", "error recall"}},
	},
	{
		Title: "Test-time continual learning: a frozen vs a continually trained critic in OpenEvolve",
		Paper: "seed 002: T-GRPO every 2 rounds on 6 new pairs with 16 rollouts, SDFT every round on 3 new pairs, LoRA rank 32 (no frozen-vs-continual figure of the paper is quoted here)",
		Arms: []arm{
			{Label: "frozen", Spec: "critic-continual.hcl", Variant: "enabled=false", Critic: "screen"},
			{Label: "continual", Spec: "critic-continual.hcl", Variant: "enabled=true", Critic: "screen"},
		},
		Columns: []column{{"ce_dir3", "bench Dir-3 before the loop"}, {"ct_updates", "continual updates"}, {"ct_heldout", "held-out Dir-3 after the loop"},
			{"auroc", "critic AUROC in the loop"}, {"final_best", "final best gain"}, {"real_runs", "real runs"}},
	},
	{
		Title: "Code changes: verify-all vs critic-screened vs critic-only GRPO on the example suite",
		Paper: "none at this scale; the twins of the tables above on code changes (specs/laptop/code/): each candidate a patch of examples/suite's train.go, built, committed and trained for real on the CPU, each arm's evaluation the real runs of its own patches on the suite's 2 held-out tasks; gains over tau_e = 0.05",
		Arms: []arm{
			{Label: "verify-all", Spec: "code/verify-all.hcl"},
			{Label: "critic-screened", Spec: "code/critic-grpo.hcl"},
			{Label: "critic-only", Spec: "code/critic-only.hcl"},
		},
		Columns: []column{{"avg", "Avg@1"}, {"beats_base", "beats Base"}, {"base_avg", "Base Avg@1"}, {"steps", "steps"}, {"train_runs", "training runs"}, {"routed", "routed share"}, {"auroc", "critic AUROC"}},
	},
	{
		Title: "Code changes: LM2LM with top-rated calibration against Base and Base-ICL on the example suite",
		Paper: "none at this scale; the twin of the calibration table's top-rated arm on code changes (specs/laptop/code/lm2lm.hcl); gains over tau_e = 0.05",
		Arms: []arm{
			{Label: "top-rated", Spec: "code/lm2lm.hcl"},
		},
		Columns: []column{{"avg", "Avg@1"}, {"beats_base", "beats Base"}, {"base_avg", "Base Avg@1"}, {"icl_avg", "Base-ICL Avg@1"}, {"rwm_gap", "RWM pred. - real"}, {"real_runs", "real runs"}},
	},
	{
		Title: "Code changes: OpenEvolve, no critic vs critic, on the example suite",
		Paper: "none at this scale; the twins of the OpenEvolve table on code changes (specs/laptop/code/); final best gain over tau_e = 0.05",
		Arms: []arm{
			{Label: "no critic", Spec: "code/openevolve.hcl"},
			{Label: "critic", Spec: "code/critic-evolve.hcl"},
		},
		Columns: []column{{"final_best", "final best gain"}, {"auroc", "critic AUROC"}, {"real_runs", "real runs"}},
	},
}

// experimentResult holds every arm's figures, one map per seed.
type experimentResult struct {
	experiment
	Runs [][]map[string]float64 // [arm][seed]
}

func runExperiment(e experiment, specs, dir string, seeds, trainSteps int, log io.Writer) (*experimentResult, error) {
	res := &experimentResult{experiment: e, Runs: make([][]map[string]float64, len(e.Arms))}
	// pool[s] is seed s's collected pairs file and its figures.
	type pool struct {
		path string
		figs map[string]float64
	}
	pools := map[int]pool{}
	if e.Pairs != nil {
		for s := 1; s <= seeds; s++ {
			path, figs, err := collectPairs(e.Pairs, specs, dir, s, trainSteps, log)
			if err != nil {
				return nil, err
			}
			pools[s] = pool{path, figs}
		}
	}
	for ai, a := range e.Arms {
		p, err := compileSpec(filepath.Join(specs, a.Spec), trainSteps)
		if err != nil {
			return nil, err
		}
		vi, err := p.VariantIndex(a.Variant)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.Spec, err)
		}
		for s := 1; s <= seeds; s++ {
			p.Variants[vi].Seed = int64(s)
			if pl, ok := pools[s]; ok {
				usePairs(p.Variants[vi], pl.path)
			}
			id := fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(strings.TrimSuffix(a.Spec, ".hcl"), "/", "-"), vi, s)
			if a.Critic != "" {
				// Arms of one spec's critics each run it (no real run).
				id += "-" + a.Critic
			}
			t0 := time.Now()
			r, err := runtime.Run(context.Background(), p, runtime.Options{ID: id, Dir: dir, Plugins: loader(), Variant: p.Variants[vi].Name})
			if err != nil {
				return nil, fmt.Errorf("%s seed %d: %w", a.Spec, s, err)
			}
			if r.State != runtime.StateFinished {
				return nil, fmt.Errorf("%s seed %d: run %s: %s", a.Spec, s, r.State, r.Reason)
			}
			f, err := figures(dir, id, p.Variants[vi], r)
			if err == nil && a.Critic != "" {
				err = criticFigures(dir, id, a.Critic, f)
			}
			if err == nil {
				err = trainingFigures(dir, id, p.Variants[vi], r, f)
			}
			if err != nil {
				return nil, err
			}
			maps.Copy(f, pools[s].figs)
			res.Runs[ai] = append(res.Runs[ai], f)
			fmt.Fprintf(log, "reproduce: %s, %s, seed %d: %d real runs in %.1fs\n", e.Title, a.Label, s, r.Totals.RealRuns, time.Since(t0).Seconds())
		}
	}
	return res, nil
}

// compileSpec loads and compiles a spec as `assay run` does; trainSteps,
// when set, shortens every tinylm run (for tests).
func compileSpec(path string, trainSteps int) (*plan.Plan, error) {
	s, _, ds := load.Load(path, load.Options{})
	if ds.HasErrors() {
		return nil, errors.New(ds.Format(0))
	}
	p, cds := compiler.Compile(s, compiler.Options{})
	if cds.HasErrors() {
		return nil, errors.New(cds.Format(0))
	}
	if trainSteps > 0 {
		for _, v := range p.Variants {
			for _, pl := range v.Plugins {
				if pl.Source == "builtin:tinylm" {
					if pl.Config == nil {
						pl.Config = map[string]any{}
					}
					pl.Config["steps"] = trainSteps
				}
			}
		}
	}
	return p, nil
}

// figures reads one finished run's figures by column key.
func figures(dir, id string, v *plan.Variant, r *runtime.Result) (map[string]float64, error) {
	rep, err := runtime.LoadReport(dir, id)
	if err != nil {
		return nil, err
	}
	f := map[string]float64{"steps": float64(r.Totals.Steps), "candidates": float64(r.Totals.Candidates), "real_runs": float64(r.Totals.RealRuns)}
	if m := r.Totals.Measured; m != nil {
		for name, l := range m.Loops {
			if l.CriticVerified > 0 {
				f["auroc"], f["recall"] = l.CriticAUROC, l.ErrorRecall
			}
			if l.Judged > 0 {
				f["routed"] = l.RoutedShare
			}
			for _, ph := range v.Phases {
				if ph.Loop() == name {
					if pm := m.Phases[ph.Name]; pm != nil {
						f["train_runs"] += float64(pm.RealRuns)
					}
				}
			}
		}
	}
	if len(rep.Evaluation) > 0 {
		e := rep.Evaluation[len(rep.Evaluation)-1]
		f["avg"], f["best"], f["negative"] = e.Avg, e.Best, e.Negative
		if e.BeatsBase != nil {
			f["beats_base"] = *e.BeatsBase
		}
		for _, a := range e.Arms {
			switch a.Arm {
			case plan.ArmBase:
				f["base_avg"] = a.Avg
			case plan.ArmICL:
				f["icl_avg"] = a.Avg
			}
		}
		if e.RWM != nil {
			f["rwm_rank"], f["rwm_cos"], f["rwm_gap"] = e.RWM.RankAcc, e.RWM.AdvCosine, e.RWM.Gap
		}
	}
	// Evolution: the best real gain each task reached by its last round,
	// over the task's scale, averaged over tasks.
	last := map[string]runtime.RoundFigures{}
	for _, rf := range rep.Rounds {
		if rf.Round >= last[rf.Task].Round {
			last[rf.Task] = rf
		}
	}
	if len(last) > 0 {
		scale := map[string]float64{}
		for _, e := range v.Envs {
			for _, t := range e.Tasks {
				if t.Scale != nil && *t.Scale > 0 {
					scale[e.Name+"/"+t.Name] = *t.Scale
				}
			}
		}
		var sum float64
		for task, rf := range last {
			s := scale[task]
			if s == 0 {
				s = 1
			}
			sum += rf.Best / s
		}
		f["final_best"] = sum / float64(len(last))
	}
	return f, nil
}

// render writes the generated section: one table per experiment, mean ±
// sample standard deviation over seeds.
func render(results []*experimentResult, seeds int, took, cpu time.Duration, mach string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Generated by `go run ./internal/reproduce` (%d seeds per arm) in %s of wall-clock time and %s of CPU time on %s.\n\n",
		seeds, took.Round(time.Second), cpu.Round(time.Second), mach)
	fmt.Fprintf(&b, "Each cell is the mean ± the sample standard deviation over seeds 1..%d. Gains are divided by the task's scale tau_e (0.2 bpb on tinylm; 0.05 on the example suite, whose metric is a validation loss).\n", seeds)
	for _, r := range results {
		b.WriteString(renderTable(r, ""))
	}
	return b.String()
}

// renderTable is one experiment's table under its heading, with a note
// after the papers' line when it was run apart from the others.
func renderTable(r *experimentResult, note string) string {
	var b strings.Builder
	{
		fmt.Fprintf(&b, "\n### %s\n\n", r.Title)
		fmt.Fprintf(&b, "Papers: %s.\n\n", r.Paper)
		if note != "" {
			b.WriteString(note + "\n\n")
		}
		b.WriteString("| arm |")
		for _, c := range r.Columns {
			b.WriteString(" " + c.Head + " |")
		}
		b.WriteString("\n|---|")
		for range r.Columns {
			b.WriteString("---:|")
		}
		b.WriteString("\n")
		for ai, a := range r.Arms {
			b.WriteString("| " + a.Label + " |")
			for _, c := range r.Columns {
				b.WriteString(" " + cell(r.Runs[ai], c.Key) + " |")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// cell is "mean ± sd" of a figure over seeds, or "–" where no run has it.
func cell(runs []map[string]float64, key string) string {
	var xs []float64
	for _, f := range runs {
		if x, ok := f[key]; ok {
			xs = append(xs, x)
		}
	}
	if len(xs) == 0 {
		return "–"
	}
	st := stats.Summarize(xs)
	if !st.Interval() {
		return fmt.Sprintf("%.3g", st.Mean)
	}
	return fmt.Sprintf("%.3g ± %.2g", st.Mean, st.SD)
}

// Markers around the generated section; text outside them is kept.
const (
	beginMark = "<!-- BEGIN GENERATED by go run ./internal/reproduce -->"
	endMark   = "<!-- END GENERATED -->"
)

// writeGenerated replaces the text between the markers of path (creating
// the file, or appending the section, when there is none).
func writeGenerated(path, gen string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	section := beginMark + "\n" + gen + endMark + "\n"
	var out []byte
	i, j := bytes.Index(old, []byte(beginMark)), bytes.Index(old, []byte(endMark))
	switch {
	case i >= 0 && j > i:
		out = append(append(append([]byte{}, old[:i]...), section...), bytes.TrimPrefix(old[j+len(endMark):], []byte("\n"))...)
	case len(old) > 0:
		out = append(append(old, '\n'), section...)
	default:
		out = []byte("# Reproducing the papers' ablations at laptop scale\n\n" + section)
	}
	return os.WriteFile(path, out, 0o644)
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machine describes this machine for the record.
func machine() string {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "model name") {
				if k := strings.Index(line, ":"); k >= 0 {
					model = strings.TrimSpace(line[k+1:])
				}
				break
			}
		}
	}
	s := fmt.Sprintf("%d CPU cores (%s/%s, %s)", goruntime.NumCPU(), goruntime.GOOS, goruntime.GOARCH, goruntime.Version())
	if model != "" {
		s = fmt.Sprintf("%d cores of %s (%s/%s, %s)", goruntime.NumCPU(), model, goruntime.GOOS, goruntime.GOARCH, goruntime.Version())
	}
	return s
}

// inst serves one built-in plugin in process.
type inst struct {
	t plugins.Trainer
	l plugins.LLM
}

func (i inst) Trainer() plugins.Trainer     { return i.t }
func (i inst) LLM() plugins.LLM             { return i.l }
func (i inst) Benchmark() plugins.Benchmark { return nil }
func (i inst) Close() error                 { return nil }

// loader serves the built-in tinylm trainer and offline LLM in process, as
// their plugin binaries would.
func loader() runtime.Loader {
	return runtime.LoaderFunc(func(ctx context.Context, p *plan.Plugin) (runtime.Instance, error) {
		switch p.Source {
		case "builtin:tinylm":
			return inst{t: tinylm.NewTrainer()}, nil
		case "builtin:offline":
			return inst{l: offline.Model{}}, nil
		case "builtin:command":
			// The code twins' trainer: each run is the example suite's
			// evaluation command in a checkout of the candidate's commit.
			return inst{t: command.New(command.Options{})}, nil
		}
		return nil, fmt.Errorf("plugin %s: source %s is not a laptop-scale built-in", p.Name, p.Source)
	})
}
