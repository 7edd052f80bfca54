package rehearse

import (
	"fmt"
	"html/template"
	"io"
	"math"
)

// plotBar is one histogram bar of a figure's plot, in SVG units.
type plotBar struct{ X, Y, W, H float64 }

// plotMark is a vertical line at one of the estimate's low, expected, high.
type plotMark struct {
	X     float64
	Label string
}

type plotFigure struct {
	Figure
	Bars    []plotBar
	Marks   []plotMark
	MinText string
	MaxText string
}

const plotW, plotH = 400.0, 80.0

// plot lays out a figure's histogram over the span of its values and the
// estimate's [low, high], so the bounds are seen beside the spread.
func plot(f Figure) plotFigure {
	lo, hi := math.Min(f.Min, f.Estimate.Low), math.Max(f.Max, f.Estimate.High)
	if hi <= lo {
		hi = lo + 1
	}
	x := func(v float64) float64 { return (v - lo) / (hi - lo) * plotW }
	p := plotFigure{Figure: f, MinText: num(lo), MaxText: num(hi)}
	spanLo, spanHi := f.Min, f.Max
	bins := histogram(f.Values, spanLo, spanHi)
	top := 0
	for _, n := range bins {
		top = max(top, n)
	}
	bw := (x(spanHi) - x(spanLo)) / histBins
	if bw < 2 {
		bw = 2
	}
	for i, n := range bins {
		if n == 0 {
			continue
		}
		h := float64(n) / float64(top) * (plotH - 10)
		p.Bars = append(p.Bars, plotBar{X: x(spanLo) + float64(i)*bw, Y: plotH - h, W: math.Max(bw-1, 1), H: h})
	}
	for _, m := range []struct {
		v    float64
		name string
	}{{f.Estimate.Low, "low"}, {f.Estimate.Expected, "expected"}, {f.Estimate.High, "high"}} {
		p.Marks = append(p.Marks, plotMark{X: x(m.v), Label: fmt.Sprintf("%s %s", m.name, num(m.v))})
	}
	return p
}

var reportHTML = template.Must(template.New("report").Funcs(template.FuncMap{"num": num}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Rehearsal of {{.Plan}}</title>
<style>body{font-family:sans-serif;margin:2em}td,th{padding:2px 8px;text-align:right}td:first-child{text-align:left}
.out{color:#b00;font-weight:bold}svg{background:#fafafa}rect{fill:#4a7fb5}line{stroke:#c60;stroke-width:1}</style></head><body>
<h1>Rehearsal of {{.Plan}}{{if .Variant}} (variant {{.Variant}}){{end}}</h1>
<p>{{len .Rehearsals}} rehearsal(s), world seeds {{.FirstSeed}} to {{.LastSeed}}. {{if .CapsHeld}}Every cap held.{{else}}<span class="out">A cap was exceeded.</span>{{end}}</p>
<h2>Caps that stopped a phase</h2>
{{if .CapStops}}<table><tr><th>cap</th><th>rehearsals</th><th>share</th></tr>
{{range .CapStops}}<tr><td>{{.Cap}}</td><td>{{.Rehearsals}}</td><td>{{printf "%.0f%%" .Percent}}</td></tr>
{{end}}</table>{{else}}<p>None, in any rehearsal.</p>{{end}}
<h2>Figures</h2>
<p>Each plot is the histogram of the rehearsals' values; the lines are the estimate's low, expected and high.</p>
{{range .Plots}}<h3>{{.Name}}{{if .Outside}} <span class="out">OUTSIDE the estimate</span>{{end}}</h3>
<p>min {{num .Min}}, median {{num .Median}}, max {{num .Max}}; estimate [{{num .Estimate.Low}}, {{num .Estimate.High}}], expected {{num .Estimate.Expected}}</p>
<svg width="{{$.W}}" height="{{$.H}}" viewBox="0 -2 {{$.W}} {{$.H}}" role="img" aria-label="histogram of {{.Name}}">
{{range .Bars}}<rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"/>{{end}}
{{range .Marks}}<line x1="{{.X}}" x2="{{.X}}" y1="0" y2="{{$.PlotH}}"><title>{{.Label}}</title></line>{{end}}
<text x="0" y="{{$.TextY}}" font-size="10">{{.MinText}}</text><text x="{{$.PlotW}}" y="{{$.TextY}}" font-size="10" text-anchor="end">{{.MaxText}}</text>
</svg>
{{end}}</body></html>
`))

// WriteHTML renders a report as an HTML page with a histogram plot of
// every figure beside the estimate's bounds and the caps' stop shares.
func WriteHTML(w io.Writer, r *Report) error {
	type capRow struct {
		CapStop
		Percent float64
	}
	data := struct {
		*Report
		FirstSeed, LastSeed int64
		CapStops            []capRow
		Plots               []plotFigure
		W, H, PlotW, PlotH  float64
		TextY               float64
	}{Report: r, W: plotW, H: plotH + 16, PlotW: plotW, PlotH: plotH, TextY: plotH + 12}
	if n := len(r.Rehearsals); n > 0 {
		data.FirstSeed, data.LastSeed = r.Rehearsals[0].Seed, r.Rehearsals[n-1].Seed
	}
	for _, c := range r.CapStops {
		data.CapStops = append(data.CapStops, capRow{c, 100 * c.Share})
	}
	for _, f := range r.Figures {
		data.Plots = append(data.Plots, plot(f))
	}
	return reportHTML.Execute(w, data)
}
