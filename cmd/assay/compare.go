package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/compiler/diff"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/compare"
)

func init() { rootCmd.AddCommand(newCompareCmd()) }

func newCompareCmd() *cobra.Command {
	var dir, format string
	var armsOnly bool
	c := &cobra.Command{
		Use:   "compare ID... [--format table|json|markdown|csv] [--arms]",
		Short: "Set runs side by side: overrides, plan hashes, real runs, dollars and results",
		Long: `Compare reads the journals of the runs named (an ID may also be the group
id of assay run --all-variants or --seeds, standing for every run of the group) and
sets them side by side, one row per run:

  run, variant, seed    the run, the variant of its plan it ran, its seed
  overrides             the fields the variant's sweep axes and --set
                        changed, PATH=VALUE
  plan hash             the hash of the plan as it applies to the run's
                        variant: each variant of a sweep has its own
  state                 running, finished, failed or interrupted
  replay of             the run a replay (run --replay) took its answers
                        from
  real runs, GPU-hours  real runs reserved against the budget, their hours
  dollars               real runs and LLM calls once the run ended (while it
                        runs: the real runs' reserved dollars)
  best gain             the best real gain of a proposal that ran for real
  Avg@k, Best@k         the last evaluation's figures
  cal. MAE              the world model's mean absolute error at the last
                        calibration round
  routed                the share of judged candidates the critic routed to
                        a real run, beside the expected_routed the plan
                        assumed

A run is followed by its tasks (in JSON "tasks"): each one's baseline
metric, the metric every gain is measured against, and in source mode the
seed commit, the best verified program's gain and commit, and the command
that checks it out. A run in source mode is then followed by its built
candidates (the last 20; in JSON every one, under "candidates"): each
candidate's key, task, commit, diffstat (files changed, lines added and
removed), the metric and real gain its real run measured (blank where no
real run measured it), and idea; a candidate whose run failed in its code
and was repaired shows its attempts in JSON. assay patch ID CANDIDATE
prints one's diff.

A figure the run did not measure is blank (in JSON: absent), never 0. The
table and Markdown leave out columns blank in every row; CSV keeps every
column, with plain numbers (usd, routed_share and expected_routed as
fractions) under the JSON field names: avg_at_k and best_at_k are the
figures Avg@k and Best@k, avg_k and best_k their k. Journals are read read-only, so compare works while runs go on.

Arms over seeds. The finished runs that ran the same plan and variant
with the same overrides but for the seed (run --seeds) make one arm; a run
that has not finished is left out. For each arm and each figure some run
of it measured (real_runs, gpu_hours, usd, best_real_gain, avg_at_k,
best_at_k, calibration_mae, routed_share), compare gives:

  n                     the seeds that measured it
  mean, sd              the mean and the sample standard deviation (n-1)
  95% CI                the Student t interval on the mean,
                        mean ± t(0.975, n-1)·sd/√n; a figure of one seed
                        has none and says "n=1, no interval"
  diff vs ARM           the arm's mean less the first arm's
  Welch 95% CI          Welch's t interval for that difference:
                        diff ± t(0.975, df)·√(sd1²/n1 + sd2²/n2), df by
                        Welch–Satterthwaite; "differs" marks a difference
                        only where this interval excludes zero, and an arm
                        of one seed has no interval

The t quantiles come from a table (1 to 30, 40, 60 and 120 degrees of
freedom), interpolated in 1/df between entries; the interpolation errs
towards wider intervals. The table and Markdown follow the runs with the
arms when there are several arms or an arm of several seeds; --arms writes
the arms alone, in every format, one row per arm and figure (CSV and JSON:
arm, figure, n, mean, sd, ci95_low, ci95_high, note, vs_arm, diff,
diff_ci95_low, diff_ci95_high, differs; JSON also values, each seed's
figure).

Exit codes: 0 ok, 1 a run or group does not exist or cannot be read,
64 usage error.`,
		Example: `  assay compare 20261130-021500-a1b2c3        # a group from run --all-variants
  assay compare try1 try2 --format markdown
  assay compare --format csv sweep1 > sweep1.csv
  assay compare --arms --format csv seeds1 > seeds1-arms.csv`,
		Args: usageArgs(1, -1),
		RunE: func(c *cobra.Command, args []string) error {
			write, ok := compareWriters[format]
			if !ok {
				return &exitError{code: exitUsage, msg: fmt.Sprintf("--format must be table, json, markdown or csv, not %q", format)}
			}
			rows, err := compare.Load(dir, args)
			if err != nil {
				return userErrorf("%v", err)
			}
			arms := compare.Arms(rows)
			if armsOnly {
				write := armsWriters[format]
				if format == "json" || format == "csv" {
					return write(c.OutOrStdout(), arms)
				}
				return writeEscaped(c.OutOrStdout(), func(w io.Writer) error { return write(w, arms) })
			}
			if format == "json" || format == "csv" {
				return write(c.OutOrStdout(), rows)
			}
			return writeEscaped(c.OutOrStdout(), func(w io.Writer) error {
				if err := write(w, rows); err != nil {
					return err
				}
				defer writeCompareCandidates(w, rows, format == "markdown")
				if !showArms(rows, arms) {
					return nil
				}
				if format == "markdown" {
					fmt.Fprintf(w, "\n%s\n\n", armsNote)
				} else {
					fmt.Fprintf(w, "\n%s\n", armsNote)
				}
				return armsWriters[format](w, arms)
			})
		},
	}
	c.Flags().StringVar(&dir, "dir", runtime.DefaultDir, "directory that holds runs")
	c.Flags().StringVar(&format, "format", "table", "output format: table, json, markdown or csv")
	c.Flags().BoolVar(&armsOnly, "arms", false, "write the arms' statistics over seeds (one row per arm and figure) instead of the runs")
	return c
}

