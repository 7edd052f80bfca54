package load

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

const suiteSpec = `environment "e" {
  suite   = "suite/s.json"
  trainer = plugin.t
%s}
`

const twoTasks = `{
  "format": 1,
  "name": "s",
  "tasks": [
    {"name": "a", "domain": "cv", "split": "train", "description": "task a",
     "scaffold": {"repository": "repo", "revision": "v1", "editable": ["train.go"]},
     "evaluate": ["go", "run", ".", "-task", "a"],
     "metric": {"name": "loss", "direction": "minimize"},
     "baseline": 0.5, "scale": 0.1, "bounds": {"low": 0, "high": 1}},
    {"name": "b", "domain": "nlp", "split": "holdout",
     "scaffold": {"repository": "repo", "editable": ["train.go"]},
     "evaluate": ["./eval"],
     "metric": {"name": "loss", "direction": "minimize"},
     "baseline": 2, "bounds": {"low": 1, "high": 3}}
  ]
}
`

// A suite's tasks join the environment's, with everything the manifest
// says of them; its scaffold directory is relative to the manifest.
func TestSuiteExpands(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"spec.hcl":     fmt.Sprintf(suiteSpec, `  task "own" { split = "train" }`+"\n  source {}\n"),
		"suite/s.json": twoTasks,
	})
	s, _ := mustLoad(t, filepath.Join(dir, "spec.hcl"), Options{})
	e := s.Environments[0]
	if len(e.TaskList) != 3 {
		t.Fatalf("tasks %d, want own, a and b", len(e.TaskList))
	}
	a, b := e.TaskList[1], e.TaskList[2]
	if a.Name != "a" || a.Split.V != "train" || a.Baseline.V != 0.5 || a.Scale.V != 0.1 || b.Name != "b" || b.Split.V != "holdout" || b.Scale.Set {
		t.Errorf("tasks %+v %+v", a, b)
	}
	sa := a.Suite
	if sa == nil || sa.Domain != "cv" || sa.Description != "task a" || sa.Low != 0 || sa.High != 1 || sa.Metric != "loss" ||
		strings.Join(sa.Command, " ") != "go run . -task a" || sa.Dir != filepath.Join(dir, "suite", "repo") || sa.Revision != "v1" {
		t.Errorf("suite task %+v", sa)
	}
	if a.NameRange.Filename != filepath.Join(dir, "suite", "s.json") || a.NameRange.Start.Line != 5 {
		t.Errorf("task a at %s, want the manifest's line 5", a.NameRange)
	}
	if e.Metric == nil || e.Metric.Name.V != "loss" || e.Metric.Direction.V != "minimize" {
		t.Errorf("the environment's metric is not the suite's: %+v", e.Metric)
	}
}

// Every fault of a manifest, or of its use, is an E_SUITE error at a
// position: in the manifest where it can be, else at the suite attribute.
func TestSuiteErrors(t *testing.T) {
	task := func(edit string) string {
		return strings.Replace(twoTasks, `"baseline": 2,`, edit, 1)
	}
	cases := []struct {
		name, manifest, env string
		at, want            string
	}{
		{"missing file", "", "", "spec.hcl:2:13", "cannot read task suite"},
		{"not JSON", "{\n  \"format\": 1,\n  \"tasks\": [ oops ]\n}", "", "s.json:3:14", "not JSON"},
		{"truncated", "{\"format\": 1, \"tasks\": [", "", "s.json:1", "ends early"},
		{"unknown key", strings.Replace(twoTasks, `"scale": 0.1`, `"sclae": 0.1`, 1), "", "s.json:9:23", `unknown key "sclae" in tasks[]`},
		{"duplicate key", task(`"baseline": 2, "baseline": 3,`), "", "s.json:14:21", "given twice"},
		{"wrong type", task(`"baseline": "2",`), "", "s.json:14:18", "not a number"},
		{"bad split", strings.Replace(twoTasks, `"holdout"`, `"test"`, 1), "", "s.json:10:45", "want train or holdout"},
		{"no baseline", task(""), "", "s.json:10:5", "has no baseline"},
		{"bounds reversed", strings.Replace(twoTasks, `{"low": 1, "high": 3}`, `{"low": 3, "high": 1}`, 1), "", "s.json:14:31", "must be below high"},
		{"shell string", strings.Replace(twoTasks, `["./eval"]`, `"./eval --fast"`, 1), "", "s.json:12:18", "not a list"},
		{"empty argv", strings.Replace(twoTasks, `["./eval"]`, `[]`, 1), "", "s.json:12:18", "missing or empty"},
		{"editable escapes", strings.Replace(twoTasks, `["train.go"]}`, `["../x"]}`, 1), "", "s.json:6", "not a path inside"},
		{"url repository", strings.Replace(twoTasks, `"repo", "revision"`, `"https://example.com/r.git", "revision"`, 1), "", "s.json:6", "is a URL"},
		{"duplicate task", strings.Replace(twoTasks, `"name": "b"`, `"name": "a"`, 1), "", "s.json:10:14", "listed twice"},
		{"bad name", strings.Replace(twoTasks, `"name": "b"`, `"name": "b c"`, 1), "", "s.json:10:14", "not a valid name"},
		{"format", strings.Replace(twoTasks, `"format": 1`, `"format": 2`, 1), "", "s.json:2:13", "format is 2"},
		{"deep", strings.Replace(twoTasks, `"task a"`, `[[[[[[[[[1]]]]]]]]]`, 1), "", "s.json:5:73", "nests deeper"},
		{"two values", twoTasks + "{}", "", "s.json:17:1", "more than one JSON value"},
		{"clash", twoTasks, `  task "b" { split = "train" }` + "\n", "spec.hcl:4:8", `task "b" is both written here and listed by the suite`},
		{"revision in knob mode", twoTasks, "", "s.json:6:53", `pins its scaffold at revision "v1", but environment "e" has no source block`},
		{"criteria twice", task(`"criteria": "c", "criteria_file": "c.txt", "baseline": 2,`), "", "s.json:14", "sets both criteria and criteria_file"},
		{"criteria file missing", task(`"criteria_file": "nope.txt", "baseline": 2,`), "", "s.json:14:23", `task "b": cannot read criteria file nope.txt`},
		{"criteria file empty", task(`"criteria_file": "", "baseline": 2,`), "", "s.json:14:23", "criteria_file is empty"},
		{"direction", twoTasks, "  metric {\n    name = \"acc\"\n    direction = \"maximize\"\n  }\n", "s.json:5:5", "environment \"e\"'s metric is to maximize"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"spec.hcl": fmt.Sprintf(suiteSpec, c.env)}
			if c.manifest != "" {
				files["suite/s.json"] = c.manifest
			}
			dir := writeFiles(t, files)
			_, _, ds := Load(filepath.Join(dir, "spec.hcl"), Options{})
			var got []string
			for _, d := range ds {
				if d.Code != codeSuite {
					continue
				}
				at := strings.TrimPrefix(d.Range.String(), dir+string(filepath.Separator))
				got = append(got, at+": "+d.Summary)
				if strings.Contains(d.Summary, c.want) && strings.HasPrefix(filepath.Base(at), filepath.Base(c.at)) {
					return
				}
			}
			t.Errorf("want %s at %s; got %q", c.want, c.at, got)
		})
	}
}

