package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Values written on a command line (--set PATH=VALUE) use a small literal
// syntax, the JSON a user would expect with HCL's conveniences:
//
//	300  1.5  true  "quoted text"  [8, 16]  {H100 = 2.5, CPU = 1.5}
//
// A map's keys may be bare words or quoted, followed by = or :. Inside a
// list or a map a string is quoted; the whole value may be a bare word
// where a string fits (a string field's value is never parsed at all).

// MaxTextBytes bounds a value written on a command line.
const MaxTextBytes = 64 << 10

// maxTextDepth bounds the nesting of lists and maps in a value.
const maxTextDepth = 32

// TextError is an error about a command-line value, at byte offsets of its
// text, or about the path that names the field (Path).
type TextError struct {
	Off, End int
	Path     bool
	Msg      string
}

func (e *TextError) Error() string { return e.Msg }

func textErr(off, end int, format string, args ...any) *TextError {
	if end <= off {
		end = off + 1
	}
	return &TextError{Off: off, End: end, Msg: fmt.Sprintf(format, args...)}
}

// textNode is one parsed value with its place in the text.
type textNode struct {
	kind  textKind
	num   float64
	str   string
	bool  bool
	elems []*textNode // list elements, or map values in key order
	keys  []string    // map keys as written
	off   int
	end   int
}

type textKind int

const (
	textNumber textKind = iota
	textString
	textBool
	textWord // a bare word: a string where one may be unquoted
	textList
	textMap
)

func (k textKind) String() string {
	return [...]string{"a number", "a string", "true or false", "a word", "a list", "a map"}[k]
}

// plain is the node as plain Go data (float64, string, bool, []any,
// map[string]any).
func (n *textNode) plain() any {
	switch n.kind {
	case textNumber:
		return n.num
	case textString, textWord:
		return n.str
	case textBool:
		return n.bool
	case textList:
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			out[i] = e.plain()
		}
		return out
	}
	out := make(map[string]any, len(n.keys))
	for i, k := range n.keys {
		out[k] = n.elems[i].plain()
	}
	return out
}

// parseText parses a whole command-line value.
func parseText(src string) (*textNode, *TextError) {
	if len(src) > MaxTextBytes {
		return nil, textErr(0, 1, "the value is %d bytes; a value on the command line is at most %d", len(src), MaxTextBytes)
	}
	p := &textParser{src: src}
	p.space()
	if p.pos == len(src) {
		return nil, textErr(0, 1, "the value is empty")
	}
	n, err := p.value(0, true)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(src) {
		return nil, textErr(p.pos, len(src), "unexpected %q after the value", src[p.pos:])
	}
	return n, nil
}

type textParser struct {
	src string
	pos int
}

func (p *textParser) space() {
	for p.pos < len(p.src) && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
		p.pos++
	}
}

func (p *textParser) value(depth int, top bool) (*textNode, *TextError) {
	if depth > maxTextDepth {
		return nil, textErr(p.pos, p.pos+1, "the value nests more than %d levels deep", maxTextDepth)
	}
	if p.pos >= len(p.src) {
		return nil, textErr(len(p.src), len(p.src)+1, "the value ends where a value is expected")
	}
	switch p.src[p.pos] {
	case '[':
		return p.list(depth)
	case '{':
		return p.object(depth)
	case '"':
		off := p.pos
		s, err := p.quoted()
		if err != nil {
			return nil, err
		}
		return &textNode{kind: textString, str: s, off: off, end: p.pos}, nil
	}
	off := p.pos
	stop := ",]}=:"
	if top {
		stop = ""
	}
	for p.pos < len(p.src) && !strings.ContainsRune(stop, rune(p.src[p.pos])) && (top || !strings.ContainsRune(" \t\r\n", rune(p.src[p.pos]))) {
		p.pos++
	}
	word := strings.TrimSpace(p.src[off:p.pos])
	if top {
		p.pos = off + len(strings.TrimRight(p.src[off:], " \t\r\n"))
	}
	if word == "" {
		return nil, textErr(off, off+1, "a value is expected here, got %q", p.src[off:off+1])
	}
	n := &textNode{off: off, end: off + len(word)}
	switch word {
	case "true", "false":
		n.kind, n.bool = textBool, word == "true"
		return n, nil
	}
	if x, err := strconv.ParseFloat(word, 64); err == nil && !math.IsInf(x, 0) && !math.IsNaN(x) && !strings.ContainsAny(word, "_xXpP") {
		n.kind, n.num = textNumber, x
		return n, nil
	}
	if !top {
		return nil, textErr(n.off, n.end, "%q is not a number, true or false; inside [ ] and { } write a string in double quotes", word)
	}
	n.kind, n.str = textWord, word
	return n, nil
}

