package lsp

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/load"
)

// validate checks a spec as `assay validate` does, with text standing in
// for the file at path.
func validate(t *testing.T, path, text string) diag.Diagnostics {
	t.Helper()
	s, _, ds := load.Load(path, load.Options{Overlay: map[string][]byte{path: []byte(text)}})
	if ds.HasErrors() || s == nil {
		return ds
	}
	p, cds := compiler.Compile(s, compiler.Options{})
	ds = ds.Append(cds)
	if !ds.HasErrors() && p != nil && len(p.Variants) > 0 {
		ds = ds.Append(estimate.Estimate(p).CheckCaps(p.Variants[0].Budget))
	}
	return ds
}

// TestSpecsAsValidate opens every example spec and checks that the server
// publishes, on it, what validate reports in it.
func TestSpecsAsValidate(t *testing.T) {
	t.Parallel()
	e := startEditor(t, Options{})
	files, _ := filepath.Glob(specPath(t, "*.hcl"))
	cues, _ := filepath.Glob(specPath(t, "*.cue"))
	files = append(files, cues...)
	if len(files) < 10 {
		t.Fatalf("only %d specs", len(files))
	}
	for _, path := range files {
		text := readSpec(t, filepath.Base(path))
		var want diag.Diagnostics
		for _, d := range validate(t, path, text) {
			if d.Range.Filename == path || !d.Range.Valid() {
				want = append(want, d)
			}
		}
		u := e.open(path, text)
		if ds := e.waitDiags(u, 1); !sameAsValidate(ds, want) {
			t.Errorf("%s: published %+v\nvalidate: %s", filepath.Base(path), ds, want.Format(0))
		}
	}
}

// sameAsValidate reports whether published diagnostics are validate's:
// the same codes at the same places.
func sameAsValidate(ds []protocol.Diagnostic, want diag.Diagnostics) bool {
	if len(ds) != len(want) {
		return false
	}
	for i, w := range want {
		if ds[i].Code != w.Code || int(ds[i].Range.Start.Line) != w.Range.Start.Line-1 {
			return false
		}
	}
	return true
}

func labels(items []protocol.CompletionItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Label)
	}
	return out
}

func has(xs []string, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(xs, w) {
			return false
		}
	}
	return true
}

// TestEditing drives the server through what an editor does with
// specs/lm2lm.hcl: open it with an error, see the diagnostic, fix it and
// see it cleared, then hover, complete, go to definition, find
// references, format and read the code lens. The steps share one open
// buffer, in order: each helper leaves it as lm2lm.hcl was, or says so.
func TestEditing(t *testing.T) {
	t.Parallel()
	e := startEditor(t, Options{})
	path := specPath(t, "lm2lm.hcl")
	orig := readSpec(t, "lm2lm.hcl")

	u, clean := editDiagnostics(t, e, path, orig)
	editHover(t, e, u)
	editCompletion(t, e, u, orig, clean)
	editNavigation(t, e, u)
	editFormatting(t, e, u, path, orig)
	editCodeLens(t, e, u)
}

// editDiagnostics opens lm2lm.hcl with an error, checks it is published as
// validate reports it, fixes it, and adds and removes a warning. It
// returns the open document and validate's diagnostics of the clean spec.
func editDiagnostics(t *testing.T, e *editor, path, orig string) (protocol.DocumentURI, diag.Diagnostics) {
	t.Helper()
	// An error: a misspelt formula name, reported as validate reports it.
	broken := strings.Replace(orig, "clip(predicted_gain", "clip(predicted_gian", 1)
	u := e.open(path, broken)
	ds := e.waitDiags(u, 1)
	want := validate(t, path, broken)
	if len(ds) != len(want) || len(ds) == 0 {
		t.Fatalf("diagnostics:\n%+v\nvalidate says:\n%s", ds, want.Format(0))
	}
	for i, w := range want {
		got := ds[i]
		if got.Code != w.Code || int(got.Range.Start.Line) != w.Range.Start.Line-1 || int(got.Range.Start.Character) != w.Range.Start.Column-1 {
			t.Errorf("diagnostic %d: %v at %d:%d, validate: %s at %s", i, got.Code, got.Range.Start.Line+1, got.Range.Start.Character+1, w.Code, w.Range)
		}
		if !strings.Contains(got.Message, w.Summary) {
			t.Errorf("diagnostic %d says %q, validate %q", i, got.Message, w.Summary)
		}
	}
	if ds[0].Code != "E_FORMULA_NAME" || ds[0].Severity != protocol.DiagnosticSeverityError {
		t.Errorf("first diagnostic %v %v, want an E_FORMULA_NAME error", ds[0].Code, ds[0].Severity)
	}

	// The fix clears it.
	v := e.replace(u, "predicted_gian", "predicted_gain")
	clean := validate(t, path, orig) // a warning: builtin:openai cannot train
	if clean.HasErrors() {
		t.Fatalf("lm2lm.hcl: %s", clean.Format(0))
	}
	if ds := e.waitDiags(u, v); !sameAsValidate(ds, clean) {
		t.Fatalf("after the fix: %+v", ds)
	}

	// A warning is published too, with its code.
	v = e.replace(u, "  learning_rate       = 1e-6\n", "  learning_rate       = 1e-6\n  islands = 4\n")
	ds = e.waitDiags(u, v)
	if want := validate(t, path, e.text(u)); !sameAsValidate(ds, want) || len(want) <= len(clean) {
		t.Fatalf("after adding islands: %+v, validate: %s", ds, want.Format(0))
	}
	v = e.replace(u, "  islands = 4\n", "")
	if ds := e.waitDiags(u, v); !sameAsValidate(ds, clean) {
		t.Fatalf("after removing islands: %+v", ds)
	}
	return u, clean
}

