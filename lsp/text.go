package lsp

import (
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// text is one version of a document with an index of its lines, for
// converting between byte offsets and LSP positions, whose characters
// count UTF-16 code units. Lines end at "\n", "\r\n" or "\r", as the
// protocol says. A text is never changed once made.
type text struct {
	src []byte
	// lines holds the byte offset where each line starts; ends the
	// offset where its content ends (before the line break).
	lines, ends []int
}

func newText(src []byte) *text {
	t := &text{src: src, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			t.ends = append(t.ends, i)
			t.lines = append(t.lines, i+1)
		case '\r':
			t.ends = append(t.ends, i)
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			t.lines = append(t.lines, i+1)
		}
	}
	t.ends = append(t.ends, len(src))
	return t
}

// offset returns the byte offset of p. A line past the end is the end of
// the text; a character past the end of its line is the line's end; a
// character inside a rune (the second half of a surrogate pair) is the
// start of that rune.
func (t *text) offset(p protocol.Position) int {
	if int(p.Line) >= len(t.lines) {
		return len(t.src)
	}
	off, end := t.lines[p.Line], t.ends[p.Line]
	for units := uint32(0); off < end; {
		r, size := utf8.DecodeRune(t.src[off:end])
		n := uint32(utf16.RuneLen(r))
		if r == utf8.RuneError || n > 2 {
			n = 1 // an invalid byte counts as one U+FFFD
		}
		if units+n > p.Character {
			break
		}
		units += n
		off += size
	}
	return off
}

// position returns the LSP position of byte offset off. An offset past the
// end is the end; one inside a rune is that rune's start; one inside a
// line break is the end of its line.
func (t *text) position(off int) protocol.Position {
	off = max(0, min(off, len(t.src)))
	line := t.lineOf(off)
	start, end := t.lines[line], t.ends[line]
	off = min(off, end)
	units := 0
	for i := start; i < off; {
		r, size := utf8.DecodeRune(t.src[i:end])
		if i+size > off {
			break // off is inside this rune
		}
		if r == utf8.RuneError {
			units++
		} else {
			units += utf16.RuneLen(r)
		}
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// lineOf returns the index of the line holding byte offset off.
func (t *text) lineOf(off int) int {
	lo, hi := 0, len(t.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// rng returns the LSP range of bytes [start, end).
func (t *text) rng(start, end int) protocol.Range {
	if end < start {
		end = start
	}
	return protocol.Range{Start: t.position(start), End: t.position(end)}
}

// edit returns src with the bytes of r replaced by s.
func (t *text) edit(r protocol.Range, s string) []byte {
	start, end := t.offset(r.Start), t.offset(r.End)
	if end < start {
		start, end = end, start
	}
	out := make([]byte, 0, len(t.src)-(end-start)+len(s))
	out = append(out, t.src[:start]...)
	out = append(out, s...)
	return append(out, t.src[end:]...)
}

func decodeRune(b []byte) (rune, int) { return utf8.DecodeRune(b) }
