package prompt

import (
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template/parse"
)

// TemplateError is a template that does not parse or reads a variable its
// role kind does not have. Line and Col are 1-based, in the template's
// text.
type TemplateError struct {
	Line, Col int
	Msg       string
}

func (e *TemplateError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// parseLine finds the line in text/template's parse errors
// ("template: NAME:LINE: ..." or "template: NAME:LINE:COL: ...").
var parseLine = regexp.MustCompile(`^template: [^:]*:(\d+):(?:(\d+):)? ?(.*)$`)

// CheckTemplate parses a template text and checks that every variable it
// reads exists for the role kind: the fields of VarsType(kind), followed
// through range and with, so {{range .History}}{{.Gain}}{{end}} checks
// Gain against a Record. What cannot be typed (a variable's field of an
// untyped value, a map's keys) is left to rendering.
func CheckTemplate(kind, text string) *TemplateError {
	root := VarsType(kind)
	if root == nil {
		return &TemplateError{Line: 1, Col: 1, Msg: fmt.Sprintf("no prompt for role kind %q", kind)}
	}
	t, err := Parse("prompt", text)
	if err != nil {
		msg := err.Error()
		e := &TemplateError{Line: 1, Col: 1, Msg: msg}
		if m := parseLine.FindStringSubmatch(msg); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			if m[2] != "" {
				e.Col, _ = strconv.Atoi(m[2])
			}
			e.Msg = m[3]
		}
		return e
	}
	c := &checker{text: text, root: root}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		dot := root
		if tt.Name() != t.Name() {
			dot = nil // a defined template's dot is whatever it is called with
		}
		c.list(tt.Root, dot, map[string]reflect.Type{"$": root})
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

type checker struct {
	text string
	root reflect.Type
	err  *TemplateError
	// ranges is how deep the node being checked is nested in ranges.
	ranges int
}

// maxRangeDepth bounds nested ranges: a template's work is then at most
// the inputs' sizes to that power, and a range over a number (Go 1.22's
// {{range 1000000000}}) is refused, so no template renders for ever.
const maxRangeDepth = 3

func (c *checker) fail(pos parse.Pos, format string, args ...any) {
	if c.err != nil {
		return
	}
	before := c.text[:min(int(pos), len(c.text))]
	line := 1 + strings.Count(before, "\n")
	col := 1 + len(before) - (strings.LastIndexByte(before, '\n') + 1)
	c.err = &TemplateError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (c *checker) list(l *parse.ListNode, dot reflect.Type, vars map[string]reflect.Type) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		c.node(n, dot, vars)
	}
}

func (c *checker) node(n parse.Node, dot reflect.Type, vars map[string]reflect.Type) {
	switch n := n.(type) {
	case *parse.ActionNode:
		c.pipe(n.Pipe, dot, vars)
	case *parse.IfNode:
		c.branch(&n.BranchNode, dot, vars, false)
	case *parse.WithNode:
		c.branch(&n.BranchNode, dot, vars, false)
	case *parse.RangeNode:
		c.branch(&n.BranchNode, dot, vars, true)
	case *parse.TemplateNode:
		c.pipe(n.Pipe, dot, vars)
	case *parse.ListNode:
		c.list(n, dot, vars)
	}
}

