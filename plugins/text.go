package plugins

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is text from a plugin or a server (an error, a run's reason)
// made safe to print on one line of a terminal or a log: every control
// character, newline and carriage return included, every invisible
// format character (bidirectional overrides) and line separator is
// written as a Go escape (\n, \x1b, \u202e), and every byte that is not
// UTF-8 as \xNN. A server cannot end Assay's line and forge the next one
// ("assay: run X finished"), nor drive the terminal. Printable text
// passes unchanged, and Printable(Printable(s)) adds no more escapes than
// the backslashes of the first.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unprintable(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case !unprintable(r):
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

// unprintable reports whether a terminal would not show r as text on the
// current line.
func unprintable(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r)
}
