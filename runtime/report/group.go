package report

import (
	"encoding/json"
	"html/template"
	"io"

	"github.com/assay-lang/assay/runtime/compare"
)

// Group is the report of a group of runs (run --all-variants, --seeds):
// its runs side by side and, per arm and figure, the statistics over
// seeds that compare gives.
type Group struct {
	Group string               `json:"group"`
	Runs  []*compare.Row       `json:"runs"`
	Arms  []*compare.ArmFigure `json:"arms"`
}

// WriteGroupJSON writes the group's report as indented JSON.
func WriteGroupJSON(w io.Writer, g *Group) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(g)
}

// WriteGroupHTML writes the group's self-contained HTML report.
func WriteGroupHTML(w io.Writer, g *Group) error { return groupPage.Execute(w, g) }

var groupPage = template.Must(template.New("group").Funcs(template.FuncMap{"num": num, "money": money, "plots": GroupPlots,
	"opt": func(x *float64) string {
		if x == nil {
			return ""
		}
		return num(*x)
	},
	"signed": func(x *float64) string {
		if *x >= 0 {
			return "+" + num(*x)
		}
		return num(*x)
	},
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>Assay group {{.Group}}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 12px}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:3px 10px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.plots{display:flex;flex-wrap:wrap;gap:12px}
svg .t{font-weight:600;font-size:13px}svg .l{font-size:11px;fill:#444}
svg .f{fill:#fafafa;stroke:#ccc}svg .g{stroke:#e6e6e6}svg .d{stroke:#999;stroke-dasharray:4 3}
</style></head><body>
<h1>Assay group {{.Group}}</h1>
{{with plots .Arms}}<h2>Figures over seeds</h2>
<p>One plot per figure: each arm's seeds as dots, its mean as a bar and the 95% Student t interval on the mean as a whisker (an arm of one seed has none); a star marks an arm whose difference from the first arm has a Welch 95% interval that excludes zero; the dashed line is zero (for a gain, the baseline).</p>
<div class="plots">{{range .}}{{.SVG}}{{end}}</div>{{end}}
<h2>Arms over seeds</h2>
<p>Per arm (the finished runs of one variant, alike but for the seed) and figure: the mean, the sample standard deviation and the 95% Student t interval on the mean over n seeds; a figure of one seed has no interval. A difference is the arm's mean less the first arm's, with Welch's 95% t interval; it is marked only where that interval excludes zero.</p>
<table><tr><th>arm</th><th>figure</th><th>n</th><th>mean</th><th>sd</th><th>95% interval</th><th>difference</th><th>Welch 95% interval</th></tr>
{{range .Arms}}<tr><td>{{.Arm}}</td><td>{{.Figure}}</td><td class="n">{{.N}}</td><td class="n">{{num .Mean}}</td><td class="n">{{opt .SD}}</td><td class="n">{{if .Low}}{{opt .Low}} to {{opt .High}}{{else}}{{.Note}}{{end}}</td><td class="n">{{if .Diff}}{{signed .Diff}} vs {{.Versus}}{{end}}</td><td class="n">{{if .DiffLow}}{{opt .DiffLow}} to {{opt .DiffHigh}}{{if .Differs}} <b>differs</b>{{end}}{{else if .Diff}}no interval (n=1){{end}}</td></tr>
{{end}}</table>
<h2>Runs</h2>
<table><tr><th>run</th><th>variant</th><th>seed</th><th>plan hash</th><th>state</th><th>real runs</th><th>GPU-hours</th><th>dollars</th><th>best gain</th><th>Avg@k</th><th>Best@k</th></tr>
{{range .Runs}}<tr><td>{{.ID}}</td><td>{{.Variant}}</td><td class="n">{{.Seed}}</td><td><small>{{.PlanHash}}</small></td><td>{{.State}}</td><td class="n">{{.RealRuns}}</td><td class="n">{{num .GPUHours}}</td><td class="n">{{money .USD}}</td><td class="n">{{opt .BestGain}}</td><td class="n">{{opt .Avg}}</td><td class="n">{{opt .Best}}</td></tr>
{{end}}</table>
</body></html>
`))
