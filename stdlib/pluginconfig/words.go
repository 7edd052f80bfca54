package pluginconfig

import (
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
