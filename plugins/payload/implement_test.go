package payload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var shapesSource = &SourceContext{Commit: "c0ffee", Editable: []string{"train.py", "model.py", "conf"},
	Files: []SourceFile{{Path: "train.py", Content: "lr = 0.03\nepochs = 60\n"}, {Path: "model.py", Content: "width = 64\n"}}}

const lrDiff = "--- a/train.py\n+++ b/train.py\n@@ -1,2 +1,2 @@\n-lr = 0.03\n+lr = 0.1\n epochs = 60\n"

// Each answer shape a model writes becomes the change it names.
func TestParseImplement(t *testing.T) {
	cases := []struct {
		name, text string
		want       ImplementResponse
	}{
		{"the JSON object", `{"patch": "` + strings.ReplaceAll(lrDiff, "\n", `\n`) + `"}`, ImplementResponse{Patch: lrDiff}},
		{"the JSON object fenced, prose around", "Here it is:\n```json\n{\"infeasible\": true, \"reason\": \"no scheduler\"}\n```\n", ImplementResponse{Infeasible: true, Reason: "no scheduler"}},
		{"a fenced diff in prose", "I raise the rate.\n\n```diff\n" + lrDiff + "```\n\nThis should converge sooner.\n", ImplementResponse{Patch: lrDiff}},
		{"a bare diff", lrDiff, ImplementResponse{Patch: lrDiff}},
		{"a fenced hunk after its path", "train.py\n```diff\n@@ -1 +1 @@\n-lr = 0.03\n+lr = 0.1\n```\n", ImplementResponse{Patch: "--- a/train.py\n+++ b/train.py\n@@ -1 +1 @@\n-lr = 0.03\n+lr = 0.1\n"}},
		{"a SEARCH/REPLACE block after its path (aider)", "train.py\n```python\n<<<<<<< SEARCH\nlr = 0.03\n=======\nlr = 0.1\n>>>>>>> REPLACE\n```\n",
			ImplementResponse{Edits: []SourceEdit{{Path: "train.py", Search: "lr = 0.03\n", Replace: "lr = 0.1\n"}}}},
		{"blocks of two files; one without a path takes the one before", "### `train.py`\n<<<<<<< SEARCH\nlr = 0.03\n=======\nlr = 0.1\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nepochs = 60\n=======\nepochs = 90\n>>>>>>> REPLACE\n\nFile: model.py\n<<<<<<< SEARCH\nwidth = 64\n=======\nwidth = 128\n>>>>>>> REPLACE\n",
			ImplementResponse{Edits: []SourceEdit{{Path: "train.py", Search: "lr = 0.03\n", Replace: "lr = 0.1\n"}, {Path: "train.py", Search: "epochs = 60\n", Replace: "epochs = 90\n"}, {Path: "model.py", Search: "width = 64\n", Replace: "width = 128\n"}}}},
		{"a block with no path (OpenEvolve)", "Raise the rate:\n\n<<<<<<< SEARCH\nlr = 0.03\n=======\nlr = 0.1\n>>>>>>> REPLACE\n",
			ImplementResponse{Edits: []SourceEdit{{Search: "lr = 0.03\n", Replace: "lr = 0.1\n"}}}},
		{"a block that deletes lines", "train.py\n<<<<<<< SEARCH\nepochs = 60\n=======\n>>>>>>> REPLACE\n", ImplementResponse{Edits: []SourceEdit{{Path: "train.py", Search: "epochs = 60\n"}}}},
		{"a whole file after its path", "The whole file:\n\n**model.py**\n```python\nwidth = 128\n```\n", ImplementResponse{Files: []WholeFile{{Path: "model.py", Content: "width = 128\n"}}}},
		{"a whole file named in the fence", "```python train.py\nlr = 0.1\nepochs = 60\n```", ImplementResponse{Files: []WholeFile{{Path: "train.py", Content: "lr = 0.1\nepochs = 60\n"}}}},
		{"a whole JSON file of an editable directory", "conf/run.json\n```json\n{\"lr\": 0.1}\n```\n", ImplementResponse{Files: []WholeFile{{Path: "conf/run.json", Content: "{\"lr\": 0.1}\n"}}}},
		{"a diff of one file, a block of another", lrDiff + "\nmodel.py\n<<<<<<< SEARCH\nwidth = 64\n=======\nwidth = 128\n>>>>>>> REPLACE\n",
			ImplementResponse{Patch: lrDiff, Edits: []SourceEdit{{Path: "model.py", Search: "width = 64\n", Replace: "width = 128\n"}}}},
		{"CRLF line ends", strings.ReplaceAll("train.py\n<<<<<<< SEARCH\nlr = 0.03\n=======\nlr = 0.1\n>>>>>>> REPLACE\n", "\n", "\r\n"),
			ImplementResponse{Edits: []SourceEdit{{Path: "train.py", Search: "lr = 0.03\n", Replace: "lr = 0.1\n"}}}},
		{"infeasible", "INFEASIBLE: the program has no learning-rate schedule to warm up.", ImplementResponse{Infeasible: true, Reason: "the program has no learning-rate schedule to warm up."}},
	}
	for _, c := range cases {
		got, err := ParseImplement(c.text, shapesSource)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, d)
		}
	}
}

