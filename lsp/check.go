package lsp

import (
	"context"
	"time"

	"go.lsp.dev/protocol"

	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/estimate"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
)

// checker runs checks on its own goroutine, so that no request waits on a
// compile. It waits until edits have paused for the debounce, then checks
// every document marked dirty, one at a time: on two cores a second
// compile in parallel would only slow the first.
func (s *server) checker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		for {
			// Before each check, including one right after another,
			// let a burst of edits pass.
			s.mu.Lock()
			wait := s.opts.Debounce - time.Since(s.lastEdit)
			s.mu.Unlock()
			if wait > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(wait):
				}
				continue
			}
			if !s.checkOne(ctx) {
				break
			}
		}
	}
}

// job is one check: a document's version and the overlay of every open
// buffer at the time it started.
type job struct {
	d       *document
	version int32
	text    *text
	saved   bool
	overlay map[string][]byte
}

// checkOne checks one dirty document and reports whether it found one.
func (s *server) checkOne(ctx context.Context) bool {
	s.mu.Lock()
	var j *job
	for _, d := range s.docs {
		if d.dirty {
			j = &job{d: d, version: d.version, text: d.text, saved: d.saved, overlay: map[string][]byte{}}
			d.dirty, d.saved = false, false
			break
		}
	}
	if j != nil {
		for _, d := range s.docs {
			j.overlay[d.path] = d.text.src
		}
	}
	s.mu.Unlock()
	if j == nil {
		return false
	}
	r := s.run(j)
	s.mu.Lock()
	stale := s.docs[j.d.uri] != j.d || j.d.version != j.version || j.d.text != j.text
	if r == nil || stale {
		// An edit arrived while the check ran: its result describes text
		// that is gone. The edit marked the document dirty again.
		if j.saved {
			j.d.saved = true
		}
		s.checksDropped++
		s.mu.Unlock()
		return true
	}
	s.checksRun++
	d := j.d
	d.files, d.est, d.loops = r.files, r.est, r.loops
	refresh := false
	if j.saved {
		d.lens = &lensState{est: r.est, loops: r.loops, errors: r.errors}
		refresh = s.lensRefresh
	}
	prev := s.other[d.uri]
	s.other[d.uri] = map[protocol.DocumentURI]bool{}
	pubs := map[protocol.DocumentURI][]protocol.Diagnostic{d.uri: {}}
	for path, ds := range r.diags {
		u := d.uri
		if path != d.path {
			if _, open := s.docs[s.uriOf(path)]; open {
				continue // an open base publishes its own
			}
			u = s.uriOf(path)
			s.other[d.uri][u] = true
		}
		pubs[u] = append(pubs[u], ds...)
	}
	for u := range prev {
		if _, ok := pubs[u]; !ok {
			pubs[u] = []protocol.Diagnostic{}
		}
	}
	version := d.version
	s.mu.Unlock()
	for u, ds := range pubs {
		v := int32(0)
		if u == d.uri {
			v = version
		}
		s.publish(ctx, u, ds, v)
	}
	if refresh {
		// The reply comes back on the connection's reader; don't wait here.
		go func() { _, _ = s.conn.Call(ctx, "workspace/codeLens/refresh", nil, nil) }()
	}
	return true
}

func (s *server) publish(ctx context.Context, u protocol.DocumentURI, ds []protocol.Diagnostic, version int32) {
	if ds == nil {
		ds = []protocol.Diagnostic{}
	}
	_ = s.conn.Notify(ctx, protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: u, Version: uint32(max(version, 0)), Diagnostics: ds})
}

// result is what one check found.
type result struct {
	diags  map[string][]protocol.Diagnostic // by file
	files  []string
	est    *estimate.Report
	loops  map[string]loopFigures
	errors int
}