// hoverAt is the hover text at pos in u, "" when there is none.
func hoverAt(t *testing.T, e *editor, u protocol.DocumentURI, pos protocol.Position) string {
	t.Helper()
	h, err := e.srv.Hover(e.ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}})
	if err != nil {
		t.Fatal(err)
	}
	if h == nil {
		return ""
	}
	return h.Contents.Value
}

// completeAt is the labels of the completions at pos in u.
func completeAt(t *testing.T, e *editor, u protocol.DocumentURI, pos protocol.Position) []string {
	t.Helper()
	l, err := e.srv.Completion(e.ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}})
	if err != nil {
		t.Fatal(err)
	}
	return labels(l.Items)
}

// editHover hovers a field, an enum, a reference and a loop.
func editHover(t *testing.T, e *editor, u protocol.DocumentURI) {
	t.Helper()
	// A field: documentation, type, default.
	if h := hoverAt(t, e, u, e.at(u, "role \"rwm\"", "temperature", 2)); !strings.Contains(h, "role.*.temperature") || !strings.Contains(h, "number") || !strings.Contains(h, "Sampling temperature") || !strings.Contains(h, "Default: 1.0") {
		t.Errorf("hover on temperature:\n%s", h)
	}
	// An enum: the allowed values.
	if h := hoverAt(t, e, u, e.at(u, "reward \"rwm_gain\"", "normalize", 0)); !strings.Contains(h, `"scale"`) || !strings.Contains(h, `"none"`) {
		t.Errorf("hover on normalize:\n%s", h)
	}
	// A reference: the block it names.
	if h := hoverAt(t, e, u, e.at(u, "predictor", "role.rwm", 6)); !strings.Contains(h, `role "rwm" {`) || !strings.Contains(h, `model       = "GPT-6-sol"`) {
		t.Errorf("hover on role.rwm:\n%s", h)
	}
	// A loop: its estimated steps, real runs and dollars.
	if h := hoverAt(t, e, u, e.at(u, "loop \"policy\"", "policy", 1)); !strings.Contains(h, "Estimate: 96 steps") || !strings.Contains(h, "real runs") || !strings.Contains(h, "$") {
		t.Errorf("hover on loop policy:\n%s", h)
	}
	if h := hoverAt(t, e, u, e.at(u, "calibration {", "loop.policy", 6)); !strings.Contains(h, "Estimate: 96 steps") {
		t.Errorf("hover on loop.policy:\n%s", h)
	}
}