// An answer that changes nothing, or whose blocks cannot be read, is an
// error that says what to write.
func TestParseImplementRefuses(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"prose", "I would raise the learning rate.", "holds no change"},
		{"a snippet of no file", "Like this:\n```python\nlr = 0.1\n```\n", "holds no change"},
		{"a whole file that is not editable", "setup.py\n```python\nx = 1\n```\n", "holds no change"},
		{"a SEARCH without REPLACE", "train.py\n<<<<<<< SEARCH\nlr = 0.03\n=======\nlr = 0.1\n", "no ======= line and >>>>>>> REPLACE"},
		{"a SEARCH inside a SEARCH", "<<<<<<< SEARCH\na\n<<<<<<< SEARCH\nb\n=======\nc\n>>>>>>> REPLACE\n", "before the next SEARCH"},
		{"a hunk without a header or a path", "Two files are shown.\n@@ -1 +1 @@\n-lr = 0.03\n+lr = 0.1\n", "no file header"},
	}
	for _, c := range cases {
		got, err := ParseImplement(c.text, shapesSource)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %+v, %v; want an error with %q", c.name, got, err, c.want)
		}
	}
	if _, err := ParseImplement(lrDiff, nil); err == nil {
		t.Error("in knob mode a diff was read; only the JSON object is")
	}
	if got, err := ParseImplement(`{"proposal": {"ID": "p", "Edits": {"lr": "0.1"}}}`, nil); err != nil || got.Proposal.Edits["lr"] != "0.1" {
		t.Errorf("knob mode: %+v, %v", got, err)
	}
}

// FuzzParseImplement: whatever a builder answers, ParseImplement gives a
// change, an infeasible idea or an error; a change's payload passes the
// strict decoder and is within the bounds.
func FuzzParseImplement(f *testing.F) {
	f.Add(lrDiff)
	f.Add("train.py\n```python\n<<<<<<< SEARCH\nlr = 0.03\n=======\nlr = 0.1\n>>>>>>> REPLACE\n```\n")
	f.Add("```python train.py\nlr = 0.1\n```")
	f.Add("train.py\n```diff\n@@ -1 +1 @@\n-a\n+b\n```")
	f.Add("INFEASIBLE: no")
	f.Add(`{"edits": [{"path": "train.py", "search": "a", "replace": "b"}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseImplement(text, shapesSource)
		if err != nil {
			return
		}
		if !r.Infeasible && r.Patch == "" && len(r.Edits) == 0 && len(r.Files) == 0 && !strings.HasPrefix(strings.TrimSpace(ExtractJSON(text)), "{") {
			t.Fatalf("%q: no change, not infeasible, no error", text)
		}
		b, err := Encode(&r)
		if err != nil {
			t.Fatal(err)
		}
		if err := Decode(b, &ImplementResponse{}); err != nil {
			t.Fatalf("%s fails the strict decoder: %v", b, err)
		}
	})
}