// The manifest's bounds hold before anything is allocated for it.
func TestSuiteBounds(t *testing.T) {
	big := `{"format": 1, "description": "` + strings.Repeat("x", MaxSuiteBytes) + `", "tasks": []}`
	if _, ds := ParseManifest("big.json", []byte(big)); !ds.HasErrors() || !strings.Contains(ds[0].Summary, "larger than") {
		t.Errorf("a manifest over the byte bound: %v", ds)
	}
	entry := `{"name": "t%d", "domain": "d", "split": "train", "scaffold": {"repository": ".", "editable": ["x"]}, "evaluate": ["x"], "metric": {"name": "m", "direction": "minimize"}, "baseline": 1, "bounds": {"low": 0, "high": 2}}`
	var tasks []string
	for i := range MaxSuiteTasks + 1 {
		tasks = append(tasks, fmt.Sprintf(entry, i))
	}
	src := `{"format": 1, "tasks": [` + strings.Join(tasks, ",\n") + `]}`
	if _, ds := ParseManifest("many.json", []byte(src)); !ds.HasErrors() || !strings.Contains(ds.Error(), "at most 256") {
		t.Errorf("a manifest over the task bound: %v", ds)
	}
	if m, ds := ParseManifest("ok.json", []byte(`{"format": 1, "tasks": [`+strings.Join(tasks[:MaxSuiteTasks], ",\n")+`]}`)); ds.HasErrors() || len(m.Tasks) != MaxSuiteTasks {
		t.Errorf("a manifest at the task bound: %v", ds)
	}
}

// A suite task's criteria, inline or from a file relative to the
// manifest, reach its spec task with where they came from; the file's
// final newline is no part of them, and the file joins the sources.
func TestSuiteCriteria(t *testing.T) {
	m := strings.Replace(twoTasks, `"description": "task a",`, `"description": "task a", "criteria_file": "crit/a.txt",`, 1)
	m = strings.Replace(m, `"baseline": 2,`, `"criteria": "Judge b by its loss.", "baseline": 2,`, 1)
	dir := writeFiles(t, map[string]string{
		"spec.hcl":         fmt.Sprintf(suiteSpec, "  source {}\n"),
		"suite/s.json":     m,
		"suite/crit/a.txt": "Judge a by its accuracy.\nAnd its cost.\n",
	})
	s, src := mustLoad(t, filepath.Join(dir, "spec.hcl"), Options{})
	a, b := s.Environments[0].TaskList[0].Suite, s.Environments[0].TaskList[1].Suite
	if a.Criteria != "Judge a by its accuracy.\nAnd its cost." || a.CriteriaFrom != "crit/a.txt" {
		t.Errorf("task a's criteria %q from %q", a.Criteria, a.CriteriaFrom)
	}
	if b.Criteria != "Judge b by its loss." || b.CriteriaFrom != "inline" {
		t.Errorf("task b's criteria %q from %q", b.Criteria, b.CriteriaFrom)
	}
	if _, ok := src[filepath.Join(dir, "suite", "crit", "a.txt")]; !ok {
		t.Errorf("the criteria file is not among the sources")
	}
}

// FuzzParseManifest: no manifest panics the parser, and every error it
// reports is positioned inside the text.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(twoTasks))
	f.Add([]byte(`{"format": 1, "tasks": [null]}`))
	f.Add([]byte(`{"tasks": [{"bounds": {"low": 1e308, "high": -1e308}}]}`))
	f.Add([]byte("[1, {\"a\": [[[[[[[[[[]]]]]]]]]]}]"))
	f.Add([]byte(`{"format": 1, "tasks": [{"evaluate": ["\u0000"]}]}`))
	f.Add([]byte(`{"format": 1, "tasks": [{"criteria": "c", "criteria_file": ""}, {"criteria_file": "\u0000"}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, ds := ParseManifest("m.json", src)
		for _, d := range ds {
			if d.Range.Start.Line < 1 || d.Range.Start.Byte > len(src) {
				t.Fatalf("%s at %+v", d.Summary, d.Range)
			}
		}
	})
}
