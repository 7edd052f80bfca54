package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// WriteJSON writes the figures as indented JSON.
func WriteJSON(w io.Writer, r *runtime.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Series is one line of a plot.
type Series struct {
	Name   string
	Color  string
	X, Y   []float64
	Points bool // draw markers only
}

// Line is a horizontal reference line across a plot, such as a budget cap.
type Line struct {
	Name  string
	Color string
	Y     float64
}

// Plot is a titled 2-D chart. Its legend stands in a column beside the plot
// area, never over the data.
type Plot struct {
	Title, XLabel, YLabel string
	Series                []Series
	// Lines are drawn dashed across the plot, and the y range includes them.
	Lines []Line
	// Diagonal draws y = x (predicted vs real).
	Diagonal bool
	// YMoney labels the y axis in dollars.
	YMoney bool
	// YFromZero starts the y axis at 0, for amounts used against a cap.
	YFromZero bool
}

const (
	pw, ph             = 580.0, 260.0
	left, right        = 56.0, 8.0
	top, bottom        = 28.0, 40.0
	innerH             = ph - top - bottom
	charW              = 6.2 // width of a legend character at 11px, about
	legendW            = 156.0
	defaultEmptyMarker = "no data"
)

// wrap breaks text into lines of at most n characters at spaces (a longer
// word stands alone on its line).
func wrap(text string, n int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		switch {
		case cur == "":
			cur = w
		case len([]rune(cur))+1+len([]rune(w)) <= n:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" || len(lines) == 0 {
		lines = append(lines, cur)
	}
	return lines
}

func bounds(p Plot) (x0, x1, y0, y1 float64, ok bool) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	for _, s := range p.Series {
		for i := range s.X {
			x0, x1 = math.Min(x0, s.X[i]), math.Max(x1, s.X[i])
			y0, y1 = math.Min(y0, s.Y[i]), math.Max(y1, s.Y[i])
		}
	}
	if math.IsInf(x0, 1) {
		return 0, 1, 0, 1, false
	}
	for _, l := range p.Lines {
		y0, y1 = math.Min(y0, l.Y), math.Max(y1, l.Y)
	}
	if p.YFromZero {
		y0 = math.Min(y0, 0)
	}
	if p.Diagonal {
		x0, x1 = math.Min(x0, y0), math.Max(x1, y1)
		y0, y1 = x0, x1
	}
	if x1 == x0 {
		x0, x1 = x0-1, x1+1
	}
	if y1 == y0 {
		y0, y1 = y0-1, y1+1
	}
	pad := (y1 - y0) * 0.05
	return x0, x1, y0 - pad, y1 + pad, true
}