var compareWriters = map[string]func(io.Writer, []*compare.Row) error{
	"table":    writeCompareTable,
	"markdown": writeCompareMarkdown,
	"csv":      writeCompareCSV,
	"json":     func(w io.Writer, rows []*compare.Row) error { return writeJSON(w, rowsOrEmpty(rows)) },
}

func rowsOrEmpty(rows []*compare.Row) []*compare.Row {
	if rows == nil {
		return []*compare.Row{}
	}
	return rows
}

// compareColumn is one column of the comparison: its header, and its cell
// of a row ("" when the run did not measure it).
type compareColumn struct {
	head string
	cell func(*compare.Row) string
}

// compareColumns are the columns for people (short: hashes cut, dollars
// and shares formatted, k in the Avg@k header when all rows share it), or
// for a spreadsheet (!short: whole hashes, plain numbers, fixed headers,
// the routed share and expected_routed in columns of their own).
// suiteColumns are a column per normalised task-suite score any row has,
// in the order the first run that has it lists it.
func suiteColumns(rows []*compare.Row, short bool) []compareColumn {
	return namedColumns(rows, short, func(r *compare.Row) []compare.SuiteScore { return r.Suite }, "norm ", "suite_normalised.")
}

// namedColumns are a column per named figure of(row) any row has, in the
// order the first run that has it lists it.
func namedColumns(rows []*compare.Row, short bool, of func(*compare.Row) []compare.SuiteScore, shortPrefix, longPrefix string) []compareColumn {
	var out []compareColumn
	seen := map[string]bool{}
	for _, r := range rows {
		for _, sc := range of(r) {
			if seen[sc.Name] {
				continue
			}
			seen[sc.Name] = true
			name := sc.Name
			head := shortPrefix + name
			if !short {
				head = longPrefix + strings.ReplaceAll(name, " ", "_")
			}
			out = append(out, compareColumn{head, func(r *compare.Row) string {
				for _, x := range of(r) {
					if x.Name == name {
						if short {
							return figure(x.Value)
						}
						return plain(x.Value)
					}
				}
				return ""
			}})
		}
	}
	return out
}

func compareColumns(rows []*compare.Row, short bool) []compareColumn {
	cols := append(baseColumns(rows, short), suiteColumns(rows, short)...)
	return append(cols, namedColumns(rows, short, func(r *compare.Row) []compare.SuiteScore { return r.CriticEval }, "", "critic_eval.")...)
}

