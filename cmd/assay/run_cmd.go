package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/openai"
	"github.com/assay-lang/assay/plugins/host"
	"github.com/assay-lang/assay/runtime"
)

func init() {
	rootCmd.AddCommand(newRunCmd())
	rootCmd.AddCommand(newResumeCmd())
}

// hostLoader starts locked plugins as subprocesses.
type hostLoader struct {
	lock *host.Lock
	opts []host.OpenOption
}

func (l hostLoader) Open(ctx context.Context, p *plan.Plugin) (runtime.Instance, error) {
	inst, err := host.Open(ctx, l.lock, p.Name, l.opts...)
	if err != nil || p.Source != "builtin:openai" {
		return inst, err
	}
	return openaiPlugin{inst}, nil
}

// openaiPlugin is the built-in openai plugin, whose endpoint the run's
// preflight probes (runtime.Prober). The probe runs in this process, with
// the plugin's own code and config, so it goes to exactly the base_url the
// spec names, as every request of the plugin does.
type openaiPlugin struct{ *host.Plugin }

func (o openaiPlugin) Probe(ctx context.Context, config map[string]any) error {
	return openai.Probe(ctx, config)
}

// runFlags are shared by run and resume.
type runFlags struct {
	dir     string
	variant string
	quiet   bool
}

func addRunFlags(c *cobra.Command) *runFlags {
	f := &runFlags{}
	c.Flags().StringVar(&f.dir, "dir", runtime.DefaultDir, "directory that holds runs, one sub-directory per run id")
	c.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "print no progress, only the final line")
	return f
}

