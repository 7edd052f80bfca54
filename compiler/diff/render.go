package diff

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
)

// conciseFields is how many field changes the concise views list.
const conciseFields = 12

// headline totals appear in Markdown even when they did not move.
var headline = map[string]bool{"real_runs": true, "gpu_hours": true, "usd": true, "llm_calls": true, "wall_hours": true}

var labels = map[string]string{
	"real_runs":  "real runs",
	"gpu_hours":  "GPU-hours",
	"usd":        "dollars",
	"usd_gpu":    "GPU dollars",
	"usd_llm":    "LLM dollars",
	"llm_calls":  "LLM calls",
	"llm_tokens": "LLM tokens",
	"wall_hours": "wall hours",
}

// Label is a delta's name for people.
func Label(metric string) string {
	if l, ok := labels[metric]; ok {
		return l
	}
	return metric
}

func isUSD(metric string) bool { return strings.HasPrefix(metric, "usd") }

func formatFigure(metric string, x float64) string {
	if isUSD(metric) {
		return estimate.FormatUSD(x)
	}
	if strings.HasPrefix(metric, "assumptions.") && math.Abs(x) < 100 {
		// A share reads to four digits: 0.363, not 0.36.
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return estimate.FormatNumber(x)
}

// FormatCount renders expected, with (low – high) where they differ.
func FormatCount(metric string, c plan.Count) string {
	e, lo, hi := formatFigure(metric, c.Expected), formatFigure(metric, c.Low), formatFigure(metric, c.High)
	if lo == e && hi == e {
		return e
	}
	return fmt.Sprintf("%s (%s – %s)", e, lo, hi)
}

// FormatDelta renders a delta as "+$11,800 (+29%)"; "0" when unchanged.
func FormatDelta(d Delta) string {
	if d.Delta == 0 {
		if d.Changed() {
			return "0 (range moved)"
		}
		return "0"
	}
	sign := "+"
	if d.Delta < 0 {
		sign = "-"
	}
	s := sign + formatFigure(d.Metric, math.Abs(d.Delta))
	if d.Relative != nil {
		s += " (" + formatPercent(*d.Relative) + ")"
	} else {
		s += " (new)"
	}
	return s
}

func formatPercent(f float64) string {
	p := f * 100
	var s string
	if math.Abs(p) >= 10 {
		s = strconv.FormatFloat(math.Round(p), 'f', 0, 64)
	} else {
		s = strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(p, 'f', 1, 64), "0"), ".")
	}
	if p > 0 {
		s = "+" + s
	}
	return s + "%"
}

// Summary is one line saying what happened to the cost.
func (r *Result) Summary() string {
	if !r.Changed {
		return "no change"
	}
	usd, _ := r.Total("usd")
	var s string
	switch {
	case usd.Delta > 0:
		s = "estimated cost rises by " + estimate.FormatUSD(usd.Delta)
	case usd.Delta < 0:
		s = "estimated cost falls by " + estimate.FormatUSD(-usd.Delta)
	default:
		s = "estimated cost unchanged at " + estimate.FormatUSD(usd.New.Expected)
	}
	if usd.Delta != 0 && usd.Relative != nil {
		s += " (" + formatPercent(*usd.Relative) + ")"
	}
	if runs, _ := r.Total("real_runs"); runs.Changed() {
		s += "; real runs " + FormatCount("real_runs", runs.Old) + " -> " + FormatCount("real_runs", runs.New)
	}
	return s
}

func (c FieldChange) line(verbose bool) string {
	switch c.Kind {
	case Added:
		if _, block := c.New.(map[string]any); block && !verbose && isBlock(c.Path) {
			return "+ " + c.Path
		}
		return "+ " + c.Path + " = " + FormatValue(c.New)
	case Removed:
		if _, block := c.Old.(map[string]any); block && !verbose && isBlock(c.Path) {
			return "- " + c.Path
		}
		return "- " + c.Path + " (was " + FormatValue(c.Old) + ")"
	}
	return "~ " + c.Path + ": " + FormatValue(c.Old) + " -> " + FormatValue(c.New)
}

func crossingLine(kind string, c Crossing) string {
	d := Delta{Metric: c.Metric, Delta: c.Delta, Relative: c.Relative}
	return fmt.Sprintf("%s %s: %s moved %s", kind, c.Threshold, Label(c.Metric), FormatDelta(d))
}

// WriteHuman writes the diff for a terminal. Concise by default: at most a
// dozen field changes and only the figures that moved; verbose lists every
// field change with values and every figure.
func WriteHuman(w io.Writer, r *Result, verbose bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s: %s\n", name(r.Old, "old"), name(r.New, "new"), r.Summary())
	if !r.Changed && !verbose {
		_, err := io.WriteString(w, b.String())
		return err
	}
	if len(r.Fields) > 0 {
		fmt.Fprintf(&b, "\nSpec changes (%d):\n", len(r.Fields))
		for i, c := range r.Fields {
			if !verbose && i == conciseFields {
				fmt.Fprintf(&b, "  ... and %d more (--verbose lists them)\n", len(r.Fields)-i)
				break
			}
			fmt.Fprintf(&b, "  %s\n", c.line(verbose))
		}
	} else if r.Changed {
		b.WriteString("\nThe spec trees are equal; the plans differ (variables or presets changed).\n")
	}
	b.WriteString("\nEstimate (expected, low – high where they differ):\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  \told\tnew\tdelta")
	for _, d := range r.Deltas() {
		if !verbose && !d.Changed() {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", Label(d.Metric), FormatCount(d.Metric, d.Old), FormatCount(d.Metric, d.New), FormatDelta(d))
	}
	tw.Flush()
	for _, c := range r.Failed {
		b.WriteString(crossingLine("\nFAIL", c) + "\n")
	}
	for _, c := range r.Warned {
		b.WriteString(crossingLine("\nWARN", c) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func name(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// WriteJSON writes the result as indented JSON.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown writes the diff as a pull-request comment: the summary, a
// table of totals (and the roles and loops that moved), any crossed
// thresholds and the changed fields.
func WriteMarkdown(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Assay diff: `%s` → `%s`\n\n", name(r.Old, "old"), name(r.New, "new"))
	fmt.Fprintf(&b, "**%s**\n\n", r.Summary())
	for _, c := range r.Failed {
		fmt.Fprintf(&b, "> **Blocked:** `%s` crossed: %s moved %s\n\n", c.Threshold, Label(c.Metric), FormatDelta(Delta{Metric: c.Metric, Delta: c.Delta, Relative: c.Relative}))
	}
	for _, c := range r.Warned {
		fmt.Fprintf(&b, "> **Warning:** `%s` crossed: %s moved %s\n\n", c.Threshold, Label(c.Metric), FormatDelta(Delta{Metric: c.Metric, Delta: c.Delta, Relative: c.Relative}))
	}
	if !r.Changed {
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("| estimate | old | new | delta |\n|---|---:|---:|---:|\n")
	for _, d := range r.Deltas() {
		if !headline[d.Metric] && !d.Changed() {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdEscape(Label(d.Metric)), mdEscape(FormatCount(d.Metric, d.Old)), mdEscape(FormatCount(d.Metric, d.New)), mdEscape(FormatDelta(d)))
	}
	b.WriteString("\nExpected values; low – high where an assumption (such as a critic's routed share) varies.\n")
	if len(r.Fields) > 0 {
		fmt.Fprintf(&b, "\n<details><summary>%d spec change(s)</summary>\n\n", len(r.Fields))
		for _, c := range r.Fields {
			fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(c.line(false), "`", "'"))
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
