package lsp

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

func TestTextPositions(t *testing.T) {
	t.Parallel()
	// "é" is 2 bytes and 1 UTF-16 unit; "𝛼" 4 bytes and 2 units.
	src := "a = \"é𝛼\"\r\nb\rc\n\xffd"
	tx := newText([]byte(src))
	for _, c := range []struct {
		off        int
		line, char uint32
	}{
		{0, 0, 0},
		{5, 0, 5},  // after the quote: é starts at byte 5
		{7, 0, 6},  // after é
		{8, 0, 6},  // inside 𝛼: its start
		{11, 0, 8}, // after 𝛼 (2 units)
		{12, 0, 9}, // after the closing quote, before \r\n
		{13, 0, 9}, // inside \r\n: the line's end
		{14, 1, 0}, // b
		{16, 2, 0}, // c
		{18, 3, 0}, // the invalid byte
		{19, 3, 1}, // d after one U+FFFD
		{99, 3, 2}, // past the end
	} {
		got := tx.position(c.off)
		if got.Line != c.line || got.Character != c.char {
			t.Errorf("position(%d) = %d:%d, want %d:%d", c.off, got.Line, got.Character, c.line, c.char)
		}
	}
	for _, c := range []struct {
		line, char uint32
		off        int
	}{
		{0, 6, 7}, {0, 7, 7}, {0, 8, 11}, {0, 100, 12}, {1, 0, 14}, {1, 5, 15}, {3, 1, 19}, {9, 0, len(src)},
	} {
		if got := tx.offset(protocol.Position{Line: c.line, Character: c.char}); got != c.off {
			t.Errorf("offset(%d:%d) = %d, want %d", c.line, c.char, got, c.off)
		}
	}
}

// slowPosition is the definition of an LSP position, written plainly: count
// the line breaks before off, then the UTF-16 units of the line's runes
// that end at or before off.
func slowPosition(src []byte, off int) protocol.Position {
	off = max(0, min(off, len(src)))
	line, start := 0, 0
	for i := 0; i < off; i++ {
		if src[i] == '\n' || src[i] == '\r' && (i+1 >= len(src) || src[i+1] != '\n') {
			line, start = line+1, i+1
		}
	}
	end := start
	for end < len(src) && src[end] != '\n' && src[end] != '\r' {
		end++
	}
	units := 0
	for i := start; i < min(off, end); {
		r, size := utf8.DecodeRune(src[i:end])
		if i+size > off {
			break
		}
		if r == utf8.RuneError {
			units++
		} else {
			units += len(utf16.Encode([]rune{r}))
		}
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

func FuzzPositions(f *testing.F) {
	f.Add([]byte("a = \"é𝛼\"\r\nb\rc\n\xffd"), 8, uint32(0), uint32(7))
	f.Add([]byte("role \"rwm\" {\n  llm = plugin.openai\n}\n"), 20, uint32(1), uint32(9))
	f.Add([]byte("\r\r\n\n"), 2, uint32(2), uint32(0))
	f.Fuzz(func(t *testing.T, src []byte, off int, line, char uint32) {
		tx := newText(src)
		// Offset to position agrees with the plain definition.
		p := tx.position(off)
		if want := slowPosition(src, off); p != want {
			t.Fatalf("position(%d) = %v, want %v", off, p, want)
		}
		// Back to an offset: a rune boundary at or before off, mapping to
		// the same position.
		o := tx.offset(p)
		if o < 0 || o > len(src) || o > max(off, 0) && off <= len(src) {
			t.Fatalf("offset(position(%d)) = %d, outside [0, off]", off, o)
		}
		if tx.position(o) != p {
			t.Fatalf("position(offset(%v)) = %v", p, tx.position(o))
		}
		// Any position maps to an offset in the text that maps back to a
		// position no later than it.
		q := protocol.Position{Line: line, Character: char}
		o = tx.offset(q)
		if o < 0 || o > len(src) {
			t.Fatalf("offset(%v) = %d, outside the text of %d bytes", q, o, len(src))
		}
		if r := tx.position(o); r.Line > q.Line || r.Line == q.Line && r.Character > q.Character {
			t.Fatalf("position(offset(%v)) = %v, after it", q, r)
		}
		// An edit at q with the empty string changes nothing.
		if string(tx.edit(protocol.Range{Start: q, End: q}, "")) != string(src) {
			t.Fatalf("empty edit at %v changed the text", q)
		}
	})
}