// branch checks if, with and range: with and range set dot (range to the
// element) in their body, not in their else.
func (c *checker) branch(b *parse.BranchNode, dot reflect.Type, vars map[string]reflect.Type, isRange bool) {
	t := c.pipe(b.Pipe, dot, vars)
	inner := copyVars(vars)
	body := dot
	if b.NodeType == parse.NodeWith || isRange {
		body = t
	}
	if isRange {
		if len(b.Pipe.Cmds) == 1 && len(b.Pipe.Cmds[0].Args) == 1 {
			if _, num := b.Pipe.Cmds[0].Args[0].(*parse.NumberNode); num {
				c.fail(b.Position(), "range over a number: a prompt ranges over its variables' lists and maps only")
			}
		}
		if t != nil && t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64 {
			c.fail(b.Position(), "range over a number: a prompt ranges over its variables' lists and maps only")
		}
		if c.ranges++; c.ranges > maxRangeDepth {
			c.fail(b.Position(), "ranges nested more than %d deep", maxRangeDepth)
		}
		defer func() { c.ranges-- }()
		var key reflect.Type
		key, body = elemTypes(t)
		if d := b.Pipe.Decl; len(d) == 2 {
			inner[d[0].Ident[0]], inner[d[1].Ident[0]] = key, body
		} else if len(d) == 1 {
			inner[d[0].Ident[0]] = body
		}
	} else if d := b.Pipe.Decl; len(d) == 1 {
		inner[d[0].Ident[0]] = t
	}
	c.list(b.List, body, inner)
	c.list(b.ElseList, dot, vars)
}

// pipe checks a pipeline and returns its type when it is known: a single
// command reading one field chain.
func (c *checker) pipe(p *parse.PipeNode, dot reflect.Type, vars map[string]reflect.Type) reflect.Type {
	if p == nil {
		return nil
	}
	var last reflect.Type
	for i, cmd := range p.Cmds {
		last = nil
		for _, a := range cmd.Args {
			t := c.arg(a, dot, vars)
			if len(cmd.Args) == 1 && i == len(p.Cmds)-1 {
				last = t
			}
		}
	}
	if len(p.Decl) == 1 {
		vars[p.Decl[0].Ident[0]] = last
	}
	return last
}

func (c *checker) arg(a parse.Node, dot reflect.Type, vars map[string]reflect.Type) reflect.Type {
	switch a := a.(type) {
	case *parse.DotNode:
		return dot
	case *parse.FieldNode:
		// The node's position is its last name's: point at the first.
		start := a.Position() - parse.Pos(len(a.String())-len(a.Ident[len(a.Ident)-1])-1)
		return c.fields(start, dot, a.Ident, ".")
	case *parse.VariableNode:
		t, ok := vars[a.Ident[0]]
		if !ok {
			return nil // text/template's parser refuses an undefined variable
		}
		return c.fields(a.Position(), t, a.Ident[1:], a.Ident[0]+".")
	case *parse.ChainNode:
		t := c.arg(a.Node, dot, vars)
		return c.fields(a.Position(), t, a.Field, "(...).")
	case *parse.PipeNode:
		return c.pipe(a, dot, vars)
	case *parse.NumberNode:
		return reflect.TypeFor[float64]() // so that a variable holding one cannot be ranged over
	}
	return nil
}

// fields follows a chain of field names from t; an unknown name is an
// error naming what t has.
func (c *checker) fields(pos parse.Pos, t reflect.Type, names []string, prefix string) reflect.Type {
	for i, name := range names {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return nil
		}
		f, ok := t.FieldByName(name)
		if !ok || !f.IsExported() {
			what := "the role's variables"
			if t != c.root {
				what = "a " + t.Name()
			}
			if prefix == "." {
				pos += parse.Pos(len(strings.Join(names[:i], ".")) + min(i, 1))
			}
			c.fail(pos, "%s%s: %s has no %s; it has %s", prefix, strings.Join(names[:i+1], "."), what, name, fieldNames(t))
			return nil
		}
		t = f.Type
	}
	return t
}

func fieldNames(t reflect.Type) string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() {
			out = append(out, "."+f.Name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// elemTypes are the key and element types a range over t yields.
func elemTypes(t reflect.Type) (key, elem reflect.Type) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return nil, nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return reflect.TypeFor[int](), t.Elem()
	case reflect.Map:
		return t.Key(), t.Elem()
	}
	return nil, nil
}

func copyVars(m map[string]reflect.Type) map[string]reflect.Type {
	out := make(map[string]reflect.Type, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