// editCompletion types partial lines and checks what is offered, then
// removes them and checks the spec is restored with its diagnostics.
func editCompletion(t *testing.T, e *editor, u protocol.DocumentURI, orig string, clean diag.Diagnostics) {
	t.Helper()
	// Field names valid in a loop, on a new line being typed.
	e.replace(u, "  learning_rate       = 1e-6\n", "  learning_rate       = 1e-6\n  sc\n")
	if got := completeAt(t, e, u, e.at(u, "  sc\n", "sc", 2)); !has(got, "screen", "steps", "algorithm", "islands") || has(got, "model") {
		t.Errorf("completion in a loop: %v", got)
	}
	// Enum values inside a string.
	e.replace(u, "  sc\n", "  algorithm = \"\"\n")
	if got := completeAt(t, e, u, e.at(u, "algorithm = \"", "\"", 1)); !has(got, "grpo", "dapo") || len(got) != 2 {
		t.Errorf("completion of algorithm: %v", got)
	}
	// References to declared blocks of the kinds a field takes.
	e.replace(u, "  algorithm = \"\"\n", "  screen = \n")
	if got := completeAt(t, e, u, e.at(u, "  screen = \n", "\n", 0)); len(got) != 0 {
		t.Errorf("completion of screen in a spec without critics: %v", got)
	}
	e.replace(u, "  screen = \n", "  proposer = \n")
	if got := completeAt(t, e, u, e.at(u, "  proposer = \n", "\n", 0)); !has(got, "role.proposer", "role.rwm", "role.builder") || has(got, "plugin.openai") {
		t.Errorf("completion of proposer: %v", got)
	}
	e.replace(u, "  proposer = \n", "  proposer = role.\n")
	if got := completeAt(t, e, u, e.at(u, "  proposer = role.\n", "\n", 0)); !has(got, "proposer", "rwm", "builder") || len(got) != 3 {
		t.Errorf("completion after role.: %v", got)
	}
	// Block types at the top level.
	e.replace(u, "  proposer = role.\n", "")
	e.replace(u, "\nrecords {", "\ncr\nrecords {")
	if got := completeAt(t, e, u, e.at(u, "\ncr\n", "cr", 2)); !has(got, "critic", "role", "loop", "budget", "extends") || has(got, "steps") {
		t.Errorf("completion at the top level: %v", got)
	}
	v := e.replace(u, "\ncr\nrecords {", "\nrecords {")
	if e.text(u) != orig {
		t.Fatalf("the edits did not restore the spec")
	}
	if ds := e.waitDiags(u, v); !sameAsValidate(ds, clean) {
		t.Fatalf("restored spec: %+v", ds)
	}
}

// editNavigation goes to definitions and finds references, of blocks and
// of variables, and completes a variable's name.
func editNavigation(t *testing.T, e *editor, u protocol.DocumentURI) {
	t.Helper()
	defn, err := e.srv.Definition(e.ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: e.at(u, "predictor", "role.rwm", 7)}})
	if err != nil {
		t.Fatal(err)
	}
	if wantPos := e.at(u, "role \"rwm\"", "\"rwm\"", 0); len(defn) != 1 || defn[0].URI != u || defn[0].Range.Start != wantPos {
		t.Errorf("definition of role.rwm: %+v, want %v", defn, wantPos)
	}
	refs, err := e.srv.References(e.ctx, &protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: e.at(u, "role \"rwm\"", "plugin.openai", 8)},
		Context:                    protocol.ReferenceContext{IncludeDeclaration: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	inFile, inBase := 0, 0
	base := protocol.DocumentURI(uri.File(specPath(t, filepath.Join("common", "lm2lm.hcl"))))
	for _, r := range refs {
		switch r.URI {
		case u:
			inFile++
		case base:
			inBase++
		}
	}
	// The rwm's and the builder's llm here; the declaration and the
	// proposer's llm in the base lm2lm.hcl extends. lm2lm-eval.hcl extends
	// it but does not mention plugin.openai.
	if inFile != 2 || inBase != 2 {
		t.Errorf("references to plugin.openai: %d in lm2lm.hcl, want 2; %d in its base, want 2: %+v", inFile, inBase, refs)
	}

	// Variables: var.NAME is a reference to its variable block.
	if h := hoverAt(t, e, u, e.at(u, "loop \"policy\"", "var.steps", 5)); !strings.Contains(h, "variable `steps`") || !strings.Contains(h, "DAPO policy updates") {
		t.Errorf("hover on var.steps:\n%s", h)
	}
	defn, err = e.srv.Definition(e.ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: e.at(u, "calibration {", "var.calibration_budget", 6)}})
	if err != nil || len(defn) != 1 || defn[0].Range.Start != e.at(u, "variable", "\"calibration_budget\"", 0) {
		t.Errorf("definition of var.calibration_budget: %+v %v", defn, err)
	}
	e.replace(u, "  steps               = var.steps\n", "  steps               = var.\n")
	if got := completeAt(t, e, u, e.at(u, "= var.\n", "\n", 0)); !has(got, "steps", "calibration_budget", "grpo_update", "lm2lm_train") || len(got) != 4 {
		t.Errorf("completion after var.: %v", got)
	}
	e.replace(u, "  steps               = var.\n", "  steps               = var.steps\n")
}

