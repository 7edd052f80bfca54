package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/assay-lang/assay/runtime/compare"
)

// armsNote is the line over the arms table: what its intervals are.
const armsNote = "Arms over seeds: mean, sample standard deviation and 95% Student t interval on the mean; a difference is the arm's mean less the first arm's, with Welch's 95% t interval, marked only where that interval excludes zero."

// armColumn is one column of the arms table: its header for people, its
// CSV header, and its cell.
type armColumn struct {
	head, csv string
	cell      func(*compare.ArmFigure) string
	short     func(*compare.ArmFigure) string
}

func armColumns(arms []*compare.ArmFigure) []armColumn {
	vs := "diff"
	for _, a := range arms {
		if a.Versus != "" {
			vs = "diff vs " + a.Versus
			break
		}
	}
	return []armColumn{
		{"arm", "arm", func(a *compare.ArmFigure) string { return a.Arm }, nil},
		{"figure", "figure", func(a *compare.ArmFigure) string { return a.Figure },
			func(a *compare.ArmFigure) string { return figureNames[a.Figure] }},
		{"n", "n", func(a *compare.ArmFigure) string { return strconv.Itoa(a.N) }, nil},
		{"mean", "mean", func(a *compare.ArmFigure) string { return plain(&a.Mean) },
			func(a *compare.ArmFigure) string { return figure(&a.Mean) }},
		{"sd", "sd", func(a *compare.ArmFigure) string { return plain(a.SD) },
			func(a *compare.ArmFigure) string { return figure(a.SD) }},
		{"95% CI", "ci95_low", func(a *compare.ArmFigure) string { return plain(a.Low) },
			func(a *compare.ArmFigure) string {
				if a.Low == nil {
					return a.Note
				}
				return figure(a.Low) + " to " + figure(a.High)
			}},
		{"", "ci95_high", func(a *compare.ArmFigure) string { return plain(a.High) }, nil},
		{"", "note", func(a *compare.ArmFigure) string { return a.Note }, nil},
		{"", "vs_arm", func(a *compare.ArmFigure) string { return a.Versus }, nil},
		{vs, "diff", func(a *compare.ArmFigure) string { return plain(a.Diff) },
			func(a *compare.ArmFigure) string {
				if a.Diff == nil {
					return ""
				}
				return signed(*a.Diff)
			}},
		{"Welch 95% CI", "diff_ci95_low", func(a *compare.ArmFigure) string { return plain(a.DiffLow) },
			func(a *compare.ArmFigure) string {
				switch {
				case a.Diff == nil:
					return ""
				case a.DiffLow == nil:
					return "no interval (n=1)"
				}
				s := signed(*a.DiffLow) + " to " + signed(*a.DiffHigh)
				if a.Differs {
					s += " differs"
				}
				return s
			}},
		{"", "diff_ci95_high", func(a *compare.ArmFigure) string { return plain(a.DiffHigh) }, nil},
		{"", "differs", func(a *compare.ArmFigure) string { return strconv.FormatBool(a.Differs) }, nil},
	}
}

// figureNames are the arms' figures as the runs table heads them.
var figureNames = map[string]string{
	"real_runs": "real runs", "gpu_hours": "GPU-hours", "usd": "dollars", "best_real_gain": "best gain",
	"avg_at_k": "Avg@k", "best_at_k": "Best@k", "calibration_mae": "cal. MAE", "routed_share": "routed share",
}

func signed(x float64) string {
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if x >= 0 {
		s = "+" + s
	}
	return s
}

// peopleArmColumns are the columns the table and Markdown show (an
// interval in one cell, blank columns left out).
func peopleArmColumns(arms []*compare.ArmFigure) []armColumn {
	var out []armColumn
	for _, c := range armColumns(arms) {
		if c.head == "" {
			continue
		}
		if c.short != nil {
			c.cell = c.short
		}
		for _, a := range arms {
			if c.cell(a) != "" {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

func writeArmsTable(w io.Writer, arms []*compare.ArmFigure) error {
	if len(arms) == 0 {
		_, err := fmt.Fprintln(w, "no finished runs to summarize")
		return err
	}
	cols := peopleArmColumns(arms)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = strings.ToUpper(c.head)
	}
	fmt.Fprintln(tw, strings.Join(heads, "\t"))
	for _, a := range arms {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = termSafe(c.cell(a))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func writeArmsMarkdown(w io.Writer, arms []*compare.ArmFigure) error {
	cols := peopleArmColumns(arms)
	heads := make([]string, len(cols))
	rule := make([]string, len(cols))
	for i, c := range cols {
		heads[i], rule[i] = mdCell(c.head), "---"
		if i >= 2 {
			rule[i] = "---:"
		}
	}
	fmt.Fprintf(w, "| %s |\n| %s |\n", strings.Join(heads, " | "), strings.Join(rule, " | "))
	for _, a := range arms {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = mdCell(c.cell(a))
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	return nil
}

func writeArmsCSV(w io.Writer, arms []*compare.ArmFigure) error {
	cols := armColumns(arms)
	cw := csv.NewWriter(w)
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.csv
	}
	if err := cw.Write(heads); err != nil {
		return err
	}
	for _, a := range arms {
		cells := make([]string, len(cols))
		for i, c := range cols {
			cells[i] = csvSafe(c.cell(a))
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

var armsWriters = map[string]func(io.Writer, []*compare.ArmFigure) error{
	"table":    writeArmsTable,
	"markdown": writeArmsMarkdown,
	"csv":      writeArmsCSV,
	"json": func(w io.Writer, arms []*compare.ArmFigure) error {
		if arms == nil {
			arms = []*compare.ArmFigure{}
		}
		return writeJSON(w, arms)
	},
}

// showArms reports whether the runs table of people is followed by the
// arms: when the runs make more than one arm, or an arm of several seeds.
func showArms(rows []*compare.Row, arms []*compare.ArmFigure) bool {
	if len(arms) == 0 {
		return false
	}
	names := map[string]bool{}
	for _, a := range arms {
		names[a.Arm] = true
		if a.N > 1 {
			return true
		}
	}
	return len(names) > 1
}
