package pluginconfig

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A value reaches code through a variable as surely as through a
// placeholder: v={{x}}; eval "$v". tainted finds the variables that hold
// a value, and visit checks their expansions as placeholders (grammar.go).

// positional names the parameters a function or set -- receives.
var positional = []string{"@", "*", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// tainted lists the variables that hold a value: assigned from a word
// holding a placeholder or another such variable, read from one, or the
// parameters of a function the template calls with one.
func (c *classifier) tainted(f *syntax.File) map[string]bool {
	tt := &taintFlow{c: c, t: map[string]bool{}, funcs: map[string]bool{}}
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
