package lsp

import "github.com/assay-lang/assay/lang/spec"

// refKinds are the block types a reference kind.name can name.
var refKinds = map[string]bool{"plugin": true, "environment": true, "role": true, "reward": true, "critic": true, "loop": true}

// kindOf returns the block type that a traversal starting with root
// names: kind.name references, and var.NAME for a variable block.
func kindOf(root string) string {
	if root == "var" {
		return "variable"
	}
	if refKinds[root] {
		return root
	}
	return ""
}

// fieldUse is a field name written in the spec.
type fieldUse struct {
	t     tok
	field *spec.Field
	path  string // e.g. "loop.*.steps", "budget.usd"
}

// defn is the label of a top-level labelled block: where kind.name is
// defined. start and end span the whole block, when it is closed.
type defn struct {
	kind, name string
	t          tok
	start, end int
}

// refUse is a reference kind.name written as a value.
type refUse struct {
	kind, name string
	start, end int
	field      *spec.Field // the attribute it is the value of
}

// syntax is what the editor features read of one version of a document.
type syntax struct {
	toks    []tok
	fields  []fieldUse
	defs    []defn
	refs    []refUse
	extends *tok // the string of the top-level extends attribute
}

// frame is one level of nesting: a block of the schema, or a value
// (object, list, call) that the schema does not look into.
type frame struct {
	schema *spec.BlockSchema // nil for a value
	path   string            // e.g. "loop.*", "role.*.tokens"; "" at the top
	attr   *spec.Field       // for a value: the attribute it belongs to
	def    int               // index of the defn this block opens, or -1
	stmt   stmt              // the enclosing frame's statement, resumed after
}

// stmt is the state of one statement (an attribute or block header) of a
// block frame as its tokens arrive.
type stmt struct {
	n         int               // tokens seen
	schema    *spec.BlockSchema // where the next name resolves; nil: nowhere
	path      string
	needLabel *spec.Field // a repeated block whose label comes next
	dynamic   bool        // HCL: a dynamic block whose type comes next
	comp      bool        // CUE: a for/if/let comprehension; its body is transparent
	attr      *spec.Field // the attribute being written
	attrTok   tok
	inValue   bool
	def       int // defn opened by this header, or -1
	value     []tok
}

// cursor is the state of the walk where the cursor stands.
type cursor struct {
	frame  *frame
	stmt   stmt
	prefix *tok // the token the cursor is in or at the end of
}

func newStmt(f *frame) stmt {
	return stmt{schema: f.schema, path: f.path, def: -1}
}

func joinPath(p, name string) string {
	if p == "" {
		return name
	}
	return p + "." + name
}

// analyze reads a document's tokens.
func analyze(src []byte, cue bool) *syntax {
	s, _ := walk(src, cue, -1)
	return s
}

// walk reads the tokens of src and, when stop >= 0, returns the state at
// byte offset stop too.
func walk(src []byte, cue bool, stop int) (*syntax, *cursor) {
	var toks []tok
	if cue {
		toks = lexCUE(src)
	} else {
		toks = lexHCL(src)
	}
	root := &frame{schema: spec.Describe(), def: -1}
	w := &walker{s: &syntax{toks: toks}, cue: cue, stack: []*frame{root}, st: newStmt(root)}
	for _, t := range toks {
		if stop >= 0 && (t.start >= stop || stop < t.end || stop == t.end && (t.kind == tIdent || t.kind == tString)) {
			cur := &cursor{frame: w.top(), stmt: w.st}
			if t.start < stop && (t.kind == tIdent || t.kind == tString) {
				tt := t
				cur.prefix = &tt
			}
			return w.s, cur
		}
		w.token(t)
	}
	var cur *cursor
	if stop >= 0 {
		cur = &cursor{frame: w.top(), stmt: w.st}
	}
	return w.s, cur
}

// walker is the state of a walk: the frames open and the statement of the
// innermost one being read.
type walker struct {
	s     *syntax
	cue   bool
	stack []*frame
	st    stmt
}

func (w *walker) top() *frame { return w.stack[len(w.stack)-1] }

// push opens frame nf and starts its first statement.
func (w *walker) push(nf *frame) {
	w.stack = append(w.stack, nf)
	w.st = newStmt(nf)
}

// token reads one token: nesting tokens change frames, the rest belong to
// the current statement's name or value.
func (w *walker) token(t tok) {
	f := w.top()
	switch t.kind {
	case tNewline:
		if f.schema != nil {
			w.st = newStmt(f)
		}
	case tLBrace:
		w.openBrace(f)
	case tRBrace:
		w.closeBrace(f, t)
	case tOpen:
		w.push(&frame{attr: w.st.attr, def: -1, stmt: w.st})
	case tClose:
		w.closeValue(f)
	default:
		w.word(f, t)
	}
}

// openBrace opens a block body, or an object value.
func (w *walker) openBrace(f *frame) {
	st := &w.st
	nf := &frame{def: -1, stmt: *st}
	switch {
	case f.schema == nil:
	case st.comp:
		nf.schema, nf.path = f.schema, f.path
	case st.inValue || st.attr != nil:
		nf.attr = st.attr
	case st.needLabel != nil:
		nf.schema, nf.path = st.needLabel.Block, joinPath(st.path, st.needLabel.Name+".*")
	case st.n > 0 && st.schema != nil && st.schema != f.schema:
		nf.schema, nf.path, nf.def = st.schema, st.path, st.def
	}
	w.push(nf)
}

