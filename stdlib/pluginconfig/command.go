package pluginconfig

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strings"
	"text/template/parse"

	"mvdan.cc/sh/v3/syntax"
)

// A command template is bash with {{placeholders}}. A value never becomes
// part of the script's text: CompileCommand parses the template as bash and
// replaces each placeholder by a double-quoted reference to a variable
// ("${ASSAY_V_lr}"); run.sh defines the variables, single-quoted, before
// the command. Bash does not parse the result of an expansion again, so a
// value stays one piece of data, one word or the tail of one (--lr=VALUE).
//
// What a program does with its words is the program's: the template
// compiler keeps no table of programs. A value is safe there because it
// is typed (base/valuetype): a number, a boolean, one of a list or a plain
// word, none of which can hold a quote, a $, a space or a newline. What
// the compiler refuses stands on bash's grammar alone: a placeholder
// where no quoting helps, because bash itself reads the word as a command,
// a name, a number or code (the command's name, arithmetic, eval's
// operands, a variable declared -i, ...), and a placeholder in a word that
// holds more than plain text around it (code of another language such as
// bash -c "train {{lr}}" or python3 -c "print({{lr}})").

// identName matches a shell variable name.
var identName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// VarPrefix starts the name of every variable run.sh defines for a value.
const VarPrefix = "ASSAY_V_"

// CommandTemplate is a parsed, checked command template.
type CommandTemplate struct {
	// Body is the command with every placeholder replaced by a reference.
	Body string
	// Refs are the values Body refers to, sorted by variable name.
	Refs []ValueRef
}

// ValueRef is one value a command refers to.
type ValueRef struct {
	Name string // built-in, knob or edit name
	Var  string // the variable that holds it in run.sh
	// Plain is set when some placeholder names it bare ({{name}}), which
	// makes an unknown name an error; {{index .edits "name"}} alone reads
	// an unset edit as "".
	Plain bool
	// Line and Col place its first bare placeholder in the template.
	Line, Col int
}

// site is one placeholder of a template.
type site struct {
	name       string
	plain      bool
	text       string // as written, for errors
	tpos       int    // offset in the template
	start, end int    // offsets of its stand-in in the shell source
	repl       string // what replaces it, once classified
	quoted     bool   // the reference ends up inside double quotes
	comment    bool   // it stands in a comment
	claimed    bool
	// taint marks an expansion of a variable that holds a value, checked
	// as a placeholder is but never replaced.
	taint bool
}

// VarName is the variable of a value name: ASSAY_V_ and the name, or for a
// name that is no identifier its letters, digits and underscores and a hash
// of the whole name (so "a.b" and "a_b" differ).
func VarName(name string) string {
	if identName.MatchString(name) {
		return VarPrefix + name
	}
	var b strings.Builder
	for _, r := range name {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("%s%s_%08x", VarPrefix, b.String(), h.Sum32())
}

// TemplateError is a template's fault, placed in the template's text: the
// config must change, retrying cannot help.
type TemplateError struct {
	Line, Col int
	Msg       string
}

func (e *TemplateError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return e.Msg
}

func errAt(text string, off int, format string, args ...any) error {
	line, col := lineCol(text, off)
	return &TemplateError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// lineCol is the line and column (in characters) of offset off of text.
func lineCol(text string, off int) (line, col int) {
	line, col = 1, 1
	for i, r := range text {
		if i >= off {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

const placeholderForms = `write {{name}}, {{.name}} or {{index .edits "name"}}`

// CompileCommand parses a command template and replaces its placeholders
// by references, or says why a placeholder cannot stand where it does.
func CompileCommand(text string) (*CommandTemplate, error) {
	tr := parse.New("command")
	tr.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	if _, err := tr.Parse(text, "", "", trees); err != nil {
		return nil, fmt.Errorf("%v", strings.TrimPrefix(err.Error(), "template: "))
	}
	if len(trees) > 1 {
		return nil, fmt.Errorf("{{define}} and {{block}} are not supported in a command; %s", placeholderForms)
	}
	// The shell source: the template's text with a stand-in for each
	// placeholder, a word of letters that occurs nowhere else.
	mark := "ASSAYPH"
	for n := 0; strings.Contains(text, mark); n++ {
		mark = fmt.Sprintf("ASSAYPH%dQ", n)
	}
	var src strings.Builder
	var sites []*site
	if tr.Root != nil {
		for _, n := range tr.Root.Nodes {
			switch n := n.(type) {
			case *parse.TextNode:
				src.Write(n.Text)
			case *parse.ActionNode:
				s, err := placeholder(text, n)
				if err != nil {
					return nil, err
				}
				s.start = src.Len()
				fmt.Fprintf(&src, "%s%dX", mark, len(sites))
				s.end = src.Len()
				sites = append(sites, s)
			case *parse.CommentNode:
			default:
				return nil, errAt(text, int(n.Position()), "%s: control structures are not supported in a command; %s",
					strings.TrimSpace(n.String()), placeholderForms)
			}
		}
	}
	shell := src.String()
	file, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(shell), "")
	if err != nil {
		msg := err.Error()
		if pe, ok := err.(syntax.ParseError); ok {
			msg = pe.Text
			for i := len(sites) - 1; i >= 0; i-- {
				msg = strings.ReplaceAll(msg, shell[sites[i].start:sites[i].end], sites[i].text)
			}
			return nil, errAt(text, templateOffset(sites, text, int(pe.Pos.Offset())), "not valid bash: %s", msg)
		}
		return nil, fmt.Errorf("not valid bash: %s", msg)
	}
	c := &classifier{src: shell, text: text, sites: sites, attrs: declaredAttrs(file)}
	c.taint = c.tainted(file)
	syntax.Walk(file, c.visit)
	if c.err != nil {
		return nil, c.err
	}
	var body strings.Builder
	last := 0
	refs := map[string]*ValueRef{}
	for _, s := range sites {
		if !s.claimed {
			return nil, errAt(text, s.tpos, "%s: a value cannot stand here safely; put the placeholder in a word of its own, e.g. an argument", s.text)
		}
		body.WriteString(shell[last:s.start])
		body.WriteString(s.repl)
		last = s.end
		r := refs[s.name]
		if r == nil {
			r = &ValueRef{Name: s.name, Var: VarName(s.name)}
			refs[s.name] = r
		}
		if s.plain && !r.Plain {
			r.Plain = true
			r.Line, r.Col = lineCol(text, s.tpos)
		}
	}
	body.WriteString(shell[last:])
	t := &CommandTemplate{Body: body.String()}
	for _, r := range refs {
		t.Refs = append(t.Refs, *r)
	}
	sort.Slice(t.Refs, func(i, j int) bool { return t.Refs[i].Var < t.Refs[j].Var })
	if err := verifyBody(t.Body, sites); err != nil {
		return nil, err
	}
	return t, nil
}

// templateOffset maps an offset of the shell source back to the template.
func templateOffset(sites []*site, text string, off int) int {
	shift := 0
	for _, s := range sites {
		if off < s.start {
			break
		}
		if off < s.end {
			return s.tpos
		}
		shift = s.tpos + len(s.text) - s.end
	}
	return min(off+shift, len(text))
}

// placeholder reads one {{action}}: the forms a command may use.
func placeholder(text string, n *parse.ActionNode) (*site, error) {
	s := &site{tpos: int(n.Position()), text: n.String()}
	// The action's text as written, for errors: from its position to "}}".
	if i := strings.Index(text[s.tpos:], "}}"); i >= 0 {
		start := strings.LastIndex(text[:s.tpos], "{{")
		if start >= 0 {
			s.tpos = start
			s.text = text[start : int(n.Position())+i+2]
		}
	}
	bad := func() (*site, error) {
		return nil, errAt(text, s.tpos, "%s is not a placeholder; %s", s.text, placeholderForms)
	}
	if n.Pipe == nil || len(n.Pipe.Decl) > 0 || len(n.Pipe.Cmds) != 1 {
		return bad()
	}
	args := n.Pipe.Cmds[0].Args
	str := func(a parse.Node) (string, bool) {
		sn, ok := a.(*parse.StringNode)
		if !ok {
			return "", false
		}
		return sn.Text, true
	}
	switch a0 := args[0].(type) {
	case *parse.IdentifierNode:
		switch {
		case a0.Ident == "raw" && len(args) == 2:
			name, _ := str(args[1])
			return nil, errAt(text, s.tpos, "%s is not a placeholder: a value is always one quoted word; write {{%s}}", s.text, name)
		case a0.Ident == "index" && len(args) == 3:
			f, ok := args[1].(*parse.FieldNode)
			name, ok2 := str(args[2])
			if !ok || !ok2 || len(f.Ident) != 1 || f.Ident[0] != "edits" {
				return bad()
			}
			s.name = name
		case len(args) == 1 && a0.Ident != "raw" && a0.Ident != "index" && a0.Ident != "quote":
			s.name, s.plain = a0.Ident, true
		default:
			return bad()
		}
	case *parse.FieldNode:
		switch {
		case len(args) != 1:
			return bad()
		case len(a0.Ident) == 1:
			s.name, s.plain = a0.Ident[0], true
		case len(a0.Ident) == 2 && a0.Ident[0] == "edits":
			s.name = a0.Ident[1]
		default:
			return bad()
		}
	default:
		return bad()
	}
	return s, nil
}

// verifyBody parses the substituted command again and checks that each
// placeholder became a plain reference to its variable, inside double
// quotes: the structure does not rely on the
// classification above being right.
func verifyBody(body string, sites []*site) error {
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(body), "")
	if err != nil {
		return fmt.Errorf("the command does not parse once its placeholders are substituted (%v); rewrite the placeholders' surroundings", err)
	}
	type found struct {
		name   string
		quoted bool
		plain  bool
	}
	at := map[int]found{}
	var stack []syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil {
			_, inDQ := stack[len(stack)-1].(*syntax.DblQuoted)
			plain := !pe.Short && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet && pe.Index == nil &&
				pe.Slice == nil && pe.Repl == nil && pe.Exp == nil && pe.Names == 0 && len(pe.Modifiers) == 0 && pe.NestedParam == nil
			at[int(pe.Dollar.Offset())] = found{pe.Param.Value, inDQ, plain}
		}
		stack = append(stack, n)
		return true
	})
	shift := 0
	for _, s := range sites {
		pos := s.start + shift + strings.Index(s.repl, "${")
		shift += len(s.repl) - (s.end - s.start)
		if s.comment {
			continue
		}
		got, ok := at[pos]
		if !ok || got.name != VarName(s.name) || !got.plain || got.quoted != s.quoted {
			return fmt.Errorf("%s: the placeholder could not be substituted safely here; put it in a word of its own, e.g. an argument", s.text)
		}
	}
	return nil
}
