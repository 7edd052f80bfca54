package pluginconfig

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A value also reaches an interpreter without being one of its words:
// through a pipe or a redirection into a program that reads its code from
// standard input (echo {{v}} | bash, bash <<< {{v}}), or through a
// variable it was assigned to (v={{x}}; bash -c "$v"). flowRole checks the
// first; tainted finds the variables for the second, whose expansions are
// then checked as placeholders are.

// stdinCode names the program of a simple command that reads code from
// standard input, or "" when it reads data (or nothing) there.
func (c *classifier) stdinCode(args []*syntax.Word) string {
	viaXargs := false
	j := 0
	for j < len(args) {
		name, ok := c.static(args[j])
		if !ok {
			return c.wordText(args[j]) + " (known only when the command runs)"
		}
		base := path.Base(name)
		if w, at, sub := c.wrapperAt(base, args, j); sub != "" {
			return base + " " + sub
		} else if w != nil {
			wr := c.wrapped(w, args, at)
			if wr.cmd < 0 {
				return ""
			}
			if base == "xargs" {
				if wr.replace != "" {
					// Each input item replaces the word in the command.
					if p := c.markerInCode(args[wr.cmd:], wr.replace); p != "" {
						return "xargs " + p
					}
					return ""
				}
				viaXargs = true
			}
			j = wr.cmd
			continue
		}
		if _, ok := joiners[base]; ok {
			return base
		}
		if g := interpreterOf(base); g != nil {
			r := c.read(g, args[j+1:])
			if viaXargs && (r.dangling || r.stdin) || !viaXargs && r.stdin {
				if viaXargs {
					return "xargs " + base
				}
				return base
			}
			return ""
		}
		// An unknown launcher (srun bash) passes standard input on.
		for m := j + 1; m < len(args); m++ {
			if t, ok := c.static(args[m]); ok {
				if g := interpreterOf(path.Base(t)); g != nil && c.read(g, args[m+1:]).stdin {
					return path.Base(t)
				}
			}
		}
		return ""
	}
	return ""
}

// anyStdinCode is the first program under n that reads code from
// standard input.
func (c *classifier) anyStdinCode(n syntax.Node) string {
	found := ""
	syntax.Walk(n, func(x syntax.Node) bool {
		if found != "" {
			return false
		}
		if call, ok := x.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			found = c.stdinCode(call.Args)
		}
		return true
	})
	return found
}