// closeBrace closes frame f and resumes the statement it belongs to.
func (w *walker) closeBrace(f *frame, t tok) {
	if len(w.stack) <= 1 {
		return
	}
	if f.def >= 0 {
		w.s.defs[f.def].end = t.end
	}
	w.stack = w.stack[:len(w.stack)-1]
	w.st = f.stmt
	if w.cue {
		// CUE: `a: b: {...}` may go on (`, c: 1`); the value is done.
		w.st.inValue = true
	}
}

// closeValue closes a parenthesised or bracketed value frame f.
func (w *walker) closeValue(f *frame) {
	if len(w.stack) <= 1 || f.schema != nil {
		return
	}
	w.stack = w.stack[:len(w.stack)-1]
	w.st = f.stmt
	st := &w.st
	if st.needLabel != nil && !st.inValue {
		// CUE: a computed label, environment: (e.name): {...}
		st.schema, st.path = st.needLabel.Block, joinPath(st.path, st.needLabel.Name+".*")
		st.needLabel = nil
	}
}

// word reads a token that neither opens nor closes a frame.
func (w *walker) word(f *frame, t tok) {
	switch {
	case f.schema == nil:
		w.s.value(f.attr, &w.st, t)
	case w.st.inValue:
		w.s.value(w.st.attr, &w.st, t)
		w.st.n++
	default:
		w.s.name(&w.st, t, w.cue, len(w.stack) == 1)
		w.st.n++
	}
}

// name reads a token of a statement's name part: field names, block
// labels and the assignment that starts the value.
func (s *syntax) name(st *stmt, t tok, cue, top bool) {
	switch t.kind {
	case tAssign:
		if !cue || st.attr != nil || st.schema == nil {
			st.inValue = true
		}
		return
	case tIdent, tString:
	default:
		if !cue {
			st.inValue = true // HCL: something other than a header
		}
		return
	}
	switch {
	case st.n == 0 && cue && t.kind == tIdent && (t.text == "for" || t.text == "if" || t.text == "let"):
		st.comp, st.inValue = true, true
	case st.dynamic:
		dynamicType(st, t)
	case st.needLabel != nil:
		s.label(st, t, top)
	case st.schema == nil:
	case st.n == 0 && !cue && t.kind == tIdent && hclKeyword(st, t.text):
	default:
		s.field(st, t)
	}
}

// dynamicType reads the block type of an HCL dynamic block:
// dynamic "environment" { content { ... } }
func dynamicType(st *stmt, t tok) {
	st.dynamic = false
	if st.schema != nil {
		if f := st.schema.Field(t.text); f != nil && f.Kind != spec.Attr {
			st.schema, st.path = f.Block, joinPath(st.path, f.Name+".*")
			return
		}
	}
	st.schema = nil
}

// label reads the label of a repeated block; a top-level one defines
// kind.name.
func (s *syntax) label(st *stmt, t tok, top bool) {
	f := st.needLabel
	st.needLabel = nil
	if top && refKinds[f.Name] || top && f.Name == "variable" {
		s.defs = append(s.defs, defn{kind: f.Name, name: t.text, t: t, start: st.attrTok.start, end: t.end})
		st.def = len(s.defs) - 1
	}
	st.schema, st.path = f.Block, joinPath(st.path, f.Name+".*")
}

// hclKeyword reads HCL's dynamic, content and locals at a statement's
// start; false for any other word.
func hclKeyword(st *stmt, word string) bool {
	switch word {
	case "dynamic":
		st.dynamic = true
	case "content":
		st.comp = true // a dynamic block's body: the block's own schema
	case "locals":
		st.schema = nil
	default:
		return false
	}
	return true
}

// field reads a field name of the statement's schema.
func (s *syntax) field(st *stmt, t tok) {
	f := st.schema.Field(t.text)
	if f == nil {
		st.schema = nil
		return
	}
	if st.n == 0 {
		st.attrTok = t
	}
	s.fields = append(s.fields, fieldUse{t: t, field: f, path: joinPath(st.path, f.Name)})
	switch f.Kind {
	case spec.Attr:
		st.attr, st.attrTok = f, t
	case spec.Block:
		st.schema, st.path = f.Block, joinPath(st.path, f.Name)
	case spec.Blocks:
		st.needLabel = f
	}
}

// value reads a token of an attribute's value: references and the
// extends path.
func (s *syntax) value(attr *spec.Field, st *stmt, t tok) {
	st.value = append(st.value, t)
	v := st.value
	if n := len(v); n >= 2 && t.kind == tDot && len(s.refs) > 0 && s.refs[len(s.refs)-1].end == v[n-2].end {
		// A longer traversal (environment.value.name in a dynamic block)
		// is no reference.
		s.refs = s.refs[:len(s.refs)-1]
	}
	if attr != nil && attr.Name == "extends" && st.path == "" && t.kind == tString && len(v) == 1 {
		tt := t
		s.extends = &tt
	}
	if n := len(v); n >= 3 && t.kind == tIdent && v[n-2].kind == tDot && v[n-3].kind == tIdent && kindOf(v[n-3].text) != "" {
		// Not the tail of a longer traversal (a.role.rwm).
		if n == 3 || v[n-4].kind != tDot {
			s.refs = append(s.refs, refUse{kind: kindOf(v[n-3].text), name: t.text, start: v[n-3].start, end: t.end, field: attr})
		}
	}
}

// at returns the token at byte offset off: the one that holds it, or an
// identifier or string that ends there.
func (s *syntax) at(off int) *tok {
	var best *tok
	for i := range s.toks {
		t := &s.toks[i]
		if t.start <= off && off < t.end {
			return t
		}
		if t.end == off && (t.kind == tIdent || t.kind == tString) {
			best = t
		}
	}
	return best
}
