package runtime

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A plugin's error in a progress line stays on that line: a server's 500
// body cannot forge "assay: run X finished" or drive the terminal.
func TestProgressLinesArePrintable(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	p.logf("plugin %s: %v; restarted it", "llm", errors.New("HTTP 500: \x1b[2Jboom\nassay: run r1 finished"))
	p.done(&Result{ID: "r1", State: StateStoppedAtCap, Reason: "phase x: boom\r\nassay: run r1 finished"})
	out := b.String()
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\r") {
		t.Errorf("a control character reached the output: %q", out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(l, "assay: run r1 finished") {
			t.Errorf("a forged line: %q in\n%s", l, out)
		}
	}
}
