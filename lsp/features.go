package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"cuelang.org/go/cue/format"
	"go.lsp.dev/protocol"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/hcl"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// fileSyntax returns the syntax and text of a spec file: the open
// document's, or the file's on disk.
func (s *server) fileSyntax(path string) (*syntax, *text) {
	s.mu.Lock()
	for _, d := range s.docs {
		if d.path == path {
			if d.syn == nil {
				d.syn = analyze(d.text.src, d.cue)
			}
			syn, t := d.syn, d.text
			s.mu.Unlock()
			return syn, t
		}
	}
	s.mu.Unlock()
	b, err := load.ReadSource(path)
	if err != nil {
		return nil, nil
	}
	return analyze(b, strings.EqualFold(filepath.Ext(path), ".cue")), newText(b)
}

// chain returns path followed by the specs it extends, nearest first, as
// their extends attributes say now (unsaved buffers included).
func (s *server) chain(path string) []string {
	out := []string{path}
	seen := map[string]bool{path: true}
	for len(out) < 32 {
		syn, _ := s.fileSyntax(out[len(out)-1])
		if syn == nil || syn.extends == nil {
			break
		}
		base := syn.extends.text
		if !filepath.IsAbs(base) {
			base = filepath.Join(filepath.Dir(out[len(out)-1]), base)
		}
		base = filepath.Clean(base)
		if seen[base] {
			break
		}
		seen[base] = true
		out = append(out, base)
	}
	return out
}

func (s *server) location(path string, t *text, start, end int) protocol.Location {
	s.mu.Lock()
	u := s.uriOf(path)
	s.mu.Unlock()
	return protocol.Location{URI: u, Range: t.rng(start, end)}
}

// target is what a position names: a reference kind.name or the label of
// a block that defines one.
func target(syn *syntax, off int) (kind, name string, ok bool) {
	for _, r := range syn.refs {
		if r.start <= off && off <= r.end {
			return r.kind, r.name, true
		}
	}
	for _, d := range syn.defs {
		if d.t.start <= off && off <= d.t.end {
			return d.kind, d.name, true
		}
	}
	return "", "", false
}

// definitions finds where kind.name is defined in the chain of path,
// nearest first.
func (s *server) definitions(path, kind, name string) []protocol.Location {
	var out []protocol.Location
	for _, f := range s.chain(path) {
		syn, t := s.fileSyntax(f)
		if syn == nil {
			continue
		}
		for _, d := range syn.defs {
			if d.kind == kind && d.name == name {
				out = append(out, s.location(f, t, d.t.start, d.t.end))
			}
		}
	}
	return out
}

func (s *server) definition(p json.RawMessage) (any, error) {
	var params protocol.DefinitionParams
	if err := decode(p, &params); err != nil {
		return nil, err
	}
	d, t, syn, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := t.offset(params.Position)
	if e := syn.extends; e != nil && e.start <= off && off <= e.end {
		base := e.text
		if !filepath.IsAbs(base) {
			base = filepath.Join(filepath.Dir(d.path), base)
		}
		base = filepath.Clean(base)
		if _, bt := s.fileSyntax(base); bt != nil {
			return []protocol.Location{s.location(base, bt, 0, 0)}, nil
		}
		return []protocol.Location{}, nil
	}
	kind, name, ok := target(syn, off)
	if !ok {
		return []protocol.Location{}, nil
	}
	return s.definitions(d.path, kind, name), nil
}

func (s *server) references(p json.RawMessage) (any, error) {
	var params protocol.ReferenceParams
	if err := decode(p, &params); err != nil {
		return nil, err
	}
	d, t, syn, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	kind, name, ok := target(syn, t.offset(params.Position))
	if !ok {
		return []protocol.Location{}, nil
	}
	defining := s.definingFiles(d.path, kind, name)
	out := []protocol.Location{}
	for _, f := range s.referenceCandidates(d.path, defining) {
		reaches := false
		for _, c := range s.chain(f) {
			reaches = reaches || defining[c]
		}
		if !reaches && !(len(defining) == 0 && f == d.path) {
			continue
		}
		out = append(out, s.fileReferences(f, kind, name, params.Context.IncludeDeclaration)...)
	}
	return out, nil
}

// definingFiles are the files of path's chain that define kind.name.
func (s *server) definingFiles(path, kind, name string) map[string]bool {
	defining := map[string]bool{}
	for _, f := range s.chain(path) {
		if fs, _ := s.fileSyntax(f); fs != nil {
			for _, df := range fs.defs {
				if df.kind == kind && df.name == name {
					defining[f] = true
				}
			}
		}
	}
	return defining
}

