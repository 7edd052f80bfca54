package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/pairs"
)

func init() { rootCmd.AddCommand(newCriticEvalCmd()) }

// criticReport is one critic's figures (runtime.ScoreCritic, which a
// spec's critic_eval phase reports too).
type criticReport = runtime.CriticScore

type criticEvalReport struct {
	ID       string          `json:"id"`
	Examples int             `json:"examples"`
	Ladder   int             `json:"ladder5_examples"`
	Critics  []*criticReport `json:"critics"`
	Totals   runtime.Totals  `json:"totals"`
}

func newCriticEvalCmd() *cobra.Command {
	var flags *specFlags
	var rf *runFlags
	var id, split string
	var names []string
	var ks []int
	var ts []float64
	var limit int
	var asJSON bool
	c := &cobra.Command{
		Use:   "critic-eval SPEC PAIRS [--critic NAME]... [--k LIST] [--thresholds LIST] [--json]",
		Short: "Judge labelled pairs with a spec's critics and set their metrics side by side",
		Long: `Critic-eval is a static benchmark of critics, as the critics paper's
ML-Idea-Critic-Bench: it reads labelled parent/child pairs (PAIRS, a file
that assay export pairs wrote, or any file in its schema; docs/pairs.md)
and asks each critic of SPEC (--critic NAME, repeated; default every
critic of the variant) for its votes on every pair, through the critic's
role and LLM plugin exactly as a run's screen asks: the same request
(task, parent, child, the child's summary, the label set), votes times per
pair. The calls are journaled as a run of their own (--id; assay status
shows it), charged against the spec's dollar cap, and an evaluation
interrupted continues with the same --id: answered calls are not made
again. An id belongs to the pairs it was started on: the same id with
other pairs, or the id of a run of a plan, is refused (and assay resume
refuses an evaluation's id).

It then prints, per critic side by side, the metrics of the majority of
its first k votes for each k of --k (default: its votes): Improve accuracy,
Dir-3, F1 of the Improve class, 5-Ladder (5-way critics, over pairs with a
5-way label), the AUROC of the share of votes for a win as a score of
improvement, and the AUROC of the verdict's agreement (1 - uncertainty) as
a score of its being right; and, with all its votes, the routing at each
threshold T of --thresholds (default 0.1,0.25,0.5): error recall (the
share of wrong verdicts, Dir-3, whose uncertainty is at least T) and the
routed share. A blank figure is undefined (no positives, no errors).

--split train|holdout|all (default all) picks the pairs of one split;
--limit N the first N pairs. At most 4,194,304 calls.`,
		Example: `  assay export pairs RUN --holdout-fraction 0.2 --seed 1 -o pairs.jsonl
  assay critic-eval specs/quickstart-critic.hcl pairs.jsonl --split holdout --k 1,4,8`,
		Args: usageArgs(2, 2),
		RunE: func(c *cobra.Command, args []string) error {
			return runCriticEval(c, args, &criticEvalFlags{flags, rf, id, split, names, ks, ts, limit, asJSON})
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	rf = addRunFlags(c)
	c.Flags().StringVar(&id, "id", "", "run id of the evaluation's journal; an existing one continues (default: the time and a random suffix)")
	c.Flags().StringVar(&rf.variant, "variant", "", "variant of a sweep whose critics are evaluated (default: the first)")
	c.Flags().StringSliceVar(&names, "critic", nil, "critic to evaluate (repeat; default: every critic)")
	c.Flags().IntSliceVar(&ks, "k", nil, "numbers of votes to score the majority of (default: each critic's votes)")
	c.Flags().Float64SliceVar(&ts, "thresholds", []float64{0.1, 0.25, 0.5}, "routing thresholds T")
	c.Flags().StringVar(&split, "split", "all", "pairs of one split: train, holdout or all")
	c.Flags().IntVar(&limit, "limit", 0, "evaluate only the first N pairs (0: all)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// criticEvalFlags are critic-eval's settings.
type criticEvalFlags struct {
	spec      *specFlags
	run       *runFlags
	id, split string
	names     []string
	ks        []int
	ts        []float64
	limit     int
	asJSON    bool
}

func runCriticEval(c *cobra.Command, args []string, o *criticEvalFlags) error {
	flags, rf, id, split, names, ks, ts, limit, asJSON := o.spec, o.run, o.id, o.split, o.names, o.ks, o.ts, o.limit, o.asJSON
	ex, ex5, labels, err := readExamples(args[1], split, limit)
	if err != nil {
		return err
	}
	p, _, err := compileFirst(c, args[0], flags, nil)
	if err != nil {
		return err
	}
	v := p.Variants[0]
	for _, x := range p.Variants {
		if x.Name == rf.variant {
			v = x
		}
	}
	if len(names) == 0 {
		for _, cr := range v.Critics {
			names = append(names, cr.Name)
		}
	}
	if len(names) == 0 {
		return userErrorf("%s has no critic to evaluate", args[0])
	}
	// What would fail after the calls is refused before them.
	if err := checkCriticEval(v.Critics, names, ks, ts); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	lock, err := lockFor(ctx, args[0], p, c.ErrOrStderr())
	if err != nil {
		return err
	}
	pins, err := pinsFor(p, lock)
	if err == nil {
		err = checkPins(lock, pins)
	}
	if err != nil {
		return userErrorf("%s", withSpec(err, args[0]))
	}
	if id == "" {
		id = runtime.NewID()
	}
	opts := runtime.Options{ID: id, Dir: rf.dir, Variant: rf.variant, Progress: c.ErrOrStderr(),
		Meta: map[string]string{"spec": absPath(args[0]), "pairs": absPath(args[1])}}
	if rf.quiet {
		opts.Progress = nil
	}
	if _, err := os.Stat(filepath.Join(runtime.RunDir(rf.dir, id), runtime.JournalFile)); err == nil {
		opts.Resume = true
	}
	logPath := filepath.Join(runtime.RunDir(opts.Dir, id), "plugins.log")
	opts.Plugins = hostLoader{lock: lock, opts: []host.OpenOption{host.WithLogFile(logPath)}}
	res, err := runtime.CriticEval(ctx, p, opts, names, ex)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return userErrorf("critic evaluation %s interrupted; continue it with the same --id %s", id, id)
		}
		return userErrorf("critic evaluation %s: %v", id, err)
	}
	rep := &criticEvalReport{ID: res.ID, Examples: len(ex), Ladder: ex5, Totals: res.Totals}
	for _, name := range names {
		cr, err := evalCritic(v.Critics, name, res.Votes[name], labels, ks, ts)
		if err != nil {
			return userErrorf("%v", err)
		}
		rep.Critics = append(rep.Critics, cr)
	}
	if asJSON {
		return writeJSON(c.OutOrStdout(), rep)
	}
	return writeEscaped(c.OutOrStdout(), func(w io.Writer) error { return writeCriticEval(w, rep) })
}

// readExamples reads the pairs file: what each critic sees, the labels,
// and how many pairs have a 5-way label.
func readExamples(path, split string, limit int) ([]runtime.CriticExample, int, []critic.Example, error) {
	if split != "all" && split != "train" && split != "holdout" {
		return nil, 0, nil, &exitError{code: exitUsage, msg: fmt.Sprintf("--split %q: use train, holdout or all", split)}
	}
	if limit < 0 {
		return nil, 0, nil, &exitError{code: exitUsage, msg: fmt.Sprintf("--limit %d: give 0 (all) or more", limit)}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, userErrorf("%v", err)
	}
	defer f.Close()
	ps, err := pairs.ReadJSONL(f)
	if err != nil {
		return nil, 0, nil, userErrorf("%s: %v", path, err)
	}
	ex, labels, n5 := runtime.CriticExamples(ps, split, limit)
	if len(ex) == 0 {
		return nil, 0, nil, userErrorf("%s has no pairs of split %s", path, split)
	}
	return ex, n5, labels, nil
}

// checkCriticEval refuses an unknown critic, a k above a critic's votes
// and a threshold outside [0, 1].
func checkCriticEval(cs []*plan.Critic, names []string, ks []int, ts []float64) error {
	for _, name := range names {
		var pc *plan.Critic
		for _, c := range cs {
			if c.Name == name {
				pc = c
			}
		}
		if pc == nil {
			var have []string
			for _, c := range cs {
				have = append(have, c.Name)
			}
			return userErrorf("the spec has no critic %q (it has %v)", name, have)
		}
		for _, k := range ks {
			if k < 1 || k > pc.Votes {
				return userErrorf("--k %d: critic %s votes %d times; give k from 1 to %d", k, name, pc.Votes, pc.Votes)
			}
		}
	}
	for _, t := range ts {
		if math.IsNaN(t) || t < 0 || t > 1 {
			return userErrorf("--thresholds %g: give shares from 0 to 1", t)
		}
	}
	return nil
}

// evalCritic scores one critic's votes.
func evalCritic(cs []*plan.Critic, name string, votes [][]string, labels []critic.Example, ks []int, ts []float64) (*criticReport, error) {
	for _, c := range cs {
		if c.Name == name {
			return runtime.ScoreCritic(c, votes, labels, ks, ts)
		}
	}
	return nil, fmt.Errorf("critic %s: no votes", name)
}

// writeCriticEval prints the critics side by side: one row per critic and
// k, then one per critic and threshold.
func writeCriticEval(w io.Writer, rep *criticEvalReport) error {
	fmt.Fprintf(w, "critic evaluation %s: %d pairs (%d with a 5-way label); %d LLM calls, %s\n\n",
		rep.ID, rep.Examples, rep.Ladder, rep.Totals.LLMCalls, estimate.FormatUSD(rep.Totals.LLMUSD))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "critic\tlabels\tk\timprove_acc\tdir3\tf1\tladder5\tauroc\tconfidence_auroc\tfailed_votes")
	for _, cr := range rep.Critics {
		for _, m := range cr.Metrics {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", cr.Name, cr.Labels, m.K, fig(&m.ImproveAccuracy), fig(&m.Dir3),
				fig(m.F1), fig(m.Ladder5), fig(m.AUROC), fig(m.ConfidenceAUROC), cr.Failed)
		}
	}
	for _, cr := range rep.Critics {
		for _, st := range cr.ByStratum {
			for _, m := range st.Metrics {
				fmt.Fprintf(tw, "%s, %s (%d)\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", cr.Name, st.Stratum, st.Examples, cr.Labels, m.K, fig(&m.ImproveAccuracy), fig(&m.Dir3),
					fig(m.F1), fig(m.Ladder5), fig(m.AUROC), fig(m.ConfidenceAUROC))
			}
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "critic\tk\tthreshold\terror_recall\trouted_share\terrors\trouted")
	for _, cr := range rep.Critics {
		for _, r := range cr.Routing {
			fmt.Fprintf(tw, "%s\t%d\t%g\t%s\t%s\t%d\t%d\n", cr.Name, r.K, r.T, fig(r.ErrorRecall), fig(&r.RoutedShare), r.Errors, r.Routed)
		}
	}
	return tw.Flush()
}

// fig is a figure to three places, or "-" where it is undefined.
func fig(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", *v)
}
