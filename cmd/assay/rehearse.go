package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/features/rehearse"
)

func init() { rootCmd.AddCommand(newRehearseCmd()) }

func newRehearseCmd() *cobra.Command {
	var (
		runs      int
		seed      int64
		world     string
		variant   string
		interrupt bool
		asJSON    bool
		keep      string
		report    string
	)
	var flags *specFlags
	c := &cobra.Command{
		Use:   "rehearse [--runs N] [--world FILE] [--json] SPEC",
		Short: "Execute a spec's whole plan in a simulated world and check it against its estimate",
		Long: `Rehearse compiles SPEC and executes its whole plan with simulated trainers,
LLMs and benchmarks on a virtual clock: nothing sleeps, no GPU or network is
used, but every call and run goes through the runtime's own code (budget
reservations, calibration rounds, critic routing, caps, resume, the
journal, kept in memory unless --dir keeps the run folders). Outcomes are
drawn from a simulated world: a proposal's gain per environment, the
critic's accuracy and how often it is unsure, the world model's noise,
build failures, the hours of a run. By default the world
keeps to the assumptions the spec states (build failures, hours per run and
a critic's routed share within their ranges); --world FILE sets the
distributions (see docs/rehearse.md).

With --runs N it repeats with N world seeds and shows, per figure, the least,
median and most over the rehearsals beside the estimate's low, expected and
high, marking OUTSIDE any figure a rehearsal put outside [low, high]. With
--interrupt each rehearsal is stopped at a random call or run and resumed
from its journal, so resume is rehearsed too.

--json prints the figure names of 'assay estimate --format json', each as
{low, expected, high} = least, median and most over the rehearsals, with
rehearsals (the count), caps_held and outside.

Exit codes: 0 every cap held and every figure within the estimate, 1 an
invalid spec or world file, a cap exceeded, a figure outside the estimate or
a rehearsal that failed, 64 usage error.`,
		Example: `  assay rehearse specs/lm2lm.hcl
  assay rehearse --runs 5 --interrupt specs/critic-grpo.hcl
  assay rehearse --world pessimistic.world.hcl --json specs/lm2lm.hcl`,
		Args: usageArgs(1, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if runs < 1 {
				return &exitError{code: exitUsage, msg: fmt.Sprintf("--runs must be 1 or more, not %d", runs)}
			}
			p, src, err := mustCompile(c, args[0], flags)
			if err != nil {
				return err
			}
			opts := rehearse.Options{Variant: variant, Runs: runs, Seed: seed, Interrupt: interrupt, Dir: keep}
			if world != "" {
				wf, ds := rehearse.LoadWorld(world)
				printDiags(c.ErrOrStderr(), ds, src)
				if ds.HasErrors() {
					return silentFailure()
				}
				for _, v := range p.Variants {
					if variant == "" || v.Name == variant {
						cds := wf.Check(v)
						printDiags(c.ErrOrStderr(), cds, src)
						if cds.HasErrors() {
							return silentFailure()
						}
						break
					}
				}
				opts.World = wf
			}
			defer collectLess()()
			rep, err := rehearse.Rehearse(c.Context(), p, opts)
			if err != nil {
				return userErrorf("rehearse: %v", err)
			}
			if asJSON {
				err = rehearse.WriteJSON(c.OutOrStdout(), rep)
			} else {
				err = writeEscaped(c.OutOrStdout(), func(w io.Writer) error {
					if err := rehearse.WriteTable(w, rep); err != nil {
						return err
					}
					rehearse.WriteSpread(w, rep)
					return nil
				})
			}
			if err != nil {
				return err
			}
			if report != "" {
				if err := writeReportFile(report, rep); err != nil {
					return userErrorf("rehearse: --report: %v", err)
				}
			}
			if !rep.CapsHeld || len(rep.Outside()) > 0 {
				return silentFailure()
			}
			return nil
		},
	}
	flags = addSpecFlags(c)
	c.Flags().IntVar(&runs, "runs", 1, "how many rehearsals, each with its own world seed")
	c.Flags().Int64Var(&seed, "seed", 1, "the first world seed")
	c.Flags().StringVar(&world, "world", "", "a world file (HCL) that sets the simulated distributions")
	c.Flags().StringVar(&variant, "variant", "", "the variant of a sweep to rehearse (default: the first)")
	c.Flags().BoolVar(&interrupt, "interrupt", false, "stop each rehearsal at a random call or run and resume it from its journal")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&report, "report", "", "also write an HTML report (a plot of every figure's spread) to this file")
	c.Flags().StringVar(&keep, "dir", "", "keep the rehearsals' run folders (journals) here instead of a temporary folder")
	return c
}

// rehearsalGCPercent is the collector's target while rehearsals run: a
// rehearsal allocates quickly but keeps little, and at the default (100)
// collecting took about a sixth of its CPU. It costs some tens of MiB.
const rehearsalGCPercent = 400

// collectLess sets the collector's target for rehearsing, unless GOGC sets
// one, and returns what restores it.
func collectLess() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(rehearsalGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// writeReportFile writes the HTML report, replacing path only once it is
// whole.
func writeReportFile(path string, rep *rehearse.Report) error {
	var b bytes.Buffer
	if err := rehearse.WriteHTML(&b, rep); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
