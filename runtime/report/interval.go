package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/assay-lang/assay/runtime/compare"
)

// IntervalPlot is one figure of a group's arms, side by side: each arm's
// seeds as dots, its mean as a bar, and the 95% Student t interval on the
// mean as a whisker (none for an arm of one seed). An arm whose Welch
// interval against the first arm excludes zero is starred. A dashed line
// marks zero when it lies in range: a gain of 0 is the baseline.
type IntervalPlot struct {
	Title  string
	Figure string
	Arms   []IntervalArm
}

// IntervalArm is one arm of an IntervalPlot.
type IntervalArm struct {
	Name      string
	Values    []float64
	Mean      float64
	Low, High *float64
	Differs   bool
}

// groupFigureTitles names the figures a group report plots, in order.
var groupFigureTitles = []struct{ figure, title string }{
	{"best_real_gain", "Best real gain"},
	{"avg_at_k", "Avg@k"},
	{"best_at_k", "Best@k"},
	{"calibration_mae", "World model MAE at the last calibration"},
	{"routed_share", "Share of judged candidates routed"},
	{"real_runs", "Real runs"},
	{"usd", "Dollars"},
	{"gpu_hours", "GPU-hours"},
}

// GroupPlots are the interval plots of a group: one per figure some arm
// measured.
func GroupPlots(arms []*compare.ArmFigure) []IntervalPlot {
	var out []IntervalPlot
	for _, f := range groupFigureTitles {
		p := IntervalPlot{Title: f.title, Figure: f.figure}
		for _, a := range arms {
			if a.Figure != f.figure {
				continue
			}
			p.Arms = append(p.Arms, IntervalArm{Name: a.Arm, Values: a.Values, Mean: a.Mean, Low: a.Low, High: a.High, Differs: a.Differs})
		}
		if len(p.Arms) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// yRange is the plot's y range: every value, mean and interval end, with
// zero when it is near, padded.
func (p IntervalPlot) yRange() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	see := func(x float64) { lo, hi = math.Min(lo, x), math.Max(hi, x) }
	for _, a := range p.Arms {
		see(a.Mean)
		for _, v := range a.Values {
			see(v)
		}
		if a.Low != nil && a.High != nil {
			see(*a.Low)
			see(*a.High)
		}
	}
	if lo > 0 && lo < (hi-lo) || p.Figure == "real_runs" || p.Figure == "usd" || p.Figure == "gpu_hours" {
		lo = math.Min(lo, 0)
	}
	if hi < 0 && -hi < (hi-lo) {
		hi = 0
	}
	if hi == lo {
		lo, hi = lo-1, hi+1
	}
	pad := (hi - lo) * 0.06
	return lo - pad, hi + pad
}

// SVG renders the plot as an inline SVG element.
func (p IntervalPlot) SVG() template.HTML {
	var b strings.Builder
	innerW := pw - left - right - 8
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`, pw, ph, pw, ph, template.HTMLEscapeString(p.Title))
	fmt.Fprintf(&b, `<text x="%g" y="18" class="t">%s</text>`, left, template.HTMLEscapeString(p.Title))
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" class="f"/>`, left, top, innerW, innerH)
	y0, y1 := p.yRange()
	sy := func(y float64) float64 { return top + innerH - (y-y0)/(y1-y0)*innerH }
	label := num
	if p.Figure == "usd" {
		label = money
	}
	for _, y := range ticks(y0, y1, false) {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" class="g"/><text x="%g" y="%.1f" class="l" text-anchor="end">%s</text>`,
			left, left+innerW, sy(y), sy(y), left-4, sy(y)+4, label(y))
	}
	if y0 < 0 && y1 > 0 {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" class="d"/>`, left, left+innerW, sy(0), sy(0))
	}
	slot := innerW / float64(len(p.Arms))
	per := max(int(slot/charW), 4)
	for i, a := range p.Arms {
		cx := left + slot*(float64(i)+0.5)
		color := palette[i%len(palette)]
		if a.Low != nil && a.High != nil {
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`, cx, cx, sy(*a.Low), sy(*a.High), color)
			for _, y := range []float64{*a.Low, *a.High} {
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/>`, cx-7, cx+7, sy(y), sy(y), color)
			}
		}
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`, cx-14, cx+14, sy(a.Mean), sy(a.Mean), color)
		for k, v := range a.Values {
			// Seeds spread a little beside the whisker, so equal values
			// still show one dot each.
			dx := 20 + 4*float64(k%5)
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s" fill-opacity="0.6"/>`, cx+dx, sy(v), color)
		}
		name := a.Name
		if a.Differs {
			name += " *"
		}
		for j, line := range wrap(name, per) {
			if j == 2 {
				break
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%g" class="l" text-anchor="middle">%s</text>`, cx, top+innerH+14+float64(j)*12, template.HTMLEscapeString(line))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
