package host

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// A crash names its cause: the end of what the process wrote to stderr (a
// panic's message), printable and on one line, so the runtime can report
// why the plugin died and not only that a stream ended.
func TestCrashCarriesStderrTail(t *testing.T) {
	p, _ := openTest(t, "tp")
	if !p.Alive() {
		t.Fatal("a started plugin is not alive")
	}
	_, err := p.Trainer().Describe(context.Background(), &plugins.DescribeRequest{Config: map[string]any{"panic": true}})
	var ce *CrashError
	if !errors.As(err, &ce) || !errors.Is(err, plugins.ErrCrashed) {
		t.Fatalf("Describe that panics: err = %v, want a CrashError", err)
	}
	if ce.Exit != "exit status 2" || !strings.Contains(err.Error(), "(exit status 2)") {
		t.Errorf("the crash does not say how the process exited (a panic exits 2): %q in %v", ce.Exit, err)
	}
	if !strings.Contains(ce.Stderr, "deliberate panic in Describe") || !strings.Contains(err.Error(), "deliberate panic in Describe") {
		t.Errorf("the crash does not name its cause: %v", err)
	}
	if strings.ContainsAny(ce.Stderr, "\x1b\r\n") || len(ce.Stderr) > stderrTail+64 {
		t.Errorf("the stderr tail is not one bounded printable line: %q", ce.Stderr)
	}
	if p.Alive() {
		t.Error("a crashed plugin is alive")
	}
}

func TestTailWriterKeepsTheEnd(t *testing.T) {
	w := newTailWriter(8)
	w.Write([]byte("0123456789"))
	w.Write([]byte("ab\ncd"))
	if got := w.String(); got != "789ab cd" {
		t.Errorf("tail = %q, want %q", got, "789ab cd")
	}
	w = newTailWriter(24)
	w.Write([]byte("log line\npanic: boom\n\ngoroutine 1 [running]:\nmain.f()\n"))
	w.Write([]byte("more frames"))
	if got := w.String(); got != "panic: boom goroutine 1" {
		t.Errorf("tail of a panic = %q, want its first 24 bytes", got)
	}
}

// TestCrashStoppedBySignal: a crash whose process a stop signal ended is
// plugins.ErrStopped; one that exited or was killed is not.
func TestCrashStoppedBySignal(t *testing.T) {
	for exit, want := range map[string]bool{"signal: interrupt": true, "signal: terminated": true, "signal: hangup": true,
		"signal: killed": false, "exit status 2": false, "": false} {
		e := &CrashError{Plugin: "p", Call: "Complete", Err: errors.New("EOF"), Exit: exit}
		if got := errors.Is(e, plugins.ErrStopped); got != want || !errors.Is(e, ErrPluginCrashed) {
			t.Errorf("exit %q: stopped %v, want %v", exit, got, want)
		}
	}
}