// editFormatting misaligns a line and checks the server formats the spec
// as assay fmt writes it, and leaves a formatted spec alone.
func editFormatting(t *testing.T, e *editor, u protocol.DocumentURI, path, orig string) {
	t.Helper()
	e.replace(u, "  rollout_every       = 8\n", "  rollout_every = 8\n")
	edits, err := e.srv.Formatting(e.ctx, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatal(err)
	}
	fmtWant, _ := hcl.Format(path, []byte(e.text(u)))
	if len(edits) != 1 || edits[0].NewText != string(fmtWant) || edits[0].NewText != orig {
		t.Fatalf("formatting: %d edits", len(edits))
	}
	e.replace(u, e.text(u), edits[0].NewText)
	if edits, _ := e.srv.Formatting(e.ctx, &protocol.DocumentFormattingParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); len(edits) != 0 {
		t.Errorf("formatting a formatted spec: %+v", edits)
	}
}

// editCodeLens reads the code lens: the estimate of the saved spec,
// refreshed on save and not before.
func editCodeLens(t *testing.T, e *editor, u protocol.DocumentURI) {
	t.Helper()
	lens := func() []string {
		t.Helper()
		ls, err := e.srv.CodeLens(e.ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range ls {
			out = append(out, l.Command.Title)
		}
		return out
	}
	save := func() {
		t.Helper()
		if err := e.srv.DidSave(e.ctx, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
			t.Fatal(err)
		}
	}
	// Opened with an error, the lens says so until a save.
	if got := lens(); len(got) != 1 || !strings.Contains(got[0], "1 error") {
		t.Errorf("code lens of the spec opened with an error: %q", got)
	}
	save()
	e.waitRefresh(2) // one for the open, one for the save
	if got := lens(); len(got) != 2 || !strings.HasPrefix(got[0], "Estimate: 200 real runs · $") || !strings.HasPrefix(got[1], "loop policy: 96 steps") {
		t.Fatalf("code lens: %q", got)
	}
	v := e.replace(u, "default     = 96", "default     = 80")
	e.waitDiags(u, v)
	if got := lens(); !strings.HasPrefix(got[1], "loop policy: 96 steps") {
		t.Errorf("code lens before the save: %q", got)
	}
	save()
	e.waitRefresh(3)
	if got := lens(); len(got) != 2 || !strings.HasPrefix(got[1], "loop policy: 80 steps") {
		t.Errorf("code lens after the save: %q", got)
	}
}

// TestExtendsChain checks that an unsaved base buffer is what a spec that
// extends it is checked against, and that definitions follow extends.
func TestExtendsChain(t *testing.T) {
	t.Parallel()
	e := startEditor(t, Options{})
	ctx := e.ctx
	base := specPath(t, "lm2lm.hcl")
	// A spec never saved, beside lm2lm.hcl.
	child := filepath.Join(filepath.Dir(base), "unsaved-child.hcl")
	cu := e.open(child, "extends = \"lm2lm.hcl\"\nname    = \"child\"\n\nloop \"policy\" {\n  reward = reward.rwm_gain\n}\n")
	// Its warning (the base's plugin cannot train) is at the base's loop.
	if ds := e.waitDiags(cu, 1); len(ds) != 0 {
		t.Fatalf("child: %+v", ds)
	}
	// Rename the reward in the base without saving: the child's
	// reference no longer resolves.
	bu := e.open(base, readSpec(t, "lm2lm.hcl"))
	e.waitDiags(bu, 1)
	e.replace(bu, "reward \"rwm_gain\"", "reward \"gain\"")
	e.replace(bu, "reward.rwm_gain", "reward.gain")
	var ds []protocol.Diagnostic
	for len(ds) == 0 || ds[0].Code == "W_POLICY_FIXED" {
		ds = e.waitDiags(cu, 0)
	}
	if ds[0].Code != "E_UNKNOWN_REF" || ds[0].Range.Start.Line != 4 {
		t.Fatalf("child after renaming the base's reward: %+v", ds)
	}
	// Definitions: the reward in the unsaved base; extends to the base.
	e.replace(bu, "reward \"gain\"", "reward \"rwm_gain\"")
	defn, err := e.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: cu}, Position: e.at(cu, "reward =", "rwm_gain", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(defn) != 1 || defn[0].URI != bu || defn[0].Range.Start != e.at(bu, "reward \"rwm_gain\"", "\"rwm_gain\"", 0) {
		t.Errorf("definition of reward.rwm_gain: %+v", defn)
	}
	defn, err = e.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: cu}, Position: e.at(cu, "extends", "lm2lm", 2)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(defn) != 1 || defn[0].URI != bu || defn[0].Range.Start != (protocol.Position{}) {
		t.Errorf("definition of extends: %+v", defn)
	}
	// References to the base's loop include the child's block of the
	// same name (and those of other specs that extend the base, such as
	// lm2lm-eval.hcl), and none of a spec outside the chain.
	refs, err := e.srv.References(ctx, &protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: bu}, Position: e.at(bu, "calibration {", "loop.policy", 6)},
		Context:                    protocol.ReferenceContext{IncludeDeclaration: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]int{}
	for _, r := range refs {
		files[filepath.Base(uri.URI(r.URI).Filename())]++
	}
	if files["lm2lm.hcl"] != 2 || files["unsaved-child.hcl"] != 1 || files["critic-grpo.hcl"] != 0 {
		t.Errorf("references to loop.policy by file: %v", files)
	}
}

