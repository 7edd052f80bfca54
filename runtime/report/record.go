package report

import "html/template"

// The report's record of a run, beside its figures: the run it replays,
// each task's baseline metric, seed commit and best program with the
// command that checks it out, every candidate with its metric, gain and
// attempts, and which side of the estimate a figure outside it fell.
var _ = template.Must(page.New("record").Parse(recordTemplate))

var _ = template.Must(page.New("candidates").Parse(candidatesTemplate))

// A figure below the estimate's low is named but not bolded: the run did
// less than the plan allows (a cap cut it, fewer builds failed); one
// above the high broke a bound the estimate promised.
var _ = template.Must(page.New("side").Parse(`{{if .Within}}within{{else if eq .Side "below"}}below the low{{else}}<b>above the high</b>{{end}}`))

const recordTemplate = `{{with .R.Status}}{{with .Replay}}<h2>Replay</h2>
<p>This run replays run <b>{{.Run}}</b> ({{.Dir}}): every LLM answer{{if .Runs}}, and every real run's result,{{end}} came from that run's journal{{if not .Runs}}; its real runs were trained again{{end}}.</p>
{{end}}{{with .Tasks}}<h2>Tasks</h2>
<p>Each task's baseline metric, which every gain is measured against (a real run of the unchanged program, or the figure the spec or a benchmark declares); in source mode the seed commit its candidates were built from, and its best verified program with the command that checks it out.</p>
<table><tr><th>task</th><th>baseline</th><th>seed commit</th><th>best real gain</th><th>best commit</th><th>check it out</th></tr>
{{range .}}<tr><td>{{.Env}}/{{.Task}}</td><td class="n">{{with .Baseline}}{{num (deref .)}}{{end}}{{if .BaselineRun}} <small>(run {{.BaselineRun}})</small>{{else if .Baseline}} <small>(declared)</small>{{end}}</td><td><small>{{.SeedCommit}}</small></td>{{with .Best}}<td class="n">{{num .Gain}}</td><td><small>{{.Commit}}</small></td>{{else}}<td></td><td></td>{{end}}<td>{{with .Checkout}}<code>{{.}}</code>{{end}}</td></tr>
{{end}}</table>{{end}}{{end}}`

const candidatesTemplate = `{{if .R.Status}}{{$id := .R.Status.ID}}{{with .R.Status.Candidates}}<h2>Candidates built from the seed program</h2>
<p>Each candidate's idea and diffstat (files changed, lines added and removed from the commit it was built on), and the real run that measured its commit: its metric and its gain over the task's baseline (blank where no real run measured it: a critic judged it, or the budget left none). A candidate whose run failed in its code went back to its builder with the end of the run's output, up to its source's repairs: its attempts list each commit and how its run ended, the last being the candidate. <code>assay patch {{$id}} CANDIDATE</code> prints one's diff.</p>
<table><tr><th>candidate</th><th>task</th><th>commit</th><th>files</th><th>+</th><th>&minus;</th><th>run</th><th>metric</th><th>real gain</th><th>idea</th></tr>
{{range .}}<tr><td>{{.Key}}</td><td>{{.Env}}/{{.Task}}</td><td><small>{{.Commit}}</small></td><td class="n">{{.Files}}</td><td class="n">{{.Additions}}</td><td class="n">{{.Deletions}}</td><td>{{.Status}}</td><td class="n">{{with .Metric}}{{num (deref .)}}{{end}}</td><td class="n">{{with .Gain}}{{num (deref .)}}{{end}}</td><td>{{.Idea}}{{with .Attempts}}<br><small>attempts:{{range .}} {{printf "%.12s" .Commit}} ({{if .Repair}}repair {{.Repair}}, {{end}}run {{.Run}}: {{.Status}}{{with .Reason}}: {{.}}{{end}});{{end}}</small>{{end}}</td></tr>{{end}}
</table>{{end}}{{end}}`
