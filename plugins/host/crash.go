package host

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/assay-lang/assay/plugins"
)

// ErrPluginCrashed is returned (wrapped in a *CrashError) when a plugin
// process died during a call, or had died before it. The host does not
// restart it: the runtime supervises plugins, closing the dead one and
// opening it again, and decides which calls to repeat. It is
// plugins.ErrCrashed, which the runtime tests for.
var ErrPluginCrashed = plugins.ErrCrashed

// CrashError says which plugin died in which call, and why when the
// process said so on stderr.
type CrashError struct {
	Plugin string
	Call   string
	// Err is the transport error the call saw.
	Err error
	// Stderr is the end of what the plugin's process wrote to stderr
	// (a panic and its first frames), made printable; "" when nothing.
	Stderr string
	// Exit is how the process ended ("exit status 2", "signal: killed");
	// "" when unknown.
	Exit string
}

func (e *CrashError) Error() string {
	msg := fmt.Sprintf("plugin %q crashed during %s: %v", e.Plugin, e.Call, e.Err)
	if e.Exit != "" {
		msg += " (" + e.Exit + ")"
	}
	if e.Stderr != "" {
		msg += "; its stderr ended with: " + e.Stderr
	}
	return msg
}

// Unwrap makes errors.Is(err, ErrPluginCrashed) true, and
// errors.Is(err, plugins.ErrStopped) when a stop signal ended the process.
func (e *CrashError) Unwrap() []error {
	if stopSignals[e.Exit] {
		return []error{ErrPluginCrashed, plugins.ErrStopped, e.Err}
	}
	return []error{ErrPluginCrashed, e.Err}
}

// stopSignals are how a process ends (os.ProcessState's words) when
// someone stopped it rather than it failing.
var stopSignals = map[string]bool{"signal: interrupt": true, "signal: terminated": true, "signal: hangup": true}

// stderrTail is how much of a plugin's stderr a crash reports: enough for
// a panic's message and its first frames, not a whole log.
const stderrTail = 512

// crash is the *CrashError of call on inst (nil: no process), with how
// the process exited and the stderr it left.
func (p *Plugin) crash(inst *instance, call string, err error) *CrashError {
	ce := &CrashError{Plugin: p.locked.Name, Call: call, Err: err, Stderr: p.stderr.String()}
	// go-plugin sets exited only after the command's Wait returned (under
	// its lock, which Exited takes): ProcessState is then set and safe
	// to read.
	if inst != nil && inst.client.Exited() && inst.cmd.ProcessState != nil {
		ce.Exit = inst.cmd.ProcessState.String()
	}
	return ce
}

// Alive reports whether the plugin's current process is running: a call
// that failed on a live process was answered, and restarting the process
// cannot help it.
func (p *Plugin) Alive() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.closed && p.cur != nil && !p.cur.client.Exited()
}

// stderrWriter is where go-plugin copies the process's stderr: the tail
// kept for crashes, and WithStderr's writer.
func (p *Plugin) stderrWriter() io.Writer {
	if p.cfg.stderr == nil {
		return p.stderr
	}
	return io.MultiWriter(p.stderr, p.cfg.stderr)
}

// tailWriter keeps the last n bytes written to it, or, once a Go panic
// or fatal error begins, the first n bytes from its first line: the message
// and the frames that raised it, not the runtime's frames at the end.
type tailWriter struct {
	mu    sync.Mutex
	n     int
	buf   []byte
	panic bool
}

func newTailWriter(n int) *tailWriter { return &tailWriter{n: n} }

func (t *tailWriter) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.panic {
		t.buf = append(t.buf, b[:min(len(b), t.n-len(t.buf))]...)
		return len(b), nil
	}
	t.buf = append(t.buf, b...)
	for _, start := range []string{"panic: ", "fatal error: "} {
		if i := strings.Index("\n"+string(t.buf), "\n"+start); i >= 0 {
			t.buf, t.panic = append(t.buf[:0], t.buf[i:min(len(t.buf), i+t.n)]...), true
			return len(b), nil
		}
	}
	if over := len(t.buf) - t.n; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// String is the kept text, one line, made printable: a plugin cannot put a
// control sequence or a forged line into an error.
func (t *tailWriter) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "?")), " ")
	return plugins.Printable(s)
}