// referenceCandidates are the files that may refer to a block defined in
// defining, sorted: open documents and the specs beside each defining file
// and path. A file counts only when its own chain reaches a defining file
// (references checks that): a sibling spec with a block of the same name
// is another block.
func (s *server) referenceCandidates(path string, defining map[string]bool) []string {
	cands := map[string]bool{path: true}
	s.mu.Lock()
	for _, o := range s.docs {
		cands[o.path] = true
	}
	s.mu.Unlock()
	dirs := map[string]bool{filepath.Dir(path): true}
	for f := range defining {
		dirs[filepath.Dir(f)] = true
	}
	for dir := range dirs {
		for _, pat := range []string{"*.hcl", "*.cue"} {
			m, _ := filepath.Glob(filepath.Join(dir, pat))
			for _, f := range m {
				cands[filepath.Clean(f)] = true
			}
		}
	}
	files := make([]string, 0, len(cands))
	for f := range cands {
		files = append(files, f)
	}
	sort.Strings(files)
	return files
}

// fileReferences are file f's references to kind.name, after its
// definitions of it when decl is set.
func (s *server) fileReferences(f, kind, name string, decl bool) []protocol.Location {
	fs, ft := s.fileSyntax(f)
	if fs == nil {
		return nil
	}
	var out []protocol.Location
	if decl {
		for _, df := range fs.defs {
			if df.kind == kind && df.name == name {
				out = append(out, s.location(f, ft, df.t.start, df.t.end))
			}
		}
	}
	for _, r := range fs.refs {
		if r.kind == kind && r.name == name {
			out = append(out, s.location(f, ft, r.start, r.end))
		}
	}
	return out
}

func (s *server) formatting(p json.RawMessage) (any, error) {
	var params protocol.DocumentFormattingParams
	if err := decode(p, &params); err != nil {
		return nil, err
	}
	d, t, _, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	var out []byte
	if d.cue {
		// assay fmt formats HCL; a CUE spec takes CUE's own layout.
		if out, err = format.Source(t.src); err != nil {
			return []protocol.TextEdit{}, nil // a file that does not parse keeps its text; diagnostics say why
		}
	} else {
		res, fds := hcl.Format(d.path, t.src)
		if fds.HasErrors() {
			return []protocol.TextEdit{}, nil // as above
		}
		out = res
	}
	if string(out) == string(t.src) {
		return []protocol.TextEdit{}, nil
	}
	return []protocol.TextEdit{{Range: t.rng(0, len(t.src)), NewText: string(out)}}, nil
}

// fieldDoc renders a field's documentation: its path, type, allowed values,
// unit, default and description.
func fieldDoc(f *spec.Field, path string) string {
	var b strings.Builder
	switch f.Kind {
	case spec.Attr:
		typ := f.Type
		if len(f.Enum) > 0 {
			typ = "one of " + quoteList(f.Enum)
		}
		fmt.Fprintf(&b, "**`%s`** · %s", path, typ)
		if f.Unit != "" {
			fmt.Fprintf(&b, " (%s)", f.Unit)
		}
	case spec.Block:
		fmt.Fprintf(&b, "**`%s`** · block, at most once", path)
	case spec.Blocks:
		fmt.Fprintf(&b, "**`%s \"NAME\"`** · labelled block, may be repeated", path)
	}
	b.WriteString("\n\n" + upperFirst(f.Doc) + ".")
	for _, d := range defaultsOf(path) {
		fmt.Fprintf(&b, "\n\nDefault: %s — %s.", d.Value, d.Why)
	}
	return b.String()
}

