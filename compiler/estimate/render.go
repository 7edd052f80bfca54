package estimate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/assay-lang/assay/compiler/plan"
)

// FormatNumber renders a count with thousands separators: whole numbers
// from 100 up, one decimal from 10, two below.
func FormatNumber(x float64) string {
	if math.IsInf(x, 1) {
		return "unbounded"
	}
	x = round6(x)
	switch a := math.Abs(x); {
	case a >= 100 || x == math.Trunc(x):
		return group(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
	case a >= 10:
		return trimZeros(strconv.FormatFloat(x, 'f', 1, 64))
	default:
		return trimZeros(strconv.FormatFloat(x, 'f', 2, 64))
	}
}

// FormatUSD renders dollars: whole dollars from $1,000 up, cents below.
func FormatUSD(x float64) string {
	if math.IsInf(x, 1) {
		return "unbounded"
	}
	x = round6(x)
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	if x >= 1000 {
		return sign + "$" + group(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
	}
	if x > 0 && x < 0.01 {
		// A cap of $0.001 reads as such, not as "$0.00".
		return sign + "$" + strconv.FormatFloat(x, 'g', 3, 64)
	}
	return sign + "$" + strconv.FormatFloat(x, 'f', 2, 64)
}

// formatAssumed prints an assumed figure: a share or a small number to four
// significant digits (a routed share of 0.363 is not 0.36), a large one as
// FormatNumber does.
func formatAssumed(x float64) string {
	if math.IsInf(x, 1) {
		return "unbounded"
	}
	if math.Abs(x) < 100 {
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return FormatNumber(x)
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// group inserts thousands separators into an integer string.
func group(s string) string {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatCount renders expected, followed by (low – high) only where they
// differ once rounded.
func formatCount(c plan.Count, f func(float64) string) string {
	e, lo, hi := f(c.Expected), f(c.Low), f(c.High)
	if lo == e && hi == e {
		return e
	}
	return fmt.Sprintf("%s (%s – %s)", e, lo, hi)
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// section is a titled table: a header row and rows of cells.
type section struct {
	title  string
	header []string
	rows   [][]string
}

func totalsRows(t *Totals) [][]string {
	return [][]string{
		{"real runs", formatCount(t.RealRuns, FormatNumber)},
		{"GPU-hours", formatCount(t.GPUHours, FormatNumber)},
		{"LLM calls", formatCount(t.LLMCalls, FormatNumber)},
		{"LLM tokens", formatCount(t.LLMTokens, FormatNumber)},
		{"dollars, GPU", formatCount(t.USDGPU, FormatUSD)},
		{"dollars, LLM", formatCount(t.USDLLM, FormatUSD)},
		{"dollars, total", formatCount(t.USD, FormatUSD)},
		{"wall-clock hours", formatCount(t.WallHours, FormatNumber)},
	}
}

func sections(r *Report) []section {
	var out []section
	// A sweep's figures beyond its variants' rows are sums: what running
	// every variant once, as a group, costs. Their titles say so.
	title, summed := "Totals", ""
	if len(r.Variants) > 0 {
		summed = fmt.Sprintf(", summed over %d variants", len(r.Variants))
		title = fmt.Sprintf("Totals of the sweep: the sum over its %d variants, each run once, one after another", len(r.Variants))
	}
	out = append(out, section{title, []string{"", "estimate"}, totalsRows(&r.Totals)})
	if len(r.GPUHoursByType) > 0 {
		s := section{title: "GPU-hours by type" + summed, header: []string{"GPU", "GPU-hours"}}
		for _, k := range sortedKeys(r.GPUHoursByType) {
			s.rows = append(s.rows, []string{k, formatCount(r.GPUHoursByType[k], FormatNumber)})
		}
		out = append(out, s)
	}
	if len(r.Roles) > 0 {
		s := section{title: "LLM roles" + summed, header: []string{"role", "calls", "tokens in", "tokens out", "dollars"}}
		for _, k := range sortedKeys(r.Roles) {
			x := r.Roles[k]
			s.rows = append(s.rows, []string{k, formatCount(x.Calls, FormatNumber), formatCount(x.TokensIn, FormatNumber), formatCount(x.TokensOut, FormatNumber), formatCount(x.USD, FormatUSD)})
		}
		out = append(out, s)
	}
	if len(r.Loops) > 0 {
		out = append(out, loopSections(r)...)
	}
	if len(r.CriticUpdates) > 0 {
		out = append(out, criticSection(r))
	}
	if len(r.Environments) > 0 {
		s := section{title: "Environments" + summed, header: []string{"environment", "real runs", "GPU-hours", "dollars"}}
		for _, k := range sortedKeys(r.Environments) {
			x := r.Environments[k]
			s.rows = append(s.rows, []string{k, formatCount(x.RealRuns, FormatNumber), formatCount(x.GPUHours, FormatNumber), formatCount(x.USD, FormatUSD)})
		}
		out = append(out, s)
	}
	if len(r.Phases) > 0 {
		s := section{title: "Phases", header: []string{"phase", "real runs", "LLM calls", "dollars", "wall-clock hours"}}
		for _, p := range r.Phases {
			s.rows = append(s.rows, []string{p.Name, formatCount(p.RealRuns, FormatNumber), formatCount(p.LLMCalls, FormatNumber), formatCount(p.USD, FormatUSD), formatCount(p.WallHours, FormatNumber)})
		}
		out = append(out, s)
	}
	if ds := dataSection(r); len(ds.rows) > 0 {
		out = append(out, ds)
	}
	if len(r.Assumptions) > 0 {
		s := section{title: "Assumptions", header: []string{"assumption", "value", "from", "affects"}}
		for _, a := range r.Assumptions {
			from := a.From
			if a.Note != "" {
				from += " (" + a.Note + ")"
			}
			s.rows = append(s.rows, []string{a.Name, formatCount(a.Value, formatAssumed), from, a.Affects})
		}
		out = append(out, s)
	}
	if len(r.Predicted) > 0 {
		s := section{title: "Run " + r.FromRun + ": predicted from its own measurements, and actual", header: []string{"figure", "predicted", "actual", "error"}}
		for _, p := range r.Predicted {
			f := formatAssumed
			if strings.Contains(p.Figure, "usd") {
				f = FormatUSD
			}
			s.rows = append(s.rows, []string{p.Figure, f(p.Predicted), f(p.Actual), fmt.Sprintf("%+.1f%%", 100*p.Error)})
		}
		out = append(out, s)
	}
	if len(r.Variants) > 0 {
		s := section{title: "Variants, one run each", header: []string{"variant", "real runs", "GPU-hours", "LLM calls", "dollars", "wall-clock hours"}}
		for _, v := range r.Variants {
			t := &v.Totals
			s.rows = append(s.rows, []string{v.Name, formatCount(t.RealRuns, FormatNumber), formatCount(t.GPUHours, FormatNumber), formatCount(t.LLMCalls, FormatNumber), formatCount(t.USD, FormatUSD), formatCount(t.WallHours, FormatNumber)})
		}
		out = append(out, s)
	}
	return out
}

// loopSections are the Loops and Policy updates sections. A sweep's loops
// differ by variant (a swept step count), so each variant has its rows,
// and the sum over the variants has rows named so.
func loopSections(r *Report) []section {
	type part struct {
		label string
		loops map[string]*Loop
	}
	parts := []part{{"", r.Loops}}
	head := "loop"
	if len(r.Variants) > 0 {
		head = "variant / loop"
		parts = parts[:0]
		for _, v := range r.Variants {
			parts = append(parts, part{v.Name + " / ", v.Loops})
		}
		parts = append(parts, part{fmt.Sprintf("sum of %d variants / ", len(r.Variants)), r.Loops})
	}
	s := section{title: "Loops", header: []string{head, "steps", "candidates", "real runs"}}
	u := section{title: "Policy updates", header: []string{head, "updates", "GPU-hours", "dollars"}}
	for _, pt := range parts {
		for _, k := range sortedKeys(pt.loops) {
			x := pt.loops[k]
			s.rows = append(s.rows, []string{pt.label + k, formatCount(x.Steps, FormatNumber), formatCount(x.Candidates, FormatNumber), formatCount(x.RealRuns, FormatNumber)})
			if up := x.Updates; up != nil {
				u.rows = append(u.rows, []string{pt.label + k, formatCount(up.Count, FormatNumber), formatCount(up.GPUHours, FormatNumber), formatCount(up.USD, FormatUSD)})
			}
		}
	}
	if len(u.rows) > 0 {
		return []section{s, u}
	}
	return []section{s}
}

// WriteTable writes the report as aligned plain-text tables for a terminal.
// A figure shows "expected (low – high)" where the three differ.
func WriteTable(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "Estimate of %s\n", r.Plan)
	for _, s := range sections(r) {
		// Names read best left-aligned and figures right-aligned; padding
		// the name column to one width gets both from one tabwriter.
		width := len(s.header[0])
		for _, row := range s.rows {
			width = max(width, len(row[0]))
		}
		line := func(cells []string) {
			c := append([]string{fmt.Sprintf("%-*s", width, cells[0])}, cells[1:]...)
			fmt.Fprintf(tw, "%s\t\n", strings.Join(c, "\t"))
		}
		fmt.Fprintf(tw, "\n%s\n", s.title)
		line(s.header)
		for _, row := range s.rows {
			line(row)
		}
		// tabwriter aligns runs of lines; flushing per section keeps each
		// section's columns independent.
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// WriteMarkdown writes the report as Markdown tables, for pull requests and
// lab notebooks.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Estimate of %s\n", r.Plan)
	for _, s := range sections(r) {
		fmt.Fprintf(&b, "\n## %s\n\n", s.title)
		header := append([]string(nil), s.header...)
		if header[0] == "" {
			header[0] = " "
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(header, " | "))
		align := make([]string, len(header))
		for i := range align {
			align[i] = "---:"
		}
		align[0] = "---"
		fmt.Fprintf(&b, "| %s |\n", strings.Join(align, " | "))
		for _, row := range s.rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// dataSection is what each evaluated arm's data cost (DataCost), by
// variant in a sweep.
func dataSection(r *Report) section {
	s := section{title: "Data generation: the policy's real runs and calls before the evaluation (no policy updates), an in-context arm's K records at a seed record's cost",
		header: []string{"arm", "records", "GPU-hours", "dollars", "run hours, one after another", "wall-clock hours"}}
	add := func(label string, dcs []*DataCost) {
		for _, d := range dcs {
			s.rows = append(s.rows, []string{label + d.Arm, formatCount(d.Records, FormatNumber), formatCount(d.GPUHours, FormatNumber), formatCount(d.USD, FormatUSD), formatCount(d.RunHours, FormatNumber), formatCount(d.WallHours, FormatNumber)})
		}
	}
	add("", r.DataCost)
	for _, v := range r.Variants {
		add(v.Name+" / ", v.DataCost)
	}
	return s
}
