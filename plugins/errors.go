package plugins

import "errors"

// ErrUnsupported is returned by a plugin for a call its kind does not serve.
var ErrUnsupported = errors.New("not supported by this plugin")

// ErrCrashed marks a call whose plugin process died (the host's
// *CrashError): the caller may start the plugin again. An error without it
// was the plugin's answer, and a fresh process would not change it.
var ErrCrashed = errors.New("plugin process crashed")

// ErrStopped marks a crash whose process was ended by an interrupt,
// terminate or hang-up signal: someone stopped it (Ctrl-C reaches the
// whole process group, a scheduler's stop likewise), so a run it ends is
// interrupted and resumable, not failed.
var ErrStopped = errors.New("plugin process stopped by a signal")

// Error kinds a caller can act on with errors.Is. They cross the gRPC
// boundary as status codes (see plugins/grpcshim), so a plugin process and
// the host agree on them.
var (
	// ErrUnknownRun: a trainer was asked to Wait on (or Cancel) a run or
	// handle it does not know, typically because its process restarted and
	// lost the run. The run did not fail; nothing was measured. The caller
	// should start it again under the same run id, without counting a new
	// attempt. gRPC code NotFound.
	ErrUnknownRun = errors.New("unknown run")

	// ErrConfig: a plugin's configuration (its plugin block's config, or a
	// request's settings) is invalid. Permanent: the same call fails the
	// same way, so it is never retried. gRPC code InvalidArgument.
	ErrConfig = errors.New("invalid plugin configuration")

	// ErrPluginStart: a plugin cannot start (missing binary, failed
	// handshake, lock mismatch). Permanent: the run must stop before it
	// reserves anything. gRPC code FailedPrecondition.
	ErrPluginStart = errors.New("plugin cannot start")

	// ErrChecksum: a plugin binary differs from the checksum its lock
	// records. Errors of this kind are also ErrPluginStart.
	ErrChecksum = errors.New("plugin binary does not match its lock")

	// ErrUnparsed: an LLM answered, but its answer cannot be read as the
	// role's response (not its JSON object, no verdict the pattern finds,
	// a label outside the set). The plugin is not at fault and is not
	// restarted; the runtime asks again as the role's answer block allows,
	// then counts the call as unparsed. gRPC code OutOfRange.
	ErrUnparsed = errors.New("the answer cannot be read")
)

// IsPermanent reports whether err is of a kind that retrying, or restarting
// the plugin, cannot fix: ErrConfig or ErrPluginStart (which includes
// ErrChecksum).
func IsPermanent(err error) bool {
	return errors.Is(err, ErrConfig) || errors.Is(err, ErrPluginStart)
}

// WithKind marks err as being of kind (one of the Err values above) while
// keeping err's message: errors.Is(WithKind(ErrConfig, err), ErrConfig)
// holds, and errors.Is and errors.As still see err. A nil err stays nil.
func WithKind(kind, err error) error {
	if err == nil {
		return nil
	}
	return &kindError{kind: kind, err: err}
}

type kindError struct{ kind, err error }

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// ErrInvalidConfig is ErrConfig under its earlier name, for plugins
// written against it.
var ErrInvalidConfig = ErrConfig

// WithUsage attaches to a failed call's error what its requests may be
// billed for (attempts the provider answered or that timed out), so the
// runtime charges a call that failed as well as one that answered. The
// usage crosses the gRPC boundary with the error (see plugins/grpcshim).
// A nil err stays nil.
func WithUsage(err error, u Usage) error {
	if err == nil {
		return nil
	}
	return &usageError{err: err, u: u}
}

// UsageOf returns the usage WithUsage attached to err, if any.
func UsageOf(err error) (Usage, bool) {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue.u, true
	}
	return Usage{}, false
}

type usageError struct {
	err error
	u   Usage
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }
