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
// replaces each placeholder by a reference to a variable ("${ASSAY_V_lr}")
// quoted for where it stands; run.sh defines the variables, single-quoted,
// before the command. Bash does not parse the result of an expansion again,
// so whatever a value holds, it stays one piece of data. Where bash itself
// reads a word as code, a name or a number (arithmetic, eval, trap, read,
// here-documents, a command's name, ...), a placeholder is refused.

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
	plain, raw bool
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

const placeholderForms = `write {{name}}, {{.name}}, {{index .edits "name"}} or {{raw "name"}}`

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
			name, ok := str(args[1])
			if !ok {
				return bad()
			}
			s.name, s.plain, s.raw = name, true, true
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

// Variables bash reads as code (prompts expand $(...), BASH_ENV is
// sourced) or evaluates as arithmetic when assigned: a value assigned to
// one would run.
var codeVars = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true,
	"PROMPT_COMMAND": true, "BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true,
	"RANDOM": true, "SRANDOM": true, "OPTIND": true, "HISTCMD": true, "SECONDS": true, "LINENO": true}

// Commands that read their operands as shell code or as variable names
// (a name such as a[$(cmd)] runs cmd when bash evaluates its subscript).
var codeOperands = map[string]string{
	"eval": "shell code", "let": "arithmetic", "trap": "shell code", "alias": "shell code",
	"compgen": "shell code", "complete": "shell code", "bind": "shell code", "fc": "shell code",
	"read": "variable names", "readarray": "variable names", "mapfile": "variable names",
	"unset": "variable names", "getopts": "variable names",
	"declare": "variable names", "typeset": "variable names", "local": "variable names",
	"export": "variable names", "readonly": "variable names", "nameref": "variable names",
}

// Builtins that declare variables with attributes.
var declarers = map[string]bool{"declare": true, "typeset": true, "local": true, "export": true, "readonly": true}

type classifier struct {
	src, text string
	sites     []*site
	attrs     map[string]bool // variables declared -i or -n
	taint     map[string]bool // variables that hold a value (flow.go)
	depth     int             // how deep inside -c scripts (flow.go)
	stack     []syntax.Node
	err       error
}

func (c *classifier) visit(n syntax.Node) bool {
	if n == nil {
		c.stack = c.stack[:len(c.stack)-1]
		return true
	}
	if c.err != nil {
		return false
	}
	var lo, hi int
	switch n := n.(type) {
	case *syntax.Lit:
		lo, hi = int(n.Pos().Offset()), int(n.End().Offset())
		if c.taint[n.Value] && inArithmetic(c.stack, lo) {
			s := &site{name: n.Value, text: n.Value + " (it holds a placeholder's value)", tpos: templateOffset(c.sites, c.text, lo), taint: true}
			c.err = c.refuse(s, "bash evaluates a variable named in arithmetic as code (a value such as a[$(cmd)] runs cmd); pass the value as an argument to a program that checks it instead")
			return false
		}
	case *syntax.SglQuoted:
		lo, hi = int(n.Left.Offset())+1, int(n.Right.Offset())
		if n.Dollar {
			lo++
		}
	case *syntax.Comment:
		lo, hi = int(n.Hash.Offset())+1, int(n.Hash.Offset())+1+len(n.Text)
	case *syntax.ParamExp:
		if err := c.expansion(n); err != nil {
			c.err = err
			return false
		}
	}
	if hi > lo {
		for _, s := range c.sites {
			if !s.claimed && s.start >= lo && s.end <= hi {
				if err := c.classify(s, n); err != nil {
					c.err = err
					return false
				}
				s.claimed = true
			}
		}
	}
	c.stack = append(c.stack, n)
	return true
}

func (c *classifier) refuse(s *site, format string, args ...any) error {
	return errAt(c.text, s.tpos, "%s: %s", s.text, fmt.Sprintf(format, args...))
}