func newRunCmd() *cobra.Command {
	var flags *specFlags
	var rf *runFlags
	var id string
	var allVariants bool
	var parallel int
	var seedsFlag string
	var replay string
	var replayRuns bool
	c := &cobra.Command{
		Use:   "run [--id NAME] [--variant NAME | --all-variants] [--replay RUN [--replay-runs]] SPEC | PLANFILE",
		Short: "Run an experiment spec, or a saved plan",
		Long: `Run compiles SPEC and executes its plan: seed records, RL or evolution
loops, calibration rounds and evaluation, with real runs through the trainer
plugin and LLM calls through the LLM plugins. Given a plan saved with
assay plan -out, run executes exactly that plan, after checking that the
spec's files and the plugins' executables are those it pinned; it refuses
the plan, naming each change, when one changed. It also compiles the
pinned spec again with the recorded settings, and refuses a plan that is
not what the spec compiles to (one edited by hand), naming where it first
differs.

A spec (or saved plan) that still needs something of yours is refused
before anything starts, as assay check refuses it: an empty variable whose
supply says a run needs it, a task suite's unnamed checkout or unwritten
placeholder, each at the line that says what to give.

Plugins start from the spec's lock file (SPEC.lock, see assay init). When
the spec has no lock yet, run writes one; an existing lock is only checked,
and a mismatch is an error that says what to run.

Every plugin call, result, reward, policy update and budget reservation is
journaled under .assay/runs/ID/journal.db, with the run's provenance: the
git commit of the spec and whether its files had uncommitted changes (run
warns then), the plan's hash, the assay version, the -var, -var-file and
--set settings, and each plugin executable's SHA-256 (assay status ID shows it).

In source mode, run ends with a line per task that has a best program:
"best TASK: git -C REPO checkout refs/assay/ID/best/TASK", REPO being the
source's repository, or for an imported source the repository Assay made
of it (.imports/HASH in the --dir directory).
Budget caps are hard. What the caps guarantee, exactly:
  - real_runs: no more real runs are reserved than the cap.
  - gpu_hours and the run share of usd: a real run holds its
    environment's high GPU-hours (and their dollars) before it starts and
    keeps the hold; it is sent a time limit of its high hours (Slurm
    --time rounded up to whole minutes, plus 30 s for the trainer to
    report; the local executor kills its process group), and a run that
    measured more than its hold is reported as an overrun (status,
    report), since a trainer or scheduler may stop it late.
  - the LLM share of usd: each call holds, before it is sent, its role's
    high tokens in and out at its prices for every attempt its plugin may
    make (max_retries + 1 for builtin:openai), and is charged what the
    server reports for every attempt that may be billed (answered,
    timed out), each figure bounded to [0, the hold]. Prompts are counted
    before sending (builtin:openai: one token per byte plus 8 per
    message) and one over the role's high tokens.in is refused, not
    truncated, and the run stops with the reason. A report above what a
    call held is charged the hold and stops the run at the cap, with the
    reason: the dollars counted never exceed the cap, whatever a server
    reports.
  - later phases: while a phase runs, what the phases after it need is
    held back from it (the plan's hold_back, which the compiler decides:
    the GPU-hours and dollars they may spend at their high figures, every
    attempt of every call included, a loop's low, and their real runs, up
    to their high figure as far as the cap leaves the earlier phases
    their low), so an early loop cannot spend a later evaluation's share;
    a dollar or GPU-hour cap that cannot fund a later phase so is refused
    (E_BUDGET_FIT).
A spec whose estimate breaks a hard cap is refused before anything runs,
as estimate refuses it; one whose high figure only may break it
(W_CAP_AT_RISK) runs until the cap. A run a cap cut short ends in state
stopped_at_cap, naming every phase the cap stopped or left with fewer real
runs than planned, and run exits with code 4. An interrupted run (a crash, kill
-9, Ctrl-C) continues with assay resume ID: finished real runs are never
run again, and a resumed run ends with the same totals as an
uninterrupted one with the same seed.

A sweep runs one variant (--variant NAME, default the first), or all of
them with --all-variants: one run per variant, ID-v1, ID-v2, ... for the
group id ID (--id, default the time and a random suffix), each recording
the group in its journal; --parallel N runs N variants at once (default 1;
each runs its real runs with the executor's concurrency, and each has its
own budget). assay compare ID then sets the group's runs side by side.

--seeds LIST (1-5, 1,3,7; at most 100) runs the spec once per seed as one
group, with --all-variants every variant once per seed: run ID-vI-sN of
variant I and seed N, compiled with --set seed=N; assay compare ID gives
each arm's mean, spread and 95% interval over the seeds.

--replay RUN runs the spec again with every LLM answer taken from run
RUN's journal, so a result can be re-run and audited without LLM spend:
no LLM plugin starts, and no request is sent. Calls are matched by their
place in the plan (the call key: phase, task, step, index) and role, and
the run is refused at the first call whose request (model, temperature,
seed, token limits, policy state, payload) differs from the one RUN
journaled, naming the call, the role and what changed. Policy updates are
RUN's too. Real runs are trained again by default (their results may
differ, and the next request that depends on them is then refused);
--replay-runs takes their results from RUN's journal as well, and then no
trainer runs at all. The replayed run counts RUN's LLM dollars as spent,
so caps act as they did. A run of an assay older than replay journals no
requests and is refused. assay resume continues a replayed run as a
replay.

A phase that measured nothing ends the run in state phase_failed, and run
exits with code 5: one in which every build failed, every call of a role
was unparsed (its answers could not be read as the run reads them), or,
where the plan gives it real runs and no cap cut it, no candidate got a
real run. The phases after it do not run. The run's final lines, status
and report name the phase, what failed, and the last distinct reasons
with how often each came. assay check SPEC tries each task's build and
evaluation and each role's answer before any budget is spent.

Exit codes: 0 finished, 1 invalid spec or a failed run, 4 the run ended
but a budget cap cut a phase (stopped_at_cap), 5 a phase measured nothing
(phase_failed), 64 usage error.`,
		Example: `  assay run specs/quickstart.hcl
  assay run --id try1 -var steps=4 specs/small-local.hcl
  assay plan -out try2.plan specs/small-local.hcl && assay run try2.plan
  assay run --all-variants --id sweep1 specs/critic-sweep.hcl && assay compare sweep1
  assay run --seeds 1-5 --id s1 specs/laptop/critic-grpo.hcl && assay compare s1
  assay run --id audit --replay try1 --replay-runs specs/small-local.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if allVariants && rf.variant != "" {
				return &exitError{code: exitUsage, msg: "--all-variants and --variant exclude each other"}
			}
			if parallel < 1 {
				return &exitError{code: exitUsage, msg: fmt.Sprintf("--parallel must be at least 1, got %d", parallel)}
			}
			saved, isSaved, err := readSaved(args[0])
			if err != nil {
				return err
			}
			rp, err := replayFlags(rf.dir, replay, replayRuns, allVariants, seedsFlag)
			if err != nil {
				return err
			}
			if rp != nil && isSaved {
				return &exitError{code: exitUsage, msg: "--replay runs a spec, not a saved plan"}
			}
			if isSaved {
				if len(flags.vars) > 0 || len(flags.varFiles) > 0 || len(flags.sets) > 0 {
					return &exitError{code: exitUsage, msg: "a saved plan runs as it was saved: -var, -var-file and --set cannot change it; save it again with them instead"}
				}
				if allVariants || seedsFlag != "" {
					return &exitError{code: exitUsage, msg: "--all-variants and --seeds run a spec, not a saved plan"}
				}
				return runSaved(c, args[0], saved, id, rf)
			}
			seeds, err := seedsFor(c, args[0], flags, seedsFlag)
			if err != nil {
				return err
			}
			p, src, err := compileFirst(c, args[0], flags, seeds)
			if err != nil {
				return err
			}
			if ds := capDiags(p); ds.HasErrors() {
				printDiags(c.ErrOrStderr(), ds, src)
				return userErrorf("%s", capBroken)
			}
			if err := refuseUnready(c, p, src); err != nil {
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
			abs := absPath(args[0])
			prov := runProvenance(c.ErrOrStderr(), args[0], specFiles(args[0], src), p, pins, flags.overrides(), "")
			meta := map[string]string{"spec": abs, "lock": host.LockPathFor(abs)}
			if seeds != nil {
				return runSeeds(c, ctx, seeds, lock, meta, prov, rf, id, allVariants, parallel)
			}
			if allVariants {
				return runAllVariants(c, ctx, p, lock, meta, prov, rf, id, parallel)
			}
			return startRun(c, ctx, p, lock, runtime.Options{ID: id, Dir: rf.dir, Variant: rf.variant,
				Meta: meta, Provenance: prov, Replay: rp}, rf)
		},
	}
	flags = addSpecFlags(c)
	addSetFlag(c, flags)
	rf = addRunFlags(c)
	c.Flags().StringVar(&id, "id", "", "run id (default: the time and a random suffix)")
	c.Flags().StringVar(&rf.variant, "variant", "", "variant of a sweep to run (default: the first)")
	c.Flags().BoolVar(&allVariants, "all-variants", false, "run every variant of the sweep as one group of runs (ID-v1, ID-v2, ...; --id names the group)")
	c.Flags().IntVar(&parallel, "parallel", 1, "with --all-variants or --seeds: how many runs of the group run at once (each with the executor's concurrency)")
	c.Flags().StringVar(&seedsFlag, "seeds", "", "run once per seed as one group (ID-vI-sN), e.g. 1-5 or 1,3,7 (at most 100 seeds)")
	c.Flags().StringVar(&replay, "replay", "", "take every LLM answer from the journal of run RUN instead of an LLM (no LLM call is made)")
	c.Flags().BoolVar(&replayRuns, "replay-runs", false, "with --replay: take real runs' results from the journal too (no trainer runs)")
	return c
}

func newResumeCmd() *cobra.Command {
	var rf *runFlags
	c := &cobra.Command{
		Use:   "resume ID",
		Short: "Continue an interrupted run",
		Long: `Resume continues run ID from its journal, with the plan saved when it
began (editing the spec afterwards does not change it). Calls whose results
are journaled are not made again; real runs that finished are never run
again; runs that were started but not finished are waited on through their
journaled handle, or started again when the trainer no longer knows them.

One process at a time runs a run: it holds the run's lock
(.assay/runs/ID/journal.db.lock) from start to end, so a second resume of
the same run is refused with the pid, host and start time of the one that
holds it. The lock goes with its process, so a killed run can be resumed at
once. An empty journal (the run stopped before it began) cannot be resumed.

A resume runs the plan the run began with. When the spec (compiled with
the run's -var, -var-file and --set settings) now gives another plan, a
raised tokens.in say, resume says so, where the plans first differ, and
the command that starts a new run of the spec as it is with this run's
answers (assay run --replay ID SPEC, see docs/replay.md), then resumes
the run as it began. A run in state phase_failed is not resumed: its
journal would end it the same way.`,
		Example: `  assay resume 20261130-021500-a1b2c3`,
		Args:    usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			st, err := runtime.ReadStatus(rf.dir, args[0])
			if err != nil {
				return userErrorf("%v", err)
			}
			switch st.State {
			case runtime.StateRunning:
				if h := st.Holder; h != nil {
					return userErrorf("run %s is still running: pid %d on host %s holds it since %s; wait for it to end or stop that process",
						args[0], h.PID, h.Host, h.Since.UTC().Format(time.RFC3339))
				}
				return userErrorf("run %s is still running (its process is alive)", args[0])
			case runtime.StateEmpty:
				return userErrorf("run %s cannot be resumed: %s", args[0], st.Reason)
			case runtime.StatePhaseFailed:
				// Its journal gives every call and build the same outcome
				// again: a resume would end the same way.
				msg := fmt.Sprintf("run %s cannot be resumed: it ended in state %s (%s); a resume keeps the run's plan and its journal, and would end the same way: change the spec and start a new run",
					args[0], st.State, termSafe(st.Reason))
				if note := specChangeNote(st, rf.dir); note != "" {
					msg += "\n" + note
				}
				return &exitError{code: exitPhaseFailed, msg: msg}
			}
			if note := specChangeNote(st, rf.dir); note != "" {
				fmt.Fprintf(c.ErrOrStderr(), "assay: %s\n", note)
			}
			lockPath := st.Meta["lock"]
			if lockPath == "" {
				return userErrorf("run %s does not record its plugin lock", args[0])
			}
			lock, err := host.ReadLock(lockPath)
			if err != nil {
				return userErrorf("%v; run `assay init %s` first", err, st.Meta["spec"])
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return execRun(c, ctx, nil, lock, runtime.Options{ID: args[0], Dir: rf.dir, Resume: true, Variant: st.Variant, Meta: st.Meta}, rf)
		},
	}
	rf = addRunFlags(c)
	return c
}

// runSaved executes a saved plan after checking its pins.
func runSaved(c *cobra.Command, path string, s *plan.Saved, id string, rf *runFlags) error {
	specPath, lock, err := checkSaved(s, path)
	if err != nil {
		return err
	}
	if err := checkPins(lock, s.Plugins); err != nil {
		return userErrorf("%s", withSpec(err, specPath))
	}
	if err := recompileSaved(s, specPath, path); err != nil {
		return userErrorf("%s: refusing the saved plan:\n  %v\nsave the plan again: assay plan -out %s %s", path, err, path, fromWorkDir(specPath))
	}
	if ds := capDiags(s.Plan); ds.HasErrors() {
		printDiags(c.ErrOrStderr(), ds, nil)
		return userErrorf("%s", capBroken)
	}
	if err := refuseUnready(c, s.Plan, nil); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var files []string
	for _, f := range s.Files {
		if filepath.IsAbs(f.Path) {
			files = append(files, f.Path)
		} else {
			files = append(files, filepath.Join(filepath.Dir(path), f.Path))
		}
	}
	prov := runProvenance(c.ErrOrStderr(), specPath, files, s.Plan, s.Plugins, s.Overrides, absPath(path))
	return startRun(c, ctx, s.Plan, lock, runtime.Options{ID: id, Dir: rf.dir, Variant: rf.variant,
		Meta: map[string]string{"spec": specPath, "lock": host.LockPathFor(specPath), "saved_plan": absPath(path)}, Provenance: prov}, rf)
}

// startRun starts a new run of p.
func startRun(c *cobra.Command, ctx context.Context, p *plan.Plan, lock *host.Lock, opts runtime.Options, rf *runFlags) error {
	if len(p.Variants) > 1 && rf.variant == "" {
		fmt.Fprintf(c.ErrOrStderr(), "assay: the spec sweeps %d variants; running %q (choose one with --variant)\n", len(p.Variants), p.Variants[0].Name)
	}
	return execRun(c, ctx, p, lock, opts, rf)
}

func execRun(c *cobra.Command, ctx context.Context, p *plan.Plan, lock *host.Lock, opts runtime.Options, rf *runFlags) error {
	errw := c.ErrOrStderr()
	opts.Progress = errw
	if rf.quiet {
		opts.Progress = nil
	}
	if opts.ID == "" {
		opts.ID = runtime.NewID()
	}
	// The run's directory is made by runtime.Run once the run can begin,
	// before any plugin starts: made here, a run refused at the start
	// would leave it behind.
	logPath := filepath.Join(runtime.RunDir(opts.Dir, opts.ID), "plugins.log")
	opts.Plugins = hostLoader{lock: lock, opts: []host.OpenOption{host.WithLogFile(logPath)}}
	res, err := runtime.Run(ctx, p, opts)
	if res != nil {
		fmt.Fprintf(c.OutOrStdout(), "run %s %s: %d real runs, %s GPU-hours, %s; report: assay report %s\n",
			res.ID, res.State, res.Totals.RealRuns, estimate.FormatNumber(res.Totals.GPUHours), estimate.FormatUSD(res.Totals.USD), res.ID)
		for _, b := range res.Best {
			fmt.Fprintf(c.OutOrStdout(), "best %s: git -C %s checkout %s\n", termSafe(b.Task), termSafe(b.Repository), b.Ref)
		}
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return userErrorf("run %s interrupted; continue it with: assay resume %s", opts.ID, opts.ID)
		}
		if errors.Is(err, plugins.ErrConfig) {
			// The spec's to change: a resume runs the run's own plan again.
			return userErrorf("%v\nchange the spec and start a new run: a resume keeps run %s's plan and would fail the same way; assay check SPEC finds this before any budget is spent", err, opts.ID)
		}
		return userErrorf("%v", err)
	}
	if res != nil && res.State == runtime.StatePhaseFailed {
		return phaseFailedError(res.ID, res.Failures)
	}
	if res != nil && res.State == runtime.StateStoppedAtCap {
		return capCutError(res.ID, res.Cuts)
	}
	return nil
}

// phaseFailedError is the exit of a run a phase that measured nothing
// ended: how, with the last reasons, and a code of its own, so a script
// does not take a run that learnt nothing for one that did.
func phaseFailedError(id string, fs []runtime.PhaseFailure) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s ended in state %s: a phase measured nothing", id, runtime.StatePhaseFailed)
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  phase %s: %s", termSafe(f.Phase), termSafe(f.What))
		for _, r := range f.Reasons {
			fmt.Fprintf(&b, "\n    %dx %s", r.Count, termSafe(r.Message))
		}
	}
	fmt.Fprintf(&b, "\nchange the spec and start a new run (a resume keeps this run's plan); assay check SPEC tries every build and role first")
	return &exitError{code: exitPhaseFailed, msg: b.String()}
}

// replayFlags checks --replay and --replay-runs: the run to replay must
// exist in dir, and a replay is one run of one spec.
func replayFlags(dir, id string, runs, allVariants bool, seeds string) (*runtime.Replay, error) {
	if id == "" {
		if runs {
			return nil, &exitError{code: exitUsage, msg: "--replay-runs needs --replay RUN"}
		}
		return nil, nil
	}
	if allVariants || seeds != "" {
		return nil, &exitError{code: exitUsage, msg: "--replay replays one run: it excludes --all-variants and --seeds"}
	}
	rd := runtime.RunDir(dir, id)
	if _, err := os.Stat(filepath.Join(rd, runtime.JournalFile)); err != nil {
		return nil, userErrorf("--replay %s: no run %s in %s (assay status lists the runs)", termSafe(id), termSafe(id), dir)
	}
	// Absolute: a resume, from wherever it is started, replays the same run.
	return &runtime.Replay{Dir: absPath(rd), Runs: runs}, nil
}

// capCutError is the exit of a run a budget cap cut short: every phase it
// cut, and a code of its own, so a script does not take the figures for
// the plan's.
func capCutError(id string, cuts []runtime.PhaseCut) error {
	var b strings.Builder
	fmt.Fprintf(&b, "run %s stopped at a budget cap: its figures are not the plan's", id)
	for _, c := range cuts {
		fmt.Fprintf(&b, "\n  phase %s %s", termSafe(c.Phase), termSafe(c.Reason))
	}
	return &exitError{code: exitCap, msg: b.String()}
}