// defaultsOf returns the documented defaults of the field at path (with
// "*" for labels), from the compiler's one table.
func defaultsOf(path string) []compiler.Default {
	var out []compiler.Default
	for _, d := range compiler.Defaults {
		for _, p := range strings.Split(d.Path, ", ") {
			if i := strings.Index(p, " ("); i >= 0 {
				p = p[:i]
			}
			if p == path {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "`\"" + v + "\"`"
	}
	return strings.Join(q, ", ")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (s *server) hover(p json.RawMessage) (any, error) {
	var params protocol.HoverParams
	if err := decode(p, &params); err != nil {
		return nil, err
	}
	d, t, syn, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := t.offset(params.Position)
	md := func(v string, start, end int) *protocol.Hover {
		r := t.rng(start, end)
		return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: v}, Range: &r}
	}
	for _, r := range syn.refs {
		if r.start <= off && off <= r.end {
			return md(s.blockHover(d, r.kind, r.name), r.start, r.end), nil
		}
	}
	for _, df := range syn.defs {
		if df.t.start <= off && off <= df.t.end {
			return md(s.blockHover(d, df.kind, df.name), df.t.start, df.t.end), nil
		}
	}
	if e := syn.extends; e != nil && e.start <= off && off <= e.end {
		return md(fmt.Sprintf("Base spec `%s`: this file's attributes and blocks are merged over it.", e.text), e.start, e.end), nil
	}
	for _, u := range syn.fields {
		if u.t.start <= off && off <= u.t.end {
			v := fieldDoc(u.field, u.path)
			// On a loop header, the loop's figures too.
			for _, df := range syn.defs {
				if df.kind == "loop" && df.start == u.t.start {
					v += "\n\n" + s.loopFigures(d, df.name)
				}
			}
			return md(v, u.t.start, u.t.end), nil
		}
	}
	return nil, nil
}

// blockHover shows the block kind.name: where it is defined and its text,
// and for a loop its estimated figures.
func (s *server) blockHover(d *document, kind, name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s `%s`**", kind, name)
	if f := spec.Describe().Field(kind); f != nil {
		fmt.Fprintf(&b, " · %s", f.Doc)
	}
	found := false
	for _, file := range s.chain(d.path) {
		syn, t := s.fileSyntax(file)
		if syn == nil {
			continue
		}
		for _, df := range syn.defs {
			if df.kind != kind || df.name != name {
				continue
			}
			found = true
			end := df.end
			if end <= df.start {
				end = t.ends[t.lineOf(df.t.end)]
			}
			body := string(t.src[df.start:end])
			if lines := strings.Split(body, "\n"); len(lines) > 40 {
				body = strings.Join(lines[:40], "\n") + "\n…"
			}
			lang := "hcl"
			if strings.EqualFold(filepath.Ext(file), ".cue") {
				lang = "cue"
			}
			pos := t.position(df.t.start)
			fmt.Fprintf(&b, "\n\n%s:%d\n```%s\n%s\n```", filepath.Base(file), pos.Line+1, lang, body)
			break
		}
		if found {
			break
		}
	}
	if !found {
		fmt.Fprintf(&b, "\n\nNo %s %q is declared in this spec or a spec it extends.", kind, name)
	}
	if kind == "loop" {
		b.WriteString("\n\n" + s.loopFigures(d, name))
	}
	return b.String()
}

// loopFigures renders a loop's estimate from the latest check.
func (s *server) loopFigures(d *document, name string) string {
	s.mu.Lock()
	f, ok := d.loops[name]
	has := d.est != nil
	s.mu.Unlock()
	if !has || !ok {
		return "Estimate: not available until the spec checks without errors."
	}
	return fmt.Sprintf("Estimate: %s steps · %s real runs · %s",
		count(f.steps, estimate.FormatNumber), count(f.runs, estimate.FormatNumber), count(f.usd, estimate.FormatUSD))
}

// count renders expected, then (low – high) where they differ.
func count(c plan.Count, f func(float64) string) string {
	e, lo, hi := f(c.Expected), f(c.Low), f(c.High)
	if lo == e && hi == e {
		return e
	}
	return fmt.Sprintf("%s (%s – %s)", e, lo, hi)
}

func (s *server) codeLens(p json.RawMessage) (any, error) {
	var params protocol.CodeLensParams
	if err := decode(p, &params); err != nil {
		return nil, err
	}
	d, t, syn, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	l := d.lens
	s.mu.Unlock()
	out := []protocol.CodeLens{}
	if l == nil {
		return out, nil
	}
	lens := func(title string, start int) {
		pos := t.position(start)
		out = append(out, protocol.CodeLens{Range: protocol.Range{Start: pos, End: pos}, Command: &protocol.Command{Title: title}})
	}
	if l.est == nil {
		lens(fmt.Sprintf("Estimate: none; the saved spec has %d error(s)", l.errors), 0)
		return out, nil
	}
	tot := l.est.Totals
	lens(fmt.Sprintf("Estimate: %s real runs · %s · %s GPU-hours", count(tot.RealRuns, estimate.FormatNumber), count(tot.USD, estimate.FormatUSD), count(tot.GPUHours, estimate.FormatNumber)), 0)
	for _, df := range syn.defs {
		if f, ok := l.loops[df.name]; ok && df.kind == "loop" {
			lens(fmt.Sprintf("loop %s: %s steps · %s real runs · %s", df.name, count(f.steps, estimate.FormatNumber), count(f.runs, estimate.FormatNumber), count(f.usd, estimate.FormatUSD)), df.start)
		}
	}
	return out, nil
}