// backslashed reports whether the byte before off is an escaping backslash.
func (c *classifier) backslashed(off int) bool {
	n := 0
	for i := off - 1; i >= 0 && c.src[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func (c *classifier) classify(s *site, n syntax.Node) error {
	ref := "${" + VarName(s.name) + "}"
	parent := c.stack[len(c.stack)-1]
	switch n := n.(type) {
	case *syntax.Comment:
		s.repl, s.comment = ref, true
		return nil
	case *syntax.SglQuoted:
		if n.Dollar {
			if c.backslashed(s.start) {
				return c.refuse(s, "a placeholder right after a backslash in $'...' cannot be substituted; remove the backslash")
			}
			s.repl = `'"` + ref + `"$'`
		} else {
			s.repl = `'"` + ref + `"'`
		}
		s.quoted = true
	case *syntax.Lit:
		if c.backslashed(s.start) {
			return c.refuse(s, "a placeholder right after a backslash cannot be substituted; remove the backslash")
		}
		switch parent.(type) {
		case *syntax.Word:
			if s.raw {
				s.repl = ref
			} else {
				s.repl = `"` + ref + `"`
				s.quoted = true
			}
		case *syntax.DblQuoted:
			s.repl = ref
			s.quoted = true
		case *syntax.ParamExp:
			return c.refuse(s, "a placeholder cannot be part of a variable's name; write ${name}{{...}} to put a value after a variable")
		case *syntax.Assign:
			return c.refuse(s, "a placeholder cannot name a variable; put it after the '='")
		default:
			return c.refuse(s, "a value cannot stand here safely (it would name a %s); put the placeholder in a word of its own, e.g. an argument", nodeName(parent))
		}
	}
	// Every enclosing construct must take the value as data: first the
	// constructs bash evaluates whatever they hold, then how each enclosing
	// word is used.
	return c.roles(s)
}

// expansion checks an expansion of a variable that holds a value where
// a placeholder would be checked.
func (c *classifier) expansion(pe *syntax.ParamExp) error {
	if pe.Param == nil {
		return nil
	}
	name := pe.Param.Value
	off := int(pe.Dollar.Offset())
	s := &site{name: name, text: "$" + name, tpos: templateOffset(c.sites, c.text, off), taint: true}
	if strings.HasPrefix(name, VarPrefix) {
		return c.refuse(s, "%s names a variable Assay keeps values in; write the placeholder instead", name)
	}
	if !c.taint[name] {
		return nil
	}
	s.text = "$" + name + " (it holds a placeholder's value)"
	if pe.Excl {
		return c.refuse(s, "${!...} reads the variable its value names, and bash evaluates a subscript there as code; pass the value as an argument instead")
	}
	if inArithmetic(c.stack, off) {
		return c.refuse(s, "bash evaluates arithmetic as code (a value such as a[$(cmd)] runs cmd); pass the value as an argument to a program that checks it instead")
	}
	return c.roles(s)
}

// inArithmetic reports whether offset off, inside the innermost node of
// stack, is in an arithmetic expression: $(( )), (( )), let, an array
// index or a ${x:offset:length}, or a [[ ]] test bash evaluates as one.
func inArithmetic(stack []syntax.Node, off int) bool {
	within := func(n syntax.Node) bool {
		return off >= int(n.Pos().Offset()) && off < int(n.End().Offset())
	}
	for _, a := range stack {
		switch a := a.(type) {
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop,
			*syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
			return true
		case *syntax.BinaryTest:
			switch a.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				return true
			}
		case *syntax.ParamExp:
			if a.Index != nil && within(a.Index) || a.Slice != nil && (a.Slice.Offset != nil && within(a.Slice.Offset) || a.Slice.Length != nil && within(a.Slice.Length)) {
				return true
			}
		case *syntax.Assign:
			if a.Index != nil && within(a.Index) {
				return true
			}
		case *syntax.ArrayElem:
			if a.Index != nil && within(a.Index) {
				return true
			}
		}
	}
	return false
}

// roles checks that every construct around s takes its value as data.
func (c *classifier) roles(s *site) error {
	for _, a := range c.stack {
		switch a := a.(type) {
		case *syntax.ParamExp:
			if s.taint {
				continue
			}
			return c.refuse(s, "a placeholder inside ${...} cannot be substituted safely; assign the value to a variable first (v={{...}}) and expand that")
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop,
			*syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
			return c.refuse(s, "bash evaluates arithmetic as code (a value such as a[$(cmd)] runs cmd); pass the value as an argument to a program that checks it instead")
		case *syntax.CmdSubst:
			if a.Backquotes {
				return c.refuse(s, "placeholders inside backquotes are not supported; use $(...) instead")
			}
		case *syntax.ExtGlob:
			return c.refuse(s, "a placeholder cannot be part of an extended glob pattern")
		case *syntax.TestDecl:
			return c.refuse(s, "a value cannot stand here safely (in a %s)", nodeName(a))
		}
	}
	for i := len(c.stack) - 1; i > 0; i-- {
		up := c.stack[i-1]
		switch a := c.stack[i].(type) {
		case *syntax.Word:
			if err := c.wordRole(s, a, up); err != nil {
				return err
			}
		case *syntax.Assign:
			d, ok := up.(*syntax.DeclClause)
			if !ok {
				continue
			}
			flags := declFlags(d)
			if strings.ContainsAny(flags, "in?") || a.Array == nil && strings.ContainsAny(flags, "aA") {
				return c.refuse(s, "%s %s: bash evaluates what is assigned to a variable declared with these options; use a plain %s or assignment",
					d.Variant.Value, "-"+strings.Trim(flags, "?"), d.Variant.Value)
			}
		}
	}
	return c.flowRole(s)
}

// wordRole checks how the command uses word w (whose parent is up).
func (c *classifier) wordRole(s *site, w *syntax.Word, up syntax.Node) error {
	switch up := up.(type) {
	case *syntax.CallExpr:
		return c.callRole(s, w, up)
	case *syntax.Assign:
		if up.Index == w {
			return c.refuse(s, "a value cannot be an array index (bash evaluates it as arithmetic)")
		}
		if up.Value != w || up.Naked || up.Name == nil {
			return c.refuse(s, "a value cannot name a variable; put the placeholder after the '=' of an assignment")
		}
		if codeVars[up.Name.Value] {
			return c.refuse(s, "bash reads %s as code or arithmetic; a value cannot be assigned to it", up.Name.Value)
		}
		if c.attrs[up.Name.Value] {
			return c.refuse(s, "%s is declared as an integer or a name reference, so bash evaluates what is assigned to it; assign the value to a plain variable", up.Name.Value)
		}
		return nil
	case *syntax.ArrayElem:
		if up.Value != w {
			return c.refuse(s, "a value cannot be an array index (bash evaluates it as arithmetic)")
		}
		return nil
	case *syntax.Redirect:
		if up.Hdoc == w || up.Op == syntax.Hdoc || up.Op == syntax.DashHdoc {
			return c.refuse(s, "placeholders in here-documents are not supported (the text often feeds another interpreter); pass the value as an argument, an environment variable or through {{config}}")
		}
		if up.Op == syntax.DplOut || up.Op == syntax.DplIn {
			return c.refuse(s, "%s takes a file descriptor, which bash evaluates as arithmetic; redirect to a file name with > or < instead", up.Op)
		}
		return nil
	case *syntax.CaseClause, *syntax.CaseItem, *syntax.WordIter, *syntax.TestClause, *syntax.ParenTest:
		return nil
	case *syntax.BinaryTest:
		switch up.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			return c.refuse(s, "[[ ... %s ... ]] evaluates its operands as arithmetic code; compare with [ ... %s ... ] or in the program instead", up.Op, up.Op)
		}
		return nil
	case *syntax.UnaryTest:
		if up.Op == syntax.TsVarSet || up.Op == syntax.TsRefVar {
			return c.refuse(s, "[[ %s ... ]] reads its operand as a variable name; a value cannot stand there", up.Op)
		}
		return nil
	}
	return c.refuse(s, "a value cannot stand here safely (in a %s); put the placeholder in a word of its own, e.g. an argument", nodeName(up))
}