// quoted reads a double-quoted string with Go's escapes.
func (p *textParser) quoted() (string, *TextError) {
	off := p.pos
	for i := p.pos + 1; i < len(p.src); i++ {
		switch p.src[i] {
		case '\\':
			i++
		case '"':
			s, err := strconv.Unquote(p.src[off : i+1])
			if err != nil {
				return "", textErr(off, i+1, "%s is not a well-formed quoted string", p.src[off:i+1])
			}
			p.pos = i + 1
			return s, nil
		}
	}
	return "", textErr(off, len(p.src), "the quoted string has no closing \"")
}

func (p *textParser) list(depth int) (*textNode, *TextError) {
	n := &textNode{kind: textList, off: p.pos}
	p.pos++
	for {
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		e, err := p.value(depth+1, false)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, e)
		if err := p.separator(']', n.off, "list"); err != nil {
			return nil, err
		}
	}
}

func (p *textParser) object(depth int) (*textNode, *TextError) {
	n := &textNode{kind: textMap, off: p.pos}
	p.pos++
	seen := map[string]bool{}
	for {
		p.space()
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		koff := p.pos
		key, err := p.key()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, textErr(koff, p.pos, "the key %q is written twice", key)
		}
		seen[key] = true
		p.space()
		if p.pos >= len(p.src) || (p.src[p.pos] != '=' && p.src[p.pos] != ':') {
			return nil, textErr(p.pos, p.pos+1, "write = or : after the key %q", key)
		}
		p.pos++
		p.space()
		e, err := p.value(depth+1, false)
		if err != nil {
			return nil, err
		}
		n.keys, n.elems = append(n.keys, key), append(n.elems, e)
		if err := p.separator('}', n.off, "map"); err != nil {
			return nil, err
		}
	}
}

// key reads a map key: a quoted string, or a bare word of letters, digits,
// _, - and . (a GPU type such as H100, a config key).
func (p *textParser) key() (string, *TextError) {
	if p.pos < len(p.src) && p.src[p.pos] == '"' {
		return p.quoted()
	}
	off := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.pos++
			continue
		}
		break
	}
	if p.pos == off {
		return "", textErr(off, off+1, "a map key is expected here, e.g. {H100 = 2.5}")
	}
	return p.src[off:p.pos], nil
}

// separator reads the comma between elements, or the closing bracket.
func (p *textParser) separator(closer byte, open int, what string) *TextError {
	p.space()
	if p.pos >= len(p.src) {
		return textErr(open, open+1, "the %s has no closing %c", what, closer)
	}
	switch p.src[p.pos] {
	case ',':
		p.pos++
		return nil
	case closer:
		return nil
	}
	return textErr(p.pos, p.pos+1, "write , between the elements of a %s, or %c to close it", what, closer)
}

// SplitTop splits text at the commas outside quotes, brackets, braces and
// parentheses, and returns the parts with their byte offsets. A value
// without such a comma is one part.
func SplitTop(text string) (parts []string, offs []int) {
	depth, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"':
			for i++; i < len(text) && text[i] != '"'; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case '[', '{', '(':
			depth++
		case ']', '}', ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				parts, offs = append(parts, text[start:i]), append(offs, start)
				start = i + 1
			}
		}
	}
	return append(parts, text[start:]), append(offs, start)
}