func baseColumns(rows []*compare.Row, short bool) []compareColumn {
	if !short {
		return []compareColumn{
			{"run", func(r *compare.Row) string { return r.ID }},
			{"group", func(r *compare.Row) string { return r.Group }},
			{"variant", func(r *compare.Row) string { return r.Variant }},
			{"seed", func(r *compare.Row) string { return strconv.FormatInt(r.Seed, 10) }},
			{"overrides", func(r *compare.Row) string { return overridesText(r.Overrides) }},
			{"plan_hash", func(r *compare.Row) string { return r.PlanHash }},
			{"state", func(r *compare.Row) string { return r.State }},
			{"real_runs", func(r *compare.Row) string { return strconv.Itoa(r.RealRuns) }},
			{"gpu_hours", func(r *compare.Row) string { return plain(&r.GPUHours) }},
			{"usd", func(r *compare.Row) string { return plain(&r.USD) }},
			{"best_real_gain", func(r *compare.Row) string { return plain(r.BestGain) }},
			{"avg_k", func(r *compare.Row) string { return whole(r.AvgAt) }},
			{"avg_at_k", func(r *compare.Row) string { return plain(r.Avg) }},
			{"best_k", func(r *compare.Row) string { return whole(r.BestAt) }},
			{"best_at_k", func(r *compare.Row) string { return plain(r.Best) }},
			{"calibration_mae", func(r *compare.Row) string { return plain(r.CalibrationMAE) }},
			{"routed_share", func(r *compare.Row) string { return plain(r.RoutedShare) }},
			{"expected_routed", func(r *compare.Row) string { return plain(r.ExpectedRouted) }},
			{"replay_of", func(r *compare.Row) string { return r.ReplayOf }},
		}
	}
	k := func(get func(*compare.Row) int, name string) string {
		seen := map[int]bool{}
		for _, r := range rows {
			if n := get(r); n > 0 {
				seen[n] = true
			}
		}
		if len(seen) == 1 {
			for n := range seen {
				return fmt.Sprintf("%s@%d", name, n)
			}
		}
		return name + "@k"
	}
	hash := func(r *compare.Row) string {
		if len(r.PlanHash) > 19 {
			return r.PlanHash[:19]
		}
		return r.PlanHash
	}
	return []compareColumn{
		{"run", func(r *compare.Row) string { return r.ID }},
		{"variant", func(r *compare.Row) string { return r.Variant }},
		{"seed", func(r *compare.Row) string { return strconv.FormatInt(r.Seed, 10) }},
		{"overrides", func(r *compare.Row) string { return overridesText(r.Overrides) }},
		{"plan hash", hash},
		{"state", func(r *compare.Row) string { return r.State }},
		{"replay of", func(r *compare.Row) string { return r.ReplayOf }},
		{"real runs", func(r *compare.Row) string { return strconv.Itoa(r.RealRuns) }},
		{"GPU-hours", func(r *compare.Row) string { return estimate.FormatNumber(r.GPUHours) }},
		{"dollars", func(r *compare.Row) string { return estimate.FormatUSD(r.USD) }},
		{"best gain", func(r *compare.Row) string { return figure(r.BestGain) }},
		{k(func(r *compare.Row) int { return r.AvgAt }, "Avg"), func(r *compare.Row) string { return figure(r.Avg) + askedK(r.AvgGot, r.AvgAt) }},
		{k(func(r *compare.Row) int { return r.BestAt }, "Best"), func(r *compare.Row) string { return figure(r.Best) + askedK(r.BestGot, r.BestAt) }},
		{"cal. MAE", func(r *compare.Row) string { return figure(r.CalibrationMAE) }},
		{"routed", func(r *compare.Row) string {
			if r.RoutedShare == nil {
				return ""
			}
			s := share(*r.RoutedShare)
			if r.ExpectedRouted != nil {
				s += " (expected " + share(*r.ExpectedRouted) + ")"
			}
			return s
		}},
	}
}

// nonBlank keeps the columns with a cell in some row.
func nonBlank(cols []compareColumn, rows []*compare.Row) []compareColumn {
	var out []compareColumn
	for _, c := range cols {
		for _, r := range rows {
			if c.cell(r) != "" {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func figure(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'g', 4, 64)
}

// plain is a number as a spreadsheet reads it, or "" when not measured.
func plain(x *float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

func whole(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func share(x float64) string { return strconv.FormatFloat(x*100, 'f', 1, 64) + "%" }

func overridesText(ov map[string]any) string {
	keys := make([]string, 0, len(ov))
	for k := range ov {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + diff.FormatValue(ov[k])
	}
	return strings.Join(parts, " ")
}

func writeCompareTable(w io.Writer, rows []*compare.Row) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "no runs")
		return err
	}
	cols := nonBlank(compareColumns(rows, true), rows)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = strings.ToUpper(c.head)
	}
	fmt.Fprintln(tw, strings.Join(heads, "\t"))
	for _, r := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = termSafe(c.cell(r))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func writeCompareMarkdown(w io.Writer, rows []*compare.Row) error {
	cols := nonBlank(compareColumns(rows, true), rows)
	heads := make([]string, len(cols))
	rule := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
		rule[i] = "---"
		if i >= 6 {
			rule[i] = "---:"
		}
	}
	fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(heads, " | "), strings.Join(rule, " | "))
	for _, r := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = mdCell(c.cell(r))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	return nil
}

// mdCell keeps a cell on its row: pipes escaped, line breaks as spaces,
// code spans for values that hold Markdown characters.
func mdCell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
	if strings.ContainsAny(s, "*_`[]<>") {
		s = "`" + strings.ReplaceAll(s, "`", "'") + "`"
	}
	return s
}

func writeCompareCSV(w io.Writer, rows []*compare.Row) error {
	cols := compareColumns(rows, false)
	cw := csv.NewWriter(w)
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
	}
	if err := cw.Write(heads); err != nil {
		return err
	}
	for _, r := range rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = csvSafe(c.cell(r))
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// askedK marks a figure some state measured fewer than k proposals for:
// it is no figure at k.
func askedK(got *int, k int) string {
	if got == nil || *got >= k {
		return ""
	}
	return fmt.Sprintf(" (@%d of %d asked)", *got, k)
}