// lit is a word's text when it is one plain literal.
func lit(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return l.Value, true
}

// lead is the literal text a word starts with.
func lead(w *syntax.Word) string {
	if len(w.Parts) == 0 {
		return ""
	}
	if l, ok := w.Parts[0].(*syntax.Lit); ok {
		return l.Value
	}
	return ""
}

func prefixLit(w *syntax.Word) (string, bool) {
	l := lead(w)
	return l, l != ""
}

// declaredAttrs lists the variables a template declares as integers or
// name references: bash evaluates what is assigned to them.
func declaredAttrs(f *syntax.File) map[string]bool {
	out := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			// builtin declare -i n, command typeset -n r: plain words.
			flags, names := "", []string{}
			for _, w := range call.Args {
				a, ok := lit(w)
				switch {
				case !ok:
					flags += "?"
				case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
					flags += a[1:]
				default:
					name, _, _ := strings.Cut(a, "=")
					names = append(names, name)
				}
			}
			if len(names) > 1 && (names[0] == "builtin" || names[0] == "command") && declarers[names[1]] && strings.ContainsAny(flags, "in") {
				for _, name := range names[2:] {
					out[name] = true
				}
			}
			return true
		}
		d, ok := n.(*syntax.DeclClause)
		if !ok {
			return true
		}
		flags := declFlags(d)
		if strings.ContainsAny(flags, "in?") {
			for _, a := range d.Args {
				if a.Name != nil {
					out[a.Name.Value] = true
				}
			}
		}
		return true
	})
	return out
}

// declFlags are the option letters of a declare/local/export/... clause;
// "?" stands for an option that is not a plain literal.
func declFlags(d *syntax.DeclClause) string {
	var b strings.Builder
	for _, a := range d.Args {
		if !a.Naked || a.Value == nil {
			continue
		}
		v, ok := lit(a.Value)
		if !ok {
			if l := lead(a.Value); strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") || l == "" {
				b.WriteByte('?')
			}
			continue
		}
		if strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+") {
			b.WriteString(v[1:])
		}
	}
	return b.String()
}

var nodeNames = map[string]string{
	"Redirect": "redirection", "FuncDecl": "function name", "WordIter": "loop variable",
	"TestDecl": "test declaration", "CoprocClause": "coprocess name", "DeclClause": "declaration",
	"ExtGlob": "glob pattern", "BraceExp": "brace expansion", "ArrayElem": "array index",
}

func nodeName(n syntax.Node) string {
	s := strings.TrimPrefix(fmt.Sprintf("%T", n), "*syntax.")
	if d, ok := nodeNames[s]; ok {
		return d
	}
	return s
}

// verifyBody parses the substituted command again and checks that each
// placeholder became a plain reference to its variable, inside double
// quotes unless it is {{raw}}: the structure does not rely on the
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
