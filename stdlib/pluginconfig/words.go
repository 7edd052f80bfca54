package pluginconfig

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What the template fixes of a word, and whether a value stands in it.

// static is the text of a word the template fixes: literals and quotes
// only, no placeholder, expansion or backslash.
func (c *classifier) static(w *syntax.Word) (string, bool) {
	if w == nil || c.holdsSite(w) {
		return "", false
	}
	var b strings.Builder
	var part func(p syntax.WordPart) bool
	part = func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !part(q) {
					return false
				}
			}
		default:
			return false
		}
		return true
	}
	for _, p := range w.Parts {
		if !part(p) {
			return "", false
		}
	}
	return b.String(), true
}

// holdsSite reports whether a placeholder stands in w.
func (c *classifier) holdsSite(w *syntax.Word) bool {
	lo, hi := int(w.Pos().Offset()), int(w.End().Offset())
	for _, s := range c.sites {
		if s.start >= lo && s.end <= hi {
			return true
		}
	}
	return false
}

// holdsValue reports whether a placeholder, or a variable that holds a
// value, stands in w.
func (c *classifier) holdsValue(w *syntax.Word) bool {
	if c.holdsSite(w) {
		return true
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if pe, ok := n.(*syntax.ParamExp); ok && pe.Param != nil && c.taint[pe.Param.Value] {
			found = true
		}
		return !found
	})
	return found
}

// holdsRaw reports whether an unquoted {{raw}} placeholder or expansion of
// a variable that holds a value stands in w: bash splits it into words,
// which may be options or a command.
func (c *classifier) holdsRaw(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			for _, s := range c.sites {
				if s.raw && s.start >= int(p.Pos().Offset()) && s.end <= int(p.End().Offset()) {
					return true
				}
			}
		case *syntax.ParamExp:
			if p.Param != nil && c.taint[p.Param.Value] {
				return true
			}
		}
	}
	return false
}

// wordText is a word as the template writes it, for errors.
func (c *classifier) wordText(w *syntax.Word) string {
	lo, hi := int(w.Pos().Offset()), int(w.End().Offset())
	if lo < 0 || hi > len(c.src) || lo > hi {
		return "a word"
	}
	t := c.src[lo:hi]
	for i := len(c.sites) - 1; i >= 0; i-- {
		s := c.sites[i]
		if s.start >= lo && s.end <= hi {
			t = t[:s.start-lo] + s.text + t[s.end-lo:]
		}
	}
	return t
}

// markerInCode names the program of the simple command args when a word
// holding marker (the {} of find -exec and xargs -I) is code, or names
// code to run, or the command itself: the text put there runs.
func (c *classifier) markerInCode(args []*syntax.Word, marker string) string {
	j := 0
	for j < len(args) {
		name, ok := c.static(args[j])
		if !ok {
			return c.wordText(args[j])
		}
		base := path.Base(name)
		if strings.Contains(name, marker) {
			return name
		}
		if _, ok := codeOperands[base]; ok {
			return base
		}
		if _, ok := joiners[base]; ok {
			return base
		}
		if w, at, sub := c.wrapperAt(base, args, j); sub != "" {
			return base
		} else if w != nil {
			wr := c.wrapped(w, args, at)
			for k := range wr.code {
				if t, ok := c.static(args[k]); !ok || strings.Contains(t, marker) {
					return base
				}
			}
			if wr.cmd < 0 {
				return ""
			}
			if wr.shell != "" {
				return base
			}
			j = wr.cmd
			continue
		}
		if g := interpreterOf(base); g != nil {
			r := c.read(g, args[j+1:])
			for k, role := range r.roles {
				if role == rolePlain {
					continue
				}
				if t, ok := c.static(args[j+1+k]); !ok || strings.Contains(t, marker) {
					return base
				}
			}
			return ""
		}
		for m := j + 1; m < len(args); m++ {
			t, ok := c.static(args[m])
			if !ok {
				continue
			}
			if g := interpreterOf(path.Base(t)); g != nil {
				r := c.read(g, args[m+1:])
				for k, role := range r.roles {
					if t, ok := c.static(args[m+1+k]); role == roleCode && ok && strings.Contains(t, marker) {
						return path.Base(t)
					}
				}
			}
		}
		return ""
	}
	return ""
}
