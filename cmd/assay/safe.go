package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// The compiler refuses names with control characters (E_NAME_CHARS); these
// helpers make sure nothing a spec says can still reach a terminal as a
// control sequence, a forged line or bidirectional reordering.

// unsafeRune reports whether a terminal would not show r as text.
func unsafeRune(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}

// termSafe is s when it is printable text on one line, else s Go-quoted.
func termSafe(s string) string {
	if !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if unsafeRune(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// escapeControls writes every control or invisible format character of s
// but newline and tab as a Go escape (\x1b, \u202e), and every byte that is
// not UTF-8 as \xNN.
func escapeControls(s string) string {
	var b bytes.Buffer
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t' || !unsafeRune(r):
			b.WriteString(s[i : i+size])
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// writeEscaped runs write into a buffer and copies its output to w with
// control characters escaped.
func writeEscaped(w io.Writer, write func(io.Writer) error) error {
	var buf bytes.Buffer
	err := write(&buf)
	if _, werr := io.WriteString(w, escapeControls(buf.String())); err == nil {
		err = werr
	}
	return err
}
