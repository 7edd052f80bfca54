package lsp

import (
	"encoding/json"
	"slices"
	"sort"

	"go.lsp.dev/protocol"

	"github.com/assay-lang/assay/lang/spec"
)

// refTargets are the kinds of block each reference attribute may name;
// an attribute not listed may name any.
var refTargets = map[string][]string{
	"llm": {"plugin"}, "trainer": {"plugin"}, "benchmark": {"plugin"},
	"predictor": {"role", "critic"}, "role": {"role"}, "proposer": {"role"},
	"builder": {"role"}, "summarizer": {"role"}, "reward": {"reward"},
	"screen": {"critic"}, "loop": {"loop"},
}

func (s *server) completion(p json.RawMessage) (any, error) {
	var params protocol.CompletionParams
	if err := decode(p, &params); err != nil {
		return nil, err
	}
	d, t, _, err := s.doc(params.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := t.offset(params.Position)
	_, cur := walk(t.src, d.cue, off)
	items := s.complete(d, t, cur, off)
	if items == nil {
		items = []protocol.CompletionItem{}
	}
	return &protocol.CompletionList{Items: items}, nil
}

// complete lists what may be written at the cursor.
func (s *server) complete(d *document, t *text, cur *cursor, off int) []protocol.CompletionItem {
	st := cur.stmt
	replace := t.rng(off, off)
	if cur.prefix != nil && cur.prefix.kind == tIdent {
		replace = t.rng(cur.prefix.start, off)
	}
	attr := st.attr
	inValue := st.inValue
	if cur.frame.schema == nil {
		attr, inValue = cur.frame.attr, true
	}
	if !inValue {
		return completeName(d, cur, replace)
	}
	if attr == nil {
		return nil
	}
	// Inside a string: the allowed values.
	if cur.prefix != nil && cur.prefix.kind == tString {
		end := off
		if end < len(t.src) && t.src[end] == '"' {
			end++
		}
		r := t.rng(cur.prefix.start, end)
		var out []protocol.CompletionItem
		for _, e := range attr.Enum {
			out = append(out, completionItem(e, protocol.CompletionItemKindEnumMember, attr.Name, "", `"`+e+`"`, r))
		}
		return out
	}
	// After kind. : the names of that kind.
	v := st.value
	if cur.frame.schema == nil {
		v = nil // the value tokens of a nested value are not kept
	}
	if n := len(v); n >= 2 && v[n-1].kind == tDot && v[n-2].kind == tIdent && v[n-1].end == offOrPrefix(cur, off) {
		return s.completeRefName(d, v[n-2].text, replace)
	}
	return s.completeValue(d, attr, replace)
}

// completionItem is one completion that replaces r with insert.
func completionItem(label string, kind protocol.CompletionItemKind, detail, doc, insert string, r protocol.Range) protocol.CompletionItem {
	it := protocol.CompletionItem{Label: label, Kind: kind, Detail: detail, TextEdit: &protocol.TextEdit{Range: r, NewText: insert}, FilterText: insert}
	if doc != "" {
		it.Documentation = protocol.MarkupContent{Kind: protocol.Markdown, Value: doc}
	}
	return it
}

// completeRefName lists the declared names of the kind root names, after
// "root.".
func (s *server) completeRefName(d *document, root string, replace protocol.Range) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	kind := kindOf(root)
	for _, df := range s.declared(d.path) {
		if df.kind == kind {
			out = append(out, completionItem(df.name, protocol.CompletionItemKindReference, root+"."+df.name, "", df.name, replace))
		}
	}
	return out
}

// completeValue lists the values attr may take: its enum, true and false,
// or the references it may name.
func (s *server) completeValue(d *document, attr *spec.Field, replace protocol.Range) []protocol.CompletionItem {
	var out []protocol.CompletionItem
	for _, e := range attr.Enum {
		out = append(out, completionItem(`"`+e+`"`, protocol.CompletionItemKindEnumMember, attr.Name, "", `"`+e+`"`, replace))
	}
	switch attr.Type {
	case "bool":
		for _, b := range []string{"true", "false"} {
			out = append(out, completionItem(b, protocol.CompletionItemKindValue, "bool", "", b, replace))
		}
	case "ref":
		kinds := refTargets[attr.Name]
		for _, df := range s.declared(d.path) {
			if !refKinds[df.kind] || kinds != nil && !slices.Contains(kinds, df.kind) {
				continue
			}
			ref := df.kind + "." + df.name
			out = append(out, completionItem(ref, protocol.CompletionItemKindReference, df.kind, "", ref, replace))
		}
	}
	return out
}

// completeName lists the fields of the block the cursor is in.
func completeName(d *document, cur *cursor, replace protocol.Range) []protocol.CompletionItem {
	st := cur.stmt
	schema := cur.frame.schema
	path := cur.frame.path
	switch {
	case st.needLabel != nil || st.schema == nil:
		return nil
	case st.n > 0 && d.cue:
		schema, path = st.schema, st.path // CUE: role: rwm: |
	case st.n > 0:
		return nil
	}
	var out []protocol.CompletionItem
	for _, f := range schema.Fields {
		kind := protocol.CompletionItemKindField
		detail := f.Type
		switch f.Kind {
		case spec.Block:
			kind, detail = protocol.CompletionItemKindModule, "block"
		case spec.Blocks:
			kind, detail = protocol.CompletionItemKindClass, "labelled block"
		}
		out = append(out, completionItem(f.Name, kind, detail, fieldDoc(f, joinPath(path, f.Name)), f.Name, replace))
	}
	return out
}

// offOrPrefix is where the typed name starts: the prefix's start, else the
// cursor.
func offOrPrefix(cur *cursor, off int) int {
	if cur.prefix != nil {
		return cur.prefix.start
	}
	return off
}

// declared lists the labelled blocks declared in the chain of path, each
// kind.name once, sorted.
func (s *server) declared(path string) []defn {
	seen := map[string]bool{}
	var out []defn
	for _, f := range s.chain(path) {
		syn, _ := s.fileSyntax(f)
		if syn == nil {
			continue
		}
		for _, df := range syn.defs {
			if k := df.kind + "." + df.name; !seen[k] {
				seen[k] = true
				out = append(out, df)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].kind != out[j].kind {
			return out[i].kind < out[j].kind
		}
		return out[i].name < out[j].name
	})
	return out
}