// flowRole refuses a value that flows into the standard input of a
// program that reads its code there.
func (c *classifier) flowRole(s *site) error {
	for i := 0; i+1 < len(c.stack); i++ {
		switch a := c.stack[i].(type) {
		case *syntax.BinaryCmd:
			if (a.Op == syntax.Pipe || a.Op == syntax.PipeAll) && c.stack[i+1] == a.X {
				if p := c.anyStdinCode(a.Y); p != "" {
					return c.refuse(s, "the value flows through a pipe into %s, which reads its program from standard input; pass the value as an argument, or in the file {{config}} names", p)
				}
			}
		case *syntax.Stmt:
			if r, ok := c.stack[i+1].(*syntax.Redirect); ok && (r.Op == syntax.WordHdoc || r.Op == syntax.RdrIn) {
				if p := c.anyStdinCode(a.Cmd); p != "" {
					return c.refuse(s, "%s feeds the standard input of %s, which reads its program there; pass the value as an argument, or in the file {{config}} names", r.Op, p)
				}
			}
			// Output process substitutions of the statement: tee >(bash).
			var err error
			syntax.Walk(a, func(x syntax.Node) bool {
				if ps, ok := x.(*syntax.ProcSubst); ok && ps.Op == syntax.CmdOut && err == nil {
					if p := c.anyStdinCode(ps); p != "" {
						err = c.refuse(s, "the command's output goes through >(...) into %s, which reads its program from standard input", p)
					}
				}
				return err == nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// positional names the parameters a function or set -- receives.
var positional = []string{"@", "*", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// tainted lists the variables that hold a value: assigned from a word
// holding a placeholder or another such variable, read from one, or the
// parameters of a function the template calls with one.
func (c *classifier) tainted(f *syntax.File, seed ...string) map[string]bool {
	tt := &taintFlow{c: c, t: map[string]bool{}, funcs: map[string]bool{}}
	for _, name := range seed {
		tt.t[name] = true
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			tt.funcs[fd.Name.Value] = true
		}
		return true
	})
	for tt.changed = true; tt.changed; {
		tt.changed = false
		syntax.Walk(f, tt.visit)
	}
	return tt.t
}

// lineReaders are the commands that set the variables they name from
// their input.
var lineReaders = map[string]bool{"read": true, "mapfile": true, "readarray": true}

// taintFlow is one computation of tainted: t grows until a pass over the
// script changes nothing.
type taintFlow struct {
	c       *classifier
	t       map[string]bool
	funcs   map[string]bool // the functions the script declares
	changed bool            // whether this pass marked a variable
}

// holds reports whether n holds a value: a placeholder or a variable
// holding one.
func (tt *taintFlow) holds(n syntax.Node) bool {
	if n == nil {
		return false
	}
	found := false
	syntax.Walk(n, func(x syntax.Node) bool {
		switch x := x.(type) {
		case *syntax.Word:
			found = found || x != nil && tt.c.holdsSite(x)
		case *syntax.ParamExp:
			found = found || x.Param != nil && (tt.t[x.Param.Value] || strings.HasPrefix(x.Param.Value, VarPrefix))
		}
		return !found
	})
	return found
}

// mark marks variable name as holding a value.
func (tt *taintFlow) mark(name string) {
	if name == "" || tt.t[name] {
		return
	}
	tt.t[name] = true
	tt.changed = true
}

// markArgs marks the variables a command's arguments name.
func (tt *taintFlow) markArgs(call *syntax.CallExpr) {
	for _, w := range call.Args[1:] {
		if a, ok := tt.c.static(w); ok && identName.MatchString(a) {
			tt.mark(a)
		}
	}
}

// visit marks what node n makes hold a value.
func (tt *taintFlow) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Assign:
		if n.Name != nil && (n.Value != nil && tt.holds(n.Value) || n.Array != nil && tt.holds(n.Array)) {
			tt.mark(n.Name.Value)
		}
	case *syntax.WordIter:
		for _, w := range n.Items {
			if tt.holds(w) && n.Name != nil {
				tt.mark(n.Name.Value)
			}
		}
	case *syntax.Stmt:
		tt.stmt(n)
	case *syntax.BinaryCmd:
		if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && tt.holds(n.X) {
			syntax.Walk(n.Y, func(x syntax.Node) bool {
				if call, ok := x.(*syntax.CallExpr); ok && len(call.Args) > 0 {
					if name, _ := tt.c.static(call.Args[0]); lineReaders[name] {
						tt.markArgs(call)
					}
				}
				return true
			})
		}
	}
	return true
}

// stmt marks what a simple command makes hold a value: a reader's
// variables when its input holds one, printf -v's variable, and a
// function's (or set's) positional parameters.
func (tt *taintFlow) stmt(n *syntax.Stmt) {
	call, ok := n.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return
	}
	name, _ := tt.c.static(call.Args[0])
	switch {
	case lineReaders[name]:
		for _, r := range n.Redirs {
			if r.Word != nil && tt.holds(r.Word) {
				tt.markArgs(call)
			}
		}
	case name == "printf" && tt.holds(call):
		tt.markArgs(call) // printf -v NAME
	case (tt.funcs[name] || name == "set") && tt.holds(call):
		for _, p := range positional {
			tt.mark(p)
		}
	}
}

// maxNested bounds how deep shell scripts inside -c are followed.
const maxNested = 4

// innerScript checks the script of a shell's -c, script, when a value is
// one of its positional parameters (arg: 0 for $0, 1 for $1, ...): the
// script is parsed and that parameter checked wherever it is expanded,
// as a variable holding a value is (bash -c 'eval "$1"' _ {{v}} is code).
func (c *classifier) innerScript(s *site, base string, script *syntax.Word, arg int) error {
	text, ok := c.static(script)
	if !ok {
		return c.refuse(s, "the script of %s -c is known only when the command runs, so what it does with this value cannot be checked; write the script in the template", base)
	}
	if c.depth >= maxNested {
		return c.refuse(s, "%s -c scripts nest too deep to check", base)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return c.refuse(s, "the script of %s -c is not valid bash, so what it does with this value cannot be checked: %v", base, err)
	}
	seed := []string{strconv.Itoa(arg)}
	if arg > 0 {
		seed = append(seed, "@", "*")
	}
	inner := &classifier{src: text, text: text, attrs: declaredAttrs(f), depth: c.depth + 1}
	inner.taint = inner.tainted(f, seed...)
	syntax.Walk(f, inner.visit)
	if inner.err != nil {
		return c.refuse(s, "the script of %s -c receives it as $%d, and in that script, at %v", base, arg, inner.err)
	}
	return nil
}