// SVG renders a plot as an inline SVG element: the plot area, then the
// legend in its own column to the right of it.
func (p Plot) SVG() template.HTML {
	var b strings.Builder
	// Every plot has the same legend column, so plot areas line up.
	lw := legendW
	innerW := pw - left - right - lw - 8
	lx := left + innerW + 10 // the legend column's left edge
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" role="img" aria-label="%s">`, pw, ph, pw, ph, template.HTMLEscapeString(p.Title))
	fmt.Fprintf(&b, `<text x="%g" y="18" class="t">%s</text>`, left, template.HTMLEscapeString(p.Title))
	x0, x1, y0, y1, ok := bounds(p)
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" class="f"/>`, left, top, innerW, innerH)
	if !ok {
		fmt.Fprintf(&b, `<text x="%g" y="%g" class="l" text-anchor="middle">%s</text></svg>`, left+innerW/2, top+innerH/2, defaultEmptyMarker)
		return template.HTML(b.String())
	}
	sx := func(x float64) float64 { return left + (x-x0)/(x1-x0)*innerW }
	sy := func(y float64) float64 { return top + innerH - (y-y0)/(y1-y0)*innerH }
	ylabel := num
	if p.YMoney {
		ylabel = money
	}
	for _, y := range ticks(y0, y1, false) {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" class="g"/><text x="%g" y="%.1f" class="l" text-anchor="end">%s</text>`,
			left, left+innerW, sy(y), sy(y), left-4, sy(y)+4, ylabel(y))
	}
	for _, x := range ticks(x0, x1, wholeX(p)) {
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" class="l" text-anchor="middle">%s</text>`, sx(x), top+innerH+14, num(x))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" class="l" text-anchor="middle">%s</text>`, left+innerW/2, ph-6, template.HTMLEscapeString(p.XLabel))
	fmt.Fprintf(&b, `<text x="12" y="%g" class="l" transform="rotate(-90 12 %g)" text-anchor="middle">%s</text>`, top+innerH/2, top+innerH/2, template.HTMLEscapeString(p.YLabel))
	if p.Diagonal {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" class="d"/>`, sx(x0), sy(x0), sx(x1), sy(x1))
	}
	for _, l := range p.Lines {
		fmt.Fprintf(&b, `<line x1="%g" x2="%g" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`, left, left+innerW, sy(l.Y), sy(l.Y), l.Color)
	}
	for _, s := range p.Series {
		if s.Points || len(s.X) == 1 {
			for i := range s.X {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s" fill-opacity="0.75"/>`, sx(s.X[i]), sy(s.Y[i]), s.Color)
			}
		} else {
			var pts []string
			for i := range s.X {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(s.X[i]), sy(s.Y[i])))
			}
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, s.Color, strings.Join(pts, " "))
		}
	}
	// The legend: one entry per series, then per reference line, each name
	// wrapped to the column.
	per := int((lw - 16) / charW)
	y := top + 6
	entry := func(name, swatch string) {
		fmt.Fprintf(&b, swatch, lx, y)
		for i, line := range wrap(name, per) {
			fmt.Fprintf(&b, `<text x="%g" y="%g" class="l">%s</text>`, lx+14, y+9+float64(i)*13, template.HTMLEscapeString(line))
			if i > 0 {
				y += 13
			}
		}
		y += 17
	}
	for _, s := range p.Series {
		entry(s.Name, `<rect x="%g" y="%g" width="10" height="10" fill="`+s.Color+`"/>`)
	}
	for _, l := range p.Lines {
		entry(l.Name, `<rect x="%g" y="%g" width="10" height="2" transform="translate(0 4)" fill="`+l.Color+`"/>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// group puts thousands separators into a whole number's digits.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}

// money formats dollars for an axis or a table: $0.0012, $3.50, $1,250.
func money(x float64) string {
	sign := ""
	if x < 0 {
		sign, x = "-", -x
	}
	switch {
	case x == 0:
		return "$0"
	case x >= 1000:
		return sign + "$" + group(fmt.Sprintf("%.0f", x))
	case x < 0.01:
		return sign + "$" + strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2g", x), "0"), ".")
	}
	return sign + "$" + fmt.Sprintf("%.2f", x)
}

// ticks returns about five or six axis values at round steps (1, 2 or 5 times a
// power of ten) inside [lo, hi], so labels read 0.2, 0.4 rather than 0.233;
// whole limits the step to integers, for axes such as steps or rounds.
func ticks(lo, hi float64, whole bool) []float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) || math.IsNaN(hi-lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if whole && step < 1 {
		step = 1
	}
	var out []float64
	// Multiply rather than accumulate, so rounding errors do not add up.
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9 && len(out) < 12; k++ {
		v := k * step
		if k == 0 {
			v = 0 // avoid printing -0
		}
		out = append(out, v)
	}
	return out
}

// wholeX reports whether every x value of the plot is an integer.
func wholeX(p Plot) bool {
	for _, s := range p.Series {
		for _, x := range s.X {
			if x != math.Trunc(x) {
				return false
			}
		}
	}
	return true
}

// num formats an axis label without trailing zeros: 5, 0.6, 12.5.
func num(x float64) string {
	if math.IsInf(x, 1) {
		return "unbounded"
	}
	var s string
	switch ax := math.Abs(x); {
	case ax == 0:
		return "0"
	case ax >= 1000:
		return group(fmt.Sprintf("%.0f", x))
	case ax >= 10:
		s = fmt.Sprintf("%.1f", x)
	case ax >= 0.01:
		s = fmt.Sprintf("%.3f", x)
	default:
		return fmt.Sprintf("%.2g", x)
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}

// Plots builds the report's plots from its figures.
func Plots(r *runtime.Report) []Plot {
	var out []Plot
	if len(r.Steps) > 0 {
		p := Plot{Title: "Reward per step", XLabel: "policy step", YLabel: "mean reward"}
		byLoop := map[string]*Series{}
		var order []string
		for _, s := range r.Steps {
			se := byLoop[s.Loop]
			if se == nil {
				se = &Series{Name: s.Loop + " mean reward", Color: palette[len(order)%len(palette)]}
				byLoop[s.Loop] = se
				order = append(order, s.Loop)
			}
			se.X = append(se.X, float64(s.Step))
			se.Y = append(se.Y, s.MeanReward)
		}
		for _, l := range order {
			p.Series = append(p.Series, *byLoop[l])
		}
		out = append(out, p)
	}
	if len(r.Rounds) > 0 {
		p := Plot{Title: "Best real gain per round", XLabel: "round", YLabel: "best island gain"}
		byTask := map[string]*Series{}
		var order []string
		for _, f := range r.Rounds {
			se := byTask[f.Task]
			if se == nil {
				se = &Series{Name: f.Task, Color: palette[len(order)%len(palette)]}
				byTask[f.Task] = se
				order = append(order, f.Task)
			}
			se.X = append(se.X, float64(f.Round))
			se.Y = append(se.Y, f.Best)
		}
		for i, t := range order {
			if i == len(palette) {
				break // a legend of more lines is unreadable
			}
			p.Series = append(p.Series, *byTask[t])
		}
		out = append(out, p)
	}
	if len(r.Calibration) > 0 {
		gap := Plot{Title: "World model error at each calibration round", XLabel: "calibration round", YLabel: "mean |predicted - real| gain"}
		s := Series{Name: "MAE before the round joins the context", Color: palette[1]}
		// In-state accuracy orders proposals of one rollout state, as the
		// policy's advantages do; same-task pairs mix states, so they are
		// a second line, named as such.
		acc := Series{Name: "in-state: pairs of one rollout state", Color: palette[2]}
		task := Series{Name: "same task: pairs across states", Color: palette[3]}
		scatter := Plot{Title: "Predicted vs real gain of calibration proposals", XLabel: "predicted gain", YLabel: "real gain", Diagonal: true}
		for i, c := range r.Calibration {
			s.X = append(s.X, float64(c.Round))
			s.Y = append(s.Y, c.MAE)
			if c.StatePairs > 0 {
				acc.X = append(acc.X, float64(c.Round))
				acc.Y = append(acc.Y, c.StateRankAcc)
			}
			if c.Pairs > 0 {
				task.X = append(task.X, float64(c.Round))
				task.Y = append(task.Y, c.RankAcc)
			}
			pts := Series{Name: fmt.Sprintf("round %d (after step %d)", c.Round, c.AfterStep), Color: palette[i%len(palette)], Points: true}
			for _, p := range c.Points {
				pts.X = append(pts.X, p.Predicted)
				pts.Y = append(pts.Y, p.Real)
			}
			scatter.Series = append(scatter.Series, pts)
		}
		gap.Series = append(gap.Series, s)
		out = append(out, gap)
		rank := Plot{Title: "Pairwise ranking accuracy of the world model", XLabel: "calibration round", YLabel: "accuracy"}
		for _, se := range []Series{acc, task} {
			if len(se.X) > 0 {
				rank.Series = append(rank.Series, se)
			}
		}
		if len(rank.Series) > 0 {
			out = append(out, rank)
		}
		out = append(out, scatter)
	}
	// Budget burn: what the run reserved against each cap, with the cap
	// drawn, so how close the run came to it reads at a glance.
	var budget plan.Budget
	if r.Status != nil {
		budget = r.Status.Budget
	}
	burn := Plot{Title: "Budget burn: real runs", XLabel: "seconds since the run began", YLabel: "real runs reserved", YFromZero: true}
	s := Series{Name: "real runs reserved", Color: palette[0]}
	usd := Series{Name: "dollars reserved for real runs", Color: palette[4]}
	for _, b := range r.Burn {
		s.X = append(s.X, b.Seconds)
		s.Y = append(s.Y, float64(b.Run))
		usd.X = append(usd.X, b.Seconds)
		usd.Y = append(usd.Y, b.USD)
	}
	burn.Series = []Series{s}
	if budget.RealRuns > 0 && len(s.X) > 0 {
		burn.Lines = []Line{{Name: fmt.Sprintf("cap: %d real runs", budget.RealRuns), Color: palette[1], Y: float64(budget.RealRuns)}}
	}
	out = append(out, burn)
	if len(usd.X) > 0 && (budget.USD > 0 || usd.Y[len(usd.Y)-1] > 0) {
		p := Plot{Title: "Budget burn: dollars", XLabel: "seconds since the run began", YLabel: "dollars reserved", YMoney: true, YFromZero: true, Series: []Series{usd}}
		if budget.USD > 0 {
			p.Lines = []Line{{Name: "cap: " + money(budget.USD) + " (real runs and LLM calls)", Color: palette[1], Y: budget.USD}}
		}
		out = append(out, p)
	}
	return out
}

// figure formats a value of an estimate-vs-run row by what the figure
// measures: dollars, a share, or a count.
func figure(name string, x float64) string {
	switch {
	case strings.HasSuffix(name, "usd"):
		return money(x)
	case strings.HasSuffix(name, "_share"):
		return pct(x)
	}
	return num(x)
}

func pct(x float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", x*100), ".0") + "%" }

// routedRows are the estimate-vs-run rows of a critic's routed share: the
// measured share beside the expected_routed the plan assumed.
func routedRows(cs []runtime.Comparison) []runtime.Comparison {
	var out []runtime.Comparison
	for _, c := range cs {
		if strings.HasSuffix(c.Figure, ".routed_share") {
			out = append(out, c)
		}
	}
	return out
}

// loopOf is NAME of a figure loops.NAME.x.
func loopOf(figure string) string {
	f := strings.TrimPrefix(figure, "loops.")
	if i := strings.LastIndex(f, "."); i >= 0 {
		return f[:i]
	}
	return f
}

// costBasis says how a cost figure was counted, for a label beside it:
// GPU-hours by how (reserved or measured), dollars split into real runs
// (so counted) and LLM calls (always measured); "" for other figures.
func costBasis(figure, how string) string {
	switch {
	case strings.HasSuffix(figure, "gpu_hours"):
		return how
	case strings.HasSuffix(figure, ".usd"):
		if how == "measured" {
			return how
		}
		return "real runs " + how + ", LLM measured"
	}
	return ""
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{"num": num, "money": money, "pct": pct, "pcterr": func(x float64) string { return fmt.Sprintf("%+.1f%%", 100*x) }, "deref": func(p *float64) float64 { return *p }, "opt": optNum, "figure": figure, "basis": costBasis, "routed": routedRows, "loopOf": loopOf, "edits": func(m map[string]string) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sortStrings(parts)
	return strings.Join(parts, ", ")
}}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Assay run {{.R.Status.ID}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 12px}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:3px 10px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.plots{display:flex;flex-wrap:wrap;gap:12px}
svg .t{font-weight:600;font-size:13px}svg .l{font-size:11px;fill:#444}
.cap{border:2px solid #b00;background:#fff4f4;padding:4px 12px;margin:1em 0}
svg .f{fill:#fafafa;stroke:#ccc}svg .g{stroke:#e6e6e6}svg .d{stroke:#999;stroke-dasharray:4 3}
</style></head><body>
<h1>Assay run {{.R.Status.ID}}</h1>
{{with .R.Status.Cuts}}<div class="cap"><b>Stopped at a budget cap: these figures are not the plan's.</b><ul>{{range .}}<li>phase {{.Phase}} {{.Reason}}</li>{{end}}</ul></div>{{end}}
{{with .R.Status.Failures}}<div class="cap"><b>A phase measured nothing and ended the run (state phase_failed).</b><ul>{{range .}}<li>phase {{.Phase}}: {{.What}}{{with .Reasons}}<ul>{{range .}}<li>{{.Count}}x {{.Message}}</li>{{end}}</ul>{{end}}</li>{{end}}</ul></div>{{end}}
<table>
<tr><th>plan</th><td>{{.R.Status.Plan}} ({{.R.Status.Variant}}, seed {{.R.Status.Seed}})</td></tr>
<tr><th>state</th><td>{{.R.Status.State}}{{if .R.Status.Reason}}: {{.R.Status.Reason}}{{end}}</td></tr>
<tr><th>real runs</th><td>{{.R.Status.RealRuns}}{{if .R.Status.Budget.RealRuns}} of {{.R.Status.Budget.RealRuns}}{{end}} ({{.R.Status.Finished}} finished, {{.R.Status.Failed}} failed, {{.R.Status.InFlight}} in flight)</td></tr>
<tr><th>GPU-hours</th><td>{{num .R.Status.GPUHours}} reserved (each real run held at its high hours){{with .R.Status.Totals}}, {{num .MeasuredGPUHours}} measured (each run at most what it held){{if .MeasuredUpdateGPUHours}}, of them {{num .MeasuredUpdateGPUHours}} by updates{{end}}{{if .Overruns}}; <b>{{.Overruns}} runs took longer than their high hours: {{num .OverrunGPUHours}} GPU-hours beyond what they held, not charged</b>{{end}}{{end}}</td></tr>
<tr><th>dollars</th><td>{{with .R.Status.Totals}}{{money .USD}} (real runs {{money $.R.Status.RunUSD}} reserved, LLM {{money .LLMUSD}} measured, {{.LLMCalls}} calls){{else}}{{money .R.Status.RunUSD}} reserved for real runs so far{{end}}{{if .R.Status.Budget.USD}} of a {{money .R.Status.Budget.USD}} cap{{end}}</td></tr>
{{range routed .R.Compare}}<tr><th>routed share, loop {{loopOf .Figure}}</th><td>{{pct .Measured}} measured, beside expected_routed {{pct .Expected}}{{if ne .Low .High}} (assumed {{pct .Low}} – {{pct .High}}){{end}}{{if not .Within}}: <b>{{if eq .Side "below"}}below{{else}}above{{end}} the assumed range</b>{{end}}</td></tr>{{end}}
{{with .R.Status.Totals}}{{with .Measured}}{{range $name, $r := .Roles}}{{if $r.Unparsed}}
<tr><th>unparsed, role {{$name}}</th><td>{{$r.Unparsed}} answers could not be read ({{$r.Reasks}} asked again); a critic's such votes are left out of its verdicts</td></tr>{{end}}{{end}}{{end}}
<tr><th>steps</th><td>{{.Steps}} ({{.Candidates}} candidates rewarded, {{.PolicyUpdates}} policy updates)</td></tr>{{end}}
</table>
{{with .R.Status.Provenance}}<h2>Provenance</h2>
<table>
<tr><th>spec</th><td>{{.Spec}}{{if .SavedPlan}} (saved plan {{.SavedPlan}}){{end}}</td></tr>
<tr><th>git commit</th><td>{{if .GitCommit}}{{.GitCommit}}{{else}}none: {{.NoCommit}}{{end}}{{if .GitDirty}} <b>with uncommitted changes</b>{{range .DirtyFiles}} {{.}}{{end}}{{end}}</td></tr>
<tr><th>plan hash</th><td>{{.PlanHash}}{{if .SweepHash}} (the variant's; the sweep's: {{.SweepHash}}){{end}}</td></tr>
<tr><th>assay</th><td>{{.Assay}}</td></tr>
{{if .Overrides}}<tr><th>overrides</th><td>{{range .Overrides}}{{.}} {{end}}</td></tr>{{end}}
{{range .Plugins}}<tr><th>plugin {{.Name}}</th><td>{{.Source}} sha256:{{.SHA256}} ({{.Platform}})</td></tr>{{end}}
</table>{{end}}
{{template "record" .}}
{{if .R.Compare}}<h2>Estimate and run</h2>
<p>The run's GPU-hours and real-run dollars here are reserved: each real run held against the budget at the plan's hours. LLM dollars are measured. A figure outside the estimate says which side: below the low (the run did less than the plan allows: a cap cut it, fewer builds failed), or, in bold, above the high, a bound the estimate gives that did not hold.</p>
<table><tr><th>figure</th><th>low</th><th>expected</th><th>high</th><th>run</th><th></th></tr>
{{range .R.Compare}}<tr><td>{{.Figure}}{{with basis .Figure "reserved"}} <small>({{.}})</small>{{end}}</td><td class="n">{{figure .Figure .Low}}</td><td class="n">{{figure .Figure .Expected}}</td><td class="n">{{figure .Figure .High}}</td><td class="n">{{figure .Figure .Measured}}</td><td>{{template "side" .}}</td></tr>{{end}}
</table>
{{end}}{{if .R.Predicted}}<h2>Predicted from the run's own measurements, and measured</h2>
<p>GPU-hours and dollars here are measured: each real run's timed hours at the run's prices, plus LLM dollars (the table above holds what the run reserved).</p>
<table><tr><th>figure</th><th>predicted</th><th>measured</th><th>error</th></tr>
{{range .R.Predicted}}<tr><td>{{.Figure}}{{with basis .Figure "measured"}} <small>({{.}})</small>{{end}}</td><td class="n">{{num .Predicted}}</td><td class="n">{{num .Actual}}</td><td class="n">{{pcterr .Error}}</td></tr>{{end}}
</table>{{end}}
<h2>Figures</h2>
<div class="plots">{{range .Plots}}{{.SVG}}{{end}}</div>
{{if .R.Calibration}}<h2>Calibration rounds</h2>
<p>The world model's error on each round's proposals before they join its context; within-state figures compare proposals of one rollout state (rank accuracy over pairs, cosine of group-relative advantages).</p>
<table><tr><th>round</th><th>after step</th><th>real runs</th><th>MAE</th><th>reward gap</th><th>ranking accuracy (task)</th><th>pairs</th><th>ranking accuracy (state)</th><th>pairs</th><th>advantage cosine</th><th>states</th><th>records in context</th></tr>
{{range .R.Calibration}}<tr><td>{{.Round}}</td><td class="n">{{.AfterStep}}</td><td class="n">{{.Runs}}</td><td class="n">{{num .MAE}}</td><td class="n">{{num .RewardGap}}</td><td class="n">{{num .RankAcc}}</td><td class="n">{{.Pairs}}</td><td class="n">{{num .StateRankAcc}}</td><td class="n">{{.StatePairs}}</td><td class="n">{{num .AdvCosine}}</td><td class="n">{{.StateGroups}}</td><td class="n">{{.Records}}</td></tr>{{end}}
</table>{{end}}
{{with .R.Status.Totals}}{{with .Measured}}{{range $name, $l := .Loops}}{{if $l.CriticVerified}}<h2>Critic of loop {{$name}}</h2>
<p>On the {{$l.CriticVerified}} candidates it judged that were verified for real: AUROC {{num $l.CriticAUROC}} (vote share for an improving label against whether the run improved); {{$l.CriticErrors}} errors, {{$l.CriticErrorsRouted}} of them routed by uncertainty (error recall {{num $l.ErrorRecall}}{{if $l.CriticAudited}}, with the {{$l.CriticErrorsAudited}} errors of {{$l.CriticAudited}} audited unrouted candidates each standing for the unrouted candidates of its batch{{else}}{{if eq $l.CriticErrors $l.CriticErrorsRouted}}: 1 by construction where only routed candidates are verified; audit_share measures it{{end}}{{end}}); {{num $l.RoutedShare}} of judged candidates routed.</p>{{end}}{{end}}{{end}}{{end}}
{{range .R.Evaluation}}{{$e := .}}<h2>Evaluation</h2>
<p>{{.States}} state(s) per task; gains {{if eq .Normalize "scale"}}divided by each task's scale{{else}}in metric units{{end}}. Policy: {{.AvgLabel}} {{num .Avg}}, {{.BestLabel}} {{num .Best}}; negative-gain proposals {{num .Negative}}{{with .BeatsBase}}; states where the policy's {{$e.AvgLabel}} beats the Base arm's {{num (deref .)}}{{end}}.{{if or .AvgGot .BestGot}} <b>Some states got fewer measured proposals than asked</b> (a cap left no run for them, or they failed).{{end}}</p>
<table><tr><th>arm</th><th>proposer</th><th>records in prompt</th><th>family</th><th>states</th><th>{{.AvgLabel}}</th><th>{{.BestLabel}}</th><th>negative share</th></tr>
{{range .Arms}}{{$a := .}}<tr><td>{{.Arm}}</td><td>{{.Proposer}}</td><td class="n">{{.Records}}</td><td>all</td><td class="n">{{.States}}</td><td class="n">{{num .Avg}}</td><td class="n">{{num .Best}}</td><td class="n">{{num .Negative}}</td></tr>
{{range .Families}}<tr><td>{{$a.Arm}}</td><td></td><td></td><td>{{.Family}}</td><td class="n">{{.States}}</td><td class="n">{{num .Avg}}</td><td class="n">{{num .Best}}</td><td class="n">{{num .Negative}}</td></tr>{{end}}{{end}}</table>
{{with .RWM}}<p>World model {{.Role}} on the evaluated proposals (held out: predicted before their runs, never in its context of {{.Records}} records), {{.Points}} points: within-state ranking accuracy {{num .RankAcc}} ({{.Pairs}} pairs), advantage cosine {{num .AdvCosine}} ({{.Groups}} states), predicted minus real {{num .Gap}} (MAE {{num .MAE}}).</p>{{end}}
<table><tr><th>task</th><th>Avg</th><th>Best</th></tr>{{range .Tasks}}<tr><td>{{.Task}}</td><td class="n">{{num .Avg}}</td><td class="n">{{num .Best}}</td></tr>{{end}}</table>{{end}}
{{range .R.CriticEvals}}<h2>Critic evaluation {{.Phase}}</h2>
<p>{{.Examples}} labelled pairs of split {{.Split}} ({{.Ladder5}} with a 5-way label) from {{.Data}}; each critic's verdict is the majority of its first k votes. A dash is undefined (no positives, no errors).</p>
<table><tr><th>critic</th><th>labels</th><th>k</th><th>Improve accuracy</th><th>Dir-3</th><th>F1</th><th>5-Ladder</th><th>AUROC</th><th>confidence AUROC</th><th>failed votes</th></tr>
{{range .Critics}}{{$c := .}}{{range .Metrics}}<tr><td>{{$c.Name}}</td><td>{{$c.Labels}}</td><td class="n">{{.K}}</td><td class="n">{{num .ImproveAccuracy}}</td><td class="n">{{num .Dir3}}</td><td class="n">{{opt .F1}}</td><td class="n">{{opt .Ladder5}}</td><td class="n">{{opt .AUROC}}</td><td class="n">{{opt .ConfidenceAUROC}}</td><td class="n">{{$c.Failed}}</td></tr>{{end}}{{end}}</table>
<table><tr><th>critic</th><th>k</th><th>threshold T</th><th>error recall</th><th>routed share</th><th>errors</th><th>routed</th></tr>
{{range .Critics}}{{$c := .}}{{range .Routing}}<tr><td>{{$c.Name}}</td><td class="n">{{.K}}</td><td class="n">{{num .T}}</td><td class="n">{{opt .ErrorRecall}}</td><td class="n">{{num .RoutedShare}}</td><td class="n">{{.Errors}}</td><td class="n">{{.Routed}}</td></tr>{{end}}{{end}}</table>
{{range .Critics}}{{$c := .}}{{if .ByStratum}}<p>Critic {{.Name}} by teacher-assistance stratum (the pairs file's stratum: a critique sampled without the label matched it, one did after a hint, or the teacher was told the label).</p>
<table><tr><th>stratum</th><th>pairs</th><th>k</th><th>Improve accuracy</th><th>Dir-3</th><th>F1</th><th>5-Ladder</th></tr>
{{range .ByStratum}}{{$s := .}}{{range .Metrics}}<tr><td>{{$s.Stratum}}</td><td class="n">{{$s.Examples}}</td><td class="n">{{.K}}</td><td class="n">{{num .ImproveAccuracy}}</td><td class="n">{{num .Dir3}}</td><td class="n">{{opt .F1}}</td><td class="n">{{opt .Ladder5}}</td></tr>{{end}}{{end}}</table>{{end}}{{end}}{{end}}
{{with .R.Suite}}<h2>Task suite: normalised scores</h2>
<p>Each score normalised by its task's bounds: 1 at the better bound, 0 at the worse; the raw score beside it. Domains and the held-out rows average the normalised scores of their tasks, and the domain average the domain rows, each domain once (the critics paper's Tables 2 and 15); an unscored task has its row and no part in an average.</p>
<table><tr><th>task</th><th>domain</th><th>split</th><th>bounds</th>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Tasks}}{{$t := .}}<tr><td>{{.Task}}{{if .Unscored}} (unscored){{end}}</td><td>{{.Domain}}</td><td>{{.Split}}{{with .CriticSplit}}, critic {{.}}{{end}}</td><td class="n">{{num .Low}} – {{num .High}}</td>{{range $i, $n := .Normalised}}<td class="n">{{opt $n}} ({{opt (index $t.Scores $i)}})</td>{{end}}</tr>
{{end}}{{range .Domains}}<tr><td><b>domain {{.Name}}</b></td><td></td><td></td><td class="n">{{.Tasks}} task(s)</td>{{range .Normalised}}<td class="n">{{opt .}}</td>{{end}}</tr>
{{end}}{{with .Average}}<tr><td><b>domain average</b></td><td></td><td></td><td class="n">{{.Tasks}} task(s)</td>{{range .Normalised}}<td class="n">{{opt .}}</td>{{end}}</tr>
{{end}}{{with .Holdout}}<tr><td><b>held-out tasks</b></td><td></td><td></td><td class="n">{{.Tasks}} task(s)</td>{{range .Normalised}}<td class="n">{{opt .}}</td>{{end}}</tr>
{{end}}{{with .CriticHeldout}}<tr><td><b>held out from critic training</b></td><td></td><td></td><td class="n">{{.Tasks}} task(s)</td>{{range .Normalised}}<td class="n">{{opt .}}</td>{{end}}</tr>{{end}}</table>
{{end}}<h2>Best proposals by real gain</h2>
<table><tr><th>run</th><th>task</th><th>proposal</th><th>edits</th><th>metric</th><th>real gain</th></tr>
{{range .R.Best}}<tr><td>{{.Key}}</td><td>{{.Task}}</td><td>{{.Text}}{{with .Commit}}<br><small>commit {{.}}</small>{{end}}</td><td>{{edits .Edits}}</td><td class="n">{{num .Metric}}</td><td class="n">{{num .Gain}}</td></tr>{{end}}
</table>
{{template "candidates" .}}
</body></html>
`))

// WriteHTML writes the self-contained HTML report.
func WriteHTML(w io.Writer, r *runtime.Report) error {
	return page.Execute(w, struct {
		R     *runtime.Report
		Plots []Plot
	}{r, Plots(r)})
}

func sortStrings(s []string) { sort.Strings(s) }

// optNum is a score that may be missing: "–" when no run measured it.
func optNum(p *float64) string {
	if p == nil {
		return "–"
	}
	return num(*p)
}
