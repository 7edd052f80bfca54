package plugins

import (
	"strings"
	"testing"
)

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, ünïcode and 日本", "plain text, ünïcode and 日本"},
		{"HTTP 500: boom\nassay: run r1 finished", `HTTP 500: boom\nassay: run r1 finished`},
		{"a\rassay: forged", `a\rassay: forged`},
		{"\x1b[2J\x1b]0;title\x07", `\x1b[2J\x1b]0;title\x07`},
		{"tab\there", `tab\there`},
		{"rtl \u202eoverride", `rtl \u202eoverride`},
		{"sep\u2028line", `sep\u2028line`},
		{"bad \xff byte", `bad \xff byte`},
		{"c1 \u009b31m", `c1 \x9b31m`},
	} {
		got := Printable(c.in)
		if got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(got, "\n\r\x1b\x07") {
			t.Errorf("Printable(%q) still holds a control character: %q", c.in, got)
		}
	}
}