// run checks one spec as `assay validate` does: load (with the overlay),
// compile, and check the estimate against the hard caps. Between the
// stages it gives up when the document has changed since.
func (s *server) run(j *job) *result {
	sp, src, ds := load.Load(j.d.path, load.Options{Overlay: j.overlay})
	r := &result{diags: map[string][]protocol.Diagnostic{}}
	if sp != nil {
		r.files = sp.Files
	}
	if s.opts.afterLoad != nil {
		s.opts.afterLoad()
	}
	if s.superseded(j) {
		return nil
	}
	if !ds.HasErrors() && sp != nil {
		p, cds := compiler.Compile(sp, compiler.Options{})
		ds = ds.Append(cds)
		if !ds.HasErrors() && p != nil {
			r.est = estimate.Estimate(p)
			r.loops = loopsOf(p, r.est)
			if len(p.Variants) > 0 {
				// run refuses a spec whose estimate breaks a hard cap, so
				// validate does, and so does the editor.
				ds = ds.Append(r.est.CheckCaps(p.Variants[0].Budget))
			}
		}
	}
	texts := map[string]*text{j.d.path: j.text}
	for _, d := range ds {
		if d.Severity == diag.Error {
			r.errors++
		}
		file := d.Range.Filename
		if !d.Range.Valid() || file == "" || file == "-var" {
			file = j.d.path
		}
		t := texts[file]
		if t == nil {
			b, ok := src[file]
			if !ok {
				b, _ = load.ReadSource(file)
			}
			t = newText(b)
			texts[file] = t
		}
		r.diags[file] = append(r.diags[file], toProtocol(d, t, file == d.Range.Filename && d.Range.Valid()))
	}
	return r
}

func (s *server) superseded(j *job) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return j.d.version != j.version || j.d.text != j.text
}

// toProtocol converts a diagnostic, its range through t (the text of its
// file). A diagnostic without a position is put at the start of the file.
func toProtocol(d *diag.Diagnostic, t *text, positioned bool) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityError
	if d.Severity == diag.Warning {
		sev = protocol.DiagnosticSeverityWarning
	}
	msg := d.Summary
	if d.Detail != "" {
		msg += "\n" + d.Detail
	}
	var rng protocol.Range
	if positioned {
		start := offsetOf(t, d.Range.Start)
		end := start
		if d.Range.End.Line > 0 {
			end = max(start, offsetOf(t, d.Range.End))
		}
		if end == start {
			end = wordEnd(t.src, start)
		}
		rng = t.rng(start, end)
	}
	return protocol.Diagnostic{Range: rng, Severity: sev, Code: d.Code, Source: "assay", Message: msg}
}

// offsetOf returns the byte offset of a diagnostic position in t. Front
// ends fill Byte; where it does not agree with Line, the line and column
// (counted in characters) are used instead.
func offsetOf(t *text, p diag.Pos) int {
	if p.Line < 1 {
		return 0
	}
	if p.Byte >= 0 && p.Byte <= len(t.src) && t.lineOf(p.Byte) == p.Line-1 {
		return p.Byte
	}
	if p.Line-1 >= len(t.lines) {
		return len(t.src)
	}
	off, end := t.lines[p.Line-1], t.ends[p.Line-1]
	for col := 1; col < p.Column && off < end; col++ {
		_, size := decodeRune(t.src[off:end])
		off += size
	}
	return off
}

// wordEnd extends an empty range at off over the identifier or number
// that starts there, so an editor has something to underline.
func wordEnd(src []byte, off int) int {
	end := off
	for end < len(src) && (src[end] == '_' || src[end] == '.' || src[end] >= 'a' && src[end] <= 'z' || src[end] >= 'A' && src[end] <= 'Z' || src[end] >= '0' && src[end] <= '9') {
		end++
	}
	return end
}

// loopFigures are a loop's estimated steps, real runs and dollars.
type loopFigures struct {
	steps, runs, usd plan.Count
}

// loopsOf collects each loop's figures from the estimate, and its dollars
// from the phases the loop runs (of the first variant, with a sweep).
func loopsOf(p *plan.Plan, r *estimate.Report) map[string]loopFigures {
	out := map[string]loopFigures{}
	for name, l := range r.Loops {
		out[name] = loopFigures{steps: l.Steps, runs: l.RealRuns}
	}
	phases := r.Phases
	if phases == nil && len(r.Variants) > 0 {
		phases = r.Variants[0].Phases
	}
	if len(p.Variants) == 0 {
		return out
	}
	byName := map[string]*estimate.Phase{}
	for _, pe := range phases {
		byName[pe.Name] = pe
	}
	for _, ph := range p.Variants[0].Phases {
		pe := byName[ph.Name]
		if ph.Loop() == "" || pe == nil {
			continue
		}
		f := out[ph.Loop()]
		f.usd = f.usd.Add(pe.USD)
		if ph.RL != nil && ph.RL.Calibration != nil {
			for _, round := range ph.RL.Calibration.Rounds {
				if re := byName[round.Name]; re != nil {
					f.usd = f.usd.Add(re.USD)
				}
			}
		}
		out[ph.Loop()] = f
	}
	return out
}
