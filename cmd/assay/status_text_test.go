package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/assay-lang/assay/runtime"
)

// A run's reason, which may quote a plugin or a server, stays on its line
// of assay status: it cannot forge "assay: run X finished" or drive the
// terminal.
func TestStatusReasonIsPrintable(t *testing.T) {
	var b bytes.Buffer
	writeStatus(&b, &runtime.Status{ID: "r1", State: runtime.StateFailed, Reason: "HTTP 500: \x1b[2Kboom\nassay: run r1 finished"})
	out := b.String()
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\nassay: run r1 finished") || !strings.Contains(out, `boom\nassay: run r1 finished`) {
		t.Errorf("status:\n%q", out)
	}
}
