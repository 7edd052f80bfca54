package pluginconfig

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where a placeholder may stand, by bash's grammar alone: in a word bash
// passes on as data (an argument, an assignment's value, a file name, a
// case or [[ == ]] operand), with nothing but plain text around it. A
// variable assigned a value is checked wherever it is expanded (flow.go).

// Variables bash reads as code (prompts expand $(...), BASH_ENV is
// sourced), evaluates as arithmetic when assigned, or looks commands up
// in (PATH): a value assigned to one would choose what runs.
var codeVars = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true,
	"PROMPT_COMMAND": true, "BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true,
	"RANDOM": true, "SRANDOM": true, "OPTIND": true, "HISTCMD": true, "SECONDS": true, "LINENO": true,
	"PATH": true}

// Builtins that read their operands as shell code or as variable names
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

// trusted placeholders name paths the trainer makes (the file it writes
// the proposal's values to, the run's directory): `. {{config}}` may
// source them, though no other value may name a script bash runs.
var trusted = map[string]bool{"config": true, "workdir": true, "batch": true, "adapter_dir": true, "previous_adapter_dir": true}

// plainText is what may stand beside a placeholder in its word: letters,
// digits and marks no shell reads as syntax there (--lr=, /, .json).
const plainText = "._+-=/:,@%"

const wordHint = "put it in a word of its own, e.g. --lr {{lr}}, --lr={{lr}} or {{workdir}}/out.json"

type classifier struct {
	src, text string
	sites     []*site
	attrs     map[string]bool // variables declared -i or -n
	taint     map[string]bool // variables that hold a value (flow.go)
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
			c.err = c.refuse(s, "bash evaluates a variable named in arithmetic as code (a value such as a[$(cmd)] runs cmd); pass the value as an argument instead")
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

func (c *classifier) classify(s *site, n syntax.Node) error {
	ref := "${" + VarName(s.name) + "}"
	parent := c.stack[len(c.stack)-1]
	switch n := n.(type) {
	case *syntax.Comment:
		s.repl, s.comment = ref, true
		return nil
	case *syntax.SglQuoted:
		if n.Dollar {
			return c.refuse(s, "a placeholder cannot stand inside $'...', whose escapes bash decodes; %s", wordHint)
		}
		s.repl = `'"` + ref + `"'`
	case *syntax.Lit:
		switch parent.(type) {
		case *syntax.Word:
			s.repl = `"` + ref + `"`
		case *syntax.DblQuoted:
			s.repl = ref
		case *syntax.ParamExp:
			return c.refuse(s, "a placeholder cannot be part of a variable's name; write ${name}{{...}} to put a value after a variable")
		case *syntax.Assign:
			return c.refuse(s, "a placeholder cannot name a variable; put it after the '='")
		default:
			return c.refuse(s, "a value cannot stand here safely (it would name a %s); %s", nodeName(parent), wordHint)
		}
	}
	s.quoted = true
	// Every enclosing construct must take the value as data, and the word
	// must hold nothing but plain text around it.
	if err := c.roles(s); err != nil {
		return err
	}
	return c.plainWord(s)
}

// plainWord checks that the innermost word holding s is values and plain
// text: no expansion, glob, brace, tilde or space a value could combine
// with, and no text of another language's code around it.
func (c *classifier) plainWord(s *site) error {
	var w *syntax.Word
	for i := len(c.stack) - 1; i >= 0 && w == nil; i-- {
		w, _ = c.stack[i].(*syntax.Word)
	}
	if w == nil {
		return nil
	}
	var bad string
	plain := func(t string) {
		if i := strings.IndexFunc(t, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(plainText, r))
		}); i >= 0 && bad == "" {
			bad = fmt.Sprintf("%q", t[i:i+1])
		}
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			plain(p.Value)
		case *syntax.SglQuoted:
			plain(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					plain(l.Value)
				} else if bad == "" {
					bad = "an expansion"
				}
			}
		default:
			if bad == "" {
				bad = "an expansion"
			}
		}
	}
	if bad == "" {
		return nil
	}
	return c.refuse(s, "its word %s holds %s beside the value, so the value would be part of code or of more than one word; a value stands in a word of plain text (letters, digits and %s): %s",
		c.wordText(w), bad, plainText, wordHint)
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
		return c.refuse(s, "bash evaluates arithmetic as code (a value such as a[$(cmd)] runs cmd); pass the value as an argument instead")
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
			return c.refuse(s, "bash evaluates arithmetic as code (a value such as a[$(cmd)] runs cmd); pass the value as an argument instead")
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
	return nil
}

// wordRole checks how word w (whose parent is up) is used.
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
			return c.refuse(s, "bash reads %s as code or arithmetic, or finds commands by it; a value cannot be assigned to it", up.Name.Value)
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
			return c.refuse(s, "placeholders in here-documents are not supported (the text is not one word: it often feeds another interpreter); pass the value as an argument, an environment variable or through {{config}}")
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
	return c.refuse(s, "a value cannot stand here safely (in a %s); %s", nodeName(up), wordHint)
}

// callRole checks word w, a word of a simple command, by bash's reading
// of it: the command's name (also after exec, command or builtin), the
// operands of a builtin that reads code or names, the script . runs. Any
// other word is an argument, which bash passes on as data; what the
// program does with it is the program's (a value's type keeps it data).
func (c *classifier) callRole(s *site, w *syntax.Word, call *syntax.CallExpr) error {
	args := call.Args
	idx := -1
	for i, a := range args {
		if a == w {
			idx = i
		}
	}
	for j := 0; j <= idx; {
		if idx == j {
			return c.refuse(s, "a value cannot choose the command to run; name the command in the template and pass the value as an argument")
		}
		name, ok := c.static(args[j])
		if !ok {
			return nil // the program is the run's; its words are its data
		}
		switch name {
		case "exec", "command", "builtin":
			next := c.commandAfter(name, args, j)
			if next < 0 || idx < next {
				return nil // an option's value, or no command runs
			}
			j = next
			continue
		case ".", "source":
			if idx == j+1 && !(trusted[s.name] && !s.taint) {
				return c.refuse(s, "%s runs the file this word names as bash, so a value there chooses the code that runs; name the file in the template", name)
			}
			return nil
		case "printf":
			if prev, _ := lit(args[idx-1]); prev == "-v" || strings.HasPrefix(lead(args[idx]), "-v") {
				return c.refuse(s, "printf -v takes a variable name; a value cannot stand there")
			}
			return nil
		case "test", "[":
			if prev, _ := lit(args[idx-1]); prev == "-v" || prev == "-R" {
				return c.refuse(s, "test %s takes a variable name; a value cannot stand there", prev)
			}
			return nil
		}
		if what, ok := codeOperands[name]; ok {
			return c.refuse(s, "%s reads its operands as %s, so a value there could run commands; pass it to %s differently", name, what, name)
		}
		return nil
	}
	return nil
}

// commandAfter is the index of the command that exec, command or builtin
// (at args[j]) runs, after its options; -1 when it runs none (command -v).
func (c *classifier) commandAfter(name string, args []*syntax.Word, j int) int {
	k := j + 1
	for k < len(args) {
		t, ok := c.static(args[k])
		if !ok || !strings.HasPrefix(t, "-") || t == "-" {
			break
		}
		k++
		if t == "--" {
			break
		}
		switch {
		case name == "command" && strings.ContainsAny(t, "vV"):
			return -1
		case name == "exec" && strings.HasSuffix(t, "a"):
			k++ // exec -a NAME
		}
	}
	if k >= len(args) {
		return -1
	}
	return k
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
