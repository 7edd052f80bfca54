package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/compare"
)

func init() { rootCmd.AddCommand(newStatusCmd()) }

func newStatusCmd() *cobra.Command {
	var dir string
	var asJSON, watch bool
	var interval, wait time.Duration
	c := &cobra.Command{
		Use:   "status [ID] [--json] [--watch]",
		Short: "Show a run's state, or list runs",
		Long: `Status reads run ID's journal and shows its state, the current phase,
real runs reserved against the budget (finished, infeasible, failed, in
flight), GPU-hours and dollars. Without ID it lists every run, newest first,
with its key results (dollars, best real gain, Avg@k; assay compare shows
them all). A run in source mode also names each task's seed program
(with the repository an imported source became, which holds the
candidates and best refs) and lists its latest candidates. A journal that cannot be read is listed as unreadable with the
reason, and the other runs are still listed.

With --watch, status follows run ID: it shows the status again every
--interval (on a terminal it redraws in place; otherwise it prints a new
block whenever something changed), with the latest step, calibration and
best real gain, until the run ends; then it exits 0 when the run finished,
4 when it ended stopped at a budget cap, and 1 otherwise. ID may be the
group id of assay run --all-variants (plain status shows the group once,
and a variant not started yet as waiting): watch then follows every
variant of the group, one line each, and shows a variant that has not
started yet as waiting; it ends when every variant has run (exit 0 when
all finished, 4 when none failed but one stopped at a cap). A run that has not started (no
directory yet, or a directory without a journal) is waited for up to
--wait (30 seconds), and a variant of a group as long as its group runs;
then watch says it found no such run. It opens journals read-only and never
takes a run's lock, so it works while the run goes on (in another
terminal or on another host sharing the directory).

States: running (a process holds the run's lock; status names its pid, host
and start), finished, stopped_at_cap (it ended, but a budget cap stopped
or shrank a phase: the reason names each), failed, interrupted (its
process is gone without finishing: continue it with assay resume), empty
(the journal holds no run record: the run stopped before it began, or its
write-ahead log was lost), unreadable (the journal is corrupt; only in the
list).

With --json it prints the same as JSON: an object for one run, an array of
them for the list. Each field has one meaning:

  id, plan, variant, seed   the run and what it runs
  plan_hash                 the hash of the plan as it applies to the run's
                            variant (each variant of a sweep has its own)
  state                     one of the states above
  reason                    why it failed, was interrupted, is empty or
                            unreadable; absent for running and finished runs
  holder                    {pid, host, since} of the process running it,
                            while one does
  phase                     the phase last started
  stopped_at_cap            for a run a budget cap cut short: every phase
                            it stopped or shrank, and the cap
  cut_phases                the same, one {phase, reason} per phase
  real_runs                 real runs reserved against the budget; the sum of
                            the five counts below
  finished_runs             real runs that finished with a measured metric
  infeasible_runs           real runs the trainer judged infeasible
  errored_runs              real runs that failed in the program's own code
                            (a non-zero exit, no metric): a source-mode
                            candidate's went back to its builder while its
                            source's repairs lasted, any other was retried
  failed_runs               real runs that failed or were preempted
  in_flight_runs            real runs reserved but without a result yet
  re_executions             real runs started again because their trainer
                            had lost them (its process died with them in
                            flight); each may have spent its GPU time twice
  gpu_hours, run_usd        reserved GPU-hours and their dollars (held at each
                            run's high hours, and each update's hours)
  totals.measured_gpu_hours GPU-hours and dollars of finished runs and
  totals.measured_run_usd   updates as measured (wall time x GPUs), each at
                            most what it held; totals.overruns and
                            totals.overrun_gpu_hours count those that took
                            longer than their hours, and by how much;
                            totals.measured_update_gpu_hours and
                            totals.update_overruns are the updates' share
  budget                    the plan's budget caps
  totals                    the run's figures when it ended (absent while it
                            runs); totals.finished_runs and
                            totals.infeasible_runs mean the same as above,
                            totals.usd includes LLM dollars (llm_usd);
                            totals.measured has the run in the estimate's
                            terms: roles.NAME.calls, loops.NAME.steps,
                            candidates, routed_share, build_failure_rate,
                            and, for a loop a critic judges, critic_auroc
                            and error_recall on the candidates verified
                            for real; phases.NAME.real_runs,
                            environments.NAME.real_runs
  calibration               per calibration round, the world model's error
                            on its proposals: mae, reward_gap,
                            rank_accuracy, and within-state
                            state_rank_accuracy and advantage_cosine
  evaluation                Avg@k, Best@k, negative_share per arm (policy,
                            base, icl) and family, beats_base_share, and
                            rwm: the world model's rank_accuracy,
                            advantage_cosine and gap on the evaluated
                            proposals
  replay_of                 for a run that replays another (--replay): run,
                            dir and runs (whether real runs' results came
                            from it too)
  tasks                     each task's record: baseline (the metric gains
                            are measured against) and baseline_run (the run
                            that measured it; absent when declared),
                            seed_commit, repository, and best: the best
                            verified program (ref, commit, real_gain) with
                            checkout, the command that checks it out
  candidates                a source-mode run's built candidates: key, idea,
                            parent, commit, ref, diffstat, the run that
                            measured the commit with its status, metric and
                            real_gain, repairs (builder repairs taken), and
                            for one whose run failed in its code and was
                            repaired its attempts: each commit, repair, run,
                            status and reason, the last being the candidate
  meta                      what the command recorded (spec and lock paths,
                            saved_plan for a run of a saved plan)
  provenance                what the run was made from, recorded when it
                            began: spec, saved_plan, git_commit (absent
                            outside git; no_commit says why), git_dirty and
                            dirty_files (spec files that differed from the
                            commit), plan_hash, sweep_hash (for a sweep:
                            the whole plan's), assay_version, overrides
                            (-var-file, -var, --set), plugins (name, source,
                            platform and sha256 of each executable; the
                            assay binary for a built-in)
  updated                   the time of the journal's last event`,
		Example: `  assay status
  assay status --json 20261130-021500-a1b2c3
  assay status --watch 20261130-021500-a1b2c3`,
		Args: usageArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			out := c.OutOrStdout()
			if len(args) == 0 {
				list, err := runtime.ListRuns(dir)
				if err != nil {
					return userErrorf("%v", err)
				}
				if asJSON {
					if list == nil {
						list = []*runtime.Status{}
					}
					return writeJSON(out, list)
				}
				if len(list) == 0 {
					fmt.Fprintf(out, "no runs in %s\n", dir)
					return nil
				}
				if err := writeEscaped(out, func(w io.Writer) error { return writeRunList(w, dir, list) }); err != nil {
					return err
				}
				var bad []*runtime.Status
				for _, s := range list {
					if s.State == runtime.StateUnreadable || s.State == runtime.StateEmpty {
						bad = append(bad, s)
					}
				}
				for _, s := range bad {
					fmt.Fprintf(out, "%s: %s\n", s.ID, plugins.Printable(s.Reason))
				}
				return nil
			}
			if watch {
				return watchRun(c.Context(), out, dir, args[0], interval, wait, asJSON)
			}
			st, err := runtime.ReadStatus(dir, args[0])
			if err != nil {
				if shown, gerr := writeGroupStatus(out, dir, args[0], asJSON); shown {
					return gerr
				}
				return userErrorf("%v", err)
			}
			if asJSON {
				return writeJSON(out, st)
			}
			writeStatus(out, st)
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVarP(&watch, "watch", "w", false, "follow run ID: show its status again every --interval until it ends")
	c.Flags().DurationVar(&interval, "interval", 2*time.Second, "with --watch: time between refreshes")
	c.Flags().DurationVar(&wait, "wait", 30*time.Second, "with --watch: how long to wait for a run that has not started")
	return c
}

// writeRunList renders the run list with each run's key results.
func writeRunList(w io.Writer, dir string, list []*runtime.Status) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPLAN\tSTATE\tVARIANT\tPHASE\tREAL RUNS\tDOLLARS\tBEST GAIN\tAVG@K\tUPDATED")
	for _, s := range list {
		var gain, avg, usd string
		if s.State != runtime.StateUnreadable && s.State != runtime.StateEmpty {
			usd = estimate.FormatUSD(s.RunUSD)
			if r, err := compare.LoadRow(dir, s.ID); err == nil {
				usd, gain = estimate.FormatUSD(r.USD), figure(r.BestGain)
				if r.Avg != nil {
					avg = fmt.Sprintf("%s (k=%d)", figure(r.Avg), r.AvgAt)
					if r.AvgGot != nil && *r.AvgGot < r.AvgAt {
						avg = fmt.Sprintf("%s (Avg@%d of %d asked)", figure(r.Avg), *r.AvgGot, r.AvgAt)
					}
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Plan, s.State, s.Variant, s.Phase, runsOf(s), usd, gain, avg, s.Updated.Format("2006-01-02 15:04:05"))
	}
	return tw.Flush()
}

func runsOf(s *runtime.Status) string {
	if s.Budget.RealRuns > 0 {
		return fmt.Sprintf("%d/%d", s.RealRuns, s.Budget.RealRuns)
	}
	return fmt.Sprintf("%d", s.RealRuns)
}

func writeStatus(w io.Writer, s *runtime.Status) {
	fmt.Fprintf(w, "run        %s\nplan       %s (%s, seed %d)\nstate      %s\n", s.ID, s.Plan, s.Variant, s.Seed, s.State)
	if s.Reason != "" && len(s.Cuts) == 0 && len(s.Failures) == 0 {
		fmt.Fprintf(w, "reason     %s\n", plugins.Printable(s.Reason)) // may quote a plugin or server
	}
	for _, f := range s.Failures {
		fmt.Fprintf(w, "failed     phase %s: %s\n", plugins.Printable(f.Phase), plugins.Printable(f.What))
		for _, r := range f.Reasons {
			fmt.Fprintf(w, "             %dx %s\n", r.Count, plugins.Printable(r.Message))
		}
	}
	if len(s.Cuts) > 0 {
		if s.State != runtime.StateStoppedAtCap && s.State != runtime.StatePhaseFailed && s.Reason != "" {
			fmt.Fprintf(w, "reason     %s\n", plugins.Printable(s.Reason))
		}
		fmt.Fprintf(w, "cap        a budget cap cut the plan short; these figures are not the plan's\n")
		for _, c := range s.Cuts {
			fmt.Fprintf(w, "cut        phase %s %s\n", c.Phase, plugins.Printable(c.Reason))
		}
	}
	if h := s.Holder; h != nil {
		fmt.Fprintf(w, "held by    pid %d on %s since %s\n", h.PID, h.Host, h.Since.Format("2006-01-02 15:04:05 MST"))
	}
	if s.Phase != "" {
		fmt.Fprintf(w, "phase      %s\n", s.Phase)
	}
	errored := ""
	if s.Errored > 0 {
		errored = fmt.Sprintf("%d errored, ", s.Errored)
	}
	fmt.Fprintf(w, "real runs  %s (%d finished, %d infeasible, %s%d failed, %d in flight)\n", runsOf(s), s.Finished, s.Infeasible, errored, s.Failed, s.InFlight)
	writeReplay(w, s.Replay)
	writeSources(w, s.Sources)
	writeTasks(w, s.Tasks)
	writeCandidates(w, s.Candidates)
	if s.ReExecutions > 0 {
		fmt.Fprintf(w, "re-run     %d real runs started again: their trainer had lost them, so their GPU time may be spent twice\n", s.ReExecutions)
	}
	// Real runs are held at the plan's hours and dollars (reserved); LLM
	// calls are charged as they answer (measured): say which is which.
	fmt.Fprintf(w, "GPU-hours  %s reserved\nrun $      %s reserved%s\n", gpuHoursOf(s.GPUHours), estimate.FormatUSD(s.RunUSD), capOf(s.Budget.USD))
	if t := s.Totals; t != nil {
		fmt.Fprintf(w, "total $    %s (real runs reserved, LLM %s measured, %d calls)\nsteps      %d (%d candidates, %d policy updates)\nbest gain  %.4g\n",
			estimate.FormatUSD(t.USD), estimate.FormatUSD(t.LLMUSD), t.LLMCalls, t.Steps, t.Candidates, t.PolicyUpdates, t.BestGain)
		fmt.Fprintf(w, "measured   %s GPU-hours, %s (each run at most what it held)%s\n", gpuHoursOf(t.MeasuredGPUHours), estimate.FormatUSD(t.MeasuredRunUSD), updatesOf(t))
		if m := t.Measured; m != nil {
			for _, name := range slices.Sorted(maps.Keys(m.Roles)) {
				if r := m.Roles[name]; r.Unparsed > 0 {
					fmt.Fprintf(w, "unparsed   role %s: %d answers could not be read (%d asked again); a critic's such votes are left out of its verdicts\n", name, r.Unparsed, r.Reasks)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(m.CriticTrainings)) {
				c := m.CriticTrainings[name]
				fmt.Fprintf(w, "critic     %s: critiques sampled %d, revised %d, guided %d, left out %d; %d updates, GRPO %d/%d verdicts right\n",
					name, c.Sampled, c.Revised, c.Guided, c.Dropped, c.Updates, c.Correct, c.Verdicts)
				if p := c.Pool; p.Parents > 0 {
					fmt.Fprintf(w, "pool       %s: %d pairs read, %d improve; %d of %d parents kept, %d pairs of the others left out\n",
						name, p.Pairs, p.Improve, p.KeptParents, p.Parents, p.DroppedPairs)
				}
			}
		}
		if t.Overruns > 0 {
			fmt.Fprintf(w, "overruns   %d real runs and %d updates took longer than their high hours: %s GPU-hours beyond what they held, not charged\n",
				t.Overruns-t.UpdateOverruns, t.UpdateOverruns, gpuHoursOf(t.OverrunGPUHours))
		}
	}
	if s.State == runtime.StateInterrupted {
		fmt.Fprintf(w, "continue   assay resume %s\n", s.ID)
	}
	writeProvenance(w, s.Provenance)
}

// gpuHoursOf prints GPU-hours as the estimate does, or to three
// significant digits below a hundredth, so that a small run's or update's
// hours do not read 0.
func gpuHoursOf(x float64) string {
	if a := math.Abs(x); a > 0 && a < 0.01 {
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	return estimate.FormatNumber(x)
}

// updatesOf is the updates' share of the measured GPU-hours, for the
// status line, when updates ran a trainer's command.
func updatesOf(t *runtime.Totals) string {
	if t.MeasuredUpdateGPUHours == 0 {
		return ""
	}
	return "; updates " + gpuHoursOf(t.MeasuredUpdateGPUHours) + " of them"
}

// writeSources names each task's seed program, and where an imported
// source's repository is, since candidates and best refs live there.
func writeSources(w io.Writer, ss []runtime.SeedSource) {
	for _, s := range ss {
		where := ""
		if s.Repository != "" {
			where = "  imported: " + termSafe(s.Repository)
		}
		fmt.Fprintf(w, "seed       %s/%s %.12s%s\n", termSafe(s.Env), termSafe(s.Task), s.Commit, where)
	}
}

// maxCandidateLines bounds the candidates the human status lists (the
// latest ones); --json lists them all.
const maxCandidateLines = 20

// writeCandidates lists a source-mode run's built candidates: each one's
// commit, diffstat and idea.
func writeCandidates(w io.Writer, cs []runtime.Candidate) {
	if len(cs) > maxCandidateLines {
		fmt.Fprintf(w, "candidate  %d built; the last %d:\n", len(cs), maxCandidateLines)
		cs = cs[len(cs)-maxCandidateLines:]
	}
	for _, c := range cs {
		idea := plugins.Printable(strings.Join(strings.Fields(c.Idea), " "))
		if len(idea) > 80 {
			idea = idea[:77] + "..."
		}
		fmt.Fprintf(w, "candidate  %s %.12s %d file(s) +%d -%d  %s%s\n", termSafe(c.Key), c.Commit, c.Files, c.Additions, c.Deletions, idea, measuredText(c))
		for i, a := range c.Attempts {
			fmt.Fprintf(w, "  attempt  %d %.12s run %s: %s\n", i, a.Commit, termSafe(a.Run), termSafe(attemptOutcome(a)))
		}
	}
}

// writeProvenance renders what a run was made from.
func writeProvenance(w io.Writer, pv *runtime.Provenance) {
	if pv == nil {
		return
	}
	spec := termSafe(pv.Spec)
	if pv.SavedPlan != "" {
		spec += " (saved plan " + termSafe(pv.SavedPlan) + ")"
	}
	fmt.Fprintf(w, "spec       %s\n", spec)
	commit := pv.GitCommit
	if commit == "" {
		commit = "none (" + termSafe(pv.NoCommit) + ")"
	}
	if pv.GitDirty {
		commit += ", with uncommitted changes"
		if len(pv.DirtyFiles) > 0 {
			commit += " to " + termSafe(strings.Join(pv.DirtyFiles, ", "))
		}
	}
	fmt.Fprintf(w, "git        %s\nplan hash  %s\n", commit, pv.PlanHash)
	if pv.SweepHash != "" {
		fmt.Fprintf(w, "sweep hash %s\n", pv.SweepHash)
	}
	fmt.Fprintf(w, "assay      %s\n", termSafe(pv.Assay))
	if len(pv.Overrides) > 0 {
		fmt.Fprintf(w, "overrides  %s\n", termSafe(strings.Join(pv.Overrides, " ")))
	}
	for _, p := range pv.Plugins {
		fmt.Fprintf(w, "plugin     %s %s sha256:%s (%s)\n", termSafe(p.Name), termSafe(p.Source), p.SHA256, p.Platform)
	}
}

// capOf is " of $CAP" for a dollar cap, or "" without one.
func capOf(usd float64) string {
	if usd <= 0 {
		return ""
	}
	return " of " + estimate.FormatUSD(usd)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