// TestCUE checks diagnostics, hover, completion and definitions on the
// CUE form of lm2lm.
func TestCUE(t *testing.T) {
	t.Parallel()
	e := startEditor(t, Options{})
	ctx := e.ctx
	path := specPath(t, "lm2lm.cue")
	u := e.open(path, readSpec(t, "lm2lm.cue"))
	if ds := e.waitDiags(u, 1); !sameAsValidate(ds, validate(t, path, e.text(u))) {
		t.Fatalf("lm2lm.cue: %+v", ds)
	}
	v := e.replace(u, "temperature: 0.0", "temperature: \"hot\"")
	ds := e.waitDiags(u, v)
	want := validate(t, path, e.text(u))
	if len(ds) == 0 || len(want) == 0 || ds[0].Code != want[0].Code || int(ds[0].Range.Start.Line) != want[0].Range.Start.Line-1 {
		t.Fatalf("type error: %+v, validate: %s", ds, want.Format(0))
	}
	e.replace(u, "temperature: \"hot\"", "temperature: 0.0")
	h, err := e.srv.Hover(ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: e.at(u, "role: rwm:", "tokens", 1)}})
	if err != nil || h == nil || !strings.Contains(h.Contents.Value, "role.*.tokens") {
		t.Errorf("hover on tokens: %+v %v", h, err)
	}
	defn, err := e.srv.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: e.at(u, "predictor:", "role.rwm", 5)}})
	if err != nil || len(defn) != 1 || defn[0].Range.Start != e.at(u, "role: rwm:", "rwm", 0) {
		t.Errorf("definition of role.rwm: %+v %v", defn, err)
	}
	e.replace(u, "\tlearning_rate:", "\tsc\n\tlearning_rate:")
	l, err := e.srv.Completion(ctx, &protocol.CompletionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: e.at(u, "\tsc\n", "sc", 2)}})
	if err != nil || !has(labels(l.Items), "screen", "steps") {
		t.Errorf("completion in a CUE loop: %v %v", l, err)
	}
}

// TestEditSupersedesCheck holds a check after its load, edits the
// document under it, and checks that the stale result is dropped: the
// editor sees diagnostics of the new version only, and promptly.
func TestEditSupersedesCheck(t *testing.T) {
	t.Parallel()
	loaded := make(chan struct{}, 16)
	release := make(chan struct{})
	var once sync.Once
	e := startEditor(t, Options{afterLoad: func() {
		loaded <- struct{}{}
		once.Do(func() { <-release })
	}})
	path := specPath(t, "lm2lm.hcl")
	u := e.open(path, strings.Replace(readSpec(t, "lm2lm.hcl"), "predicted_gain / scale", "predicted_gian / scale", 1))
	<-loaded // the check of version 1 is past its load
	v := e.replace(u, "predicted_gian", "predicted_gain")
	// didChange is a notification: nothing says when the server took it.
	// The server handles messages in order, each after the one before has
	// replied, so the answer to a request sent after it means it was taken
	// before the check of version 1 goes on.
	if _, err := e.srv.Hover(e.ctx, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}}); err != nil {
		t.Fatal(err)
	}
	close(release)
	ds := e.waitDiags(u, v)
	if !sameAsValidate(ds, validate(t, path, e.text(u))) {
		t.Fatalf("diagnostics of the fixed spec: %+v", ds)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if h := e.history[u]; len(h) != 1 || h[0] != uint32(v) {
		t.Errorf("published versions %v, want only %d: the check of version 1 was stale", h, v)
	}
}
