package grpcshim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assay-lang/assay/plugins"
)

// ProtocolVersion is the version of plugins/proto spoken by this build. A
// new incompatible protocol gets a new number and a new entry in
// VersionedPlugins, so a host can serve plugins of both for a while.
const ProtocolVersion = 1

// Handshake makes a plugin binary refuse to run unless started by an Assay
// host: the cookie is not a secret, only a guard against running a plugin
// by hand (go-plugin then prints a friendly message and exits).
var Handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "ASSAY_PLUGIN",
	MagicCookieValue: "6f1c2a9e-assay-plugin-protocol",
}

// PluginSet returns the go-plugin set for the given implementations; nil
// ones are left out, so a plugin binary serves only the kinds it has. On the
// host side pass no implementations: every kind is then dispensable.
func PluginSet(t plugins.Trainer, l plugins.LLM, b plugins.Benchmark) plugin.PluginSet {
	set := plugin.PluginSet{}
	host := t == nil && l == nil && b == nil
	if host || t != nil {
		set[plugins.KindTrainer] = &TrainerPlugin{Impl: t}
	}
	if host || l != nil {
		set[plugins.KindLLM] = &LLMPlugin{Impl: l}
	}
	if host || b != nil {
		set[plugins.KindBenchmark] = &BenchmarkPlugin{Impl: b}
	}
	return set
}

// VersionedPlugins is the protocol version map for a plugin set.
func VersionedPlugins(set plugin.PluginSet) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{ProtocolVersion: set}
}

// RemoteError is an error returned by a plugin, with its gRPC status code.
type RemoteError struct {
	Code    codes.Code
	Message string
	// wrapped is the well-known error the code stands for, if any.
	wrapped error
}

// Error is the plugin's message made printable (plugins.Printable): it
// reaches terminals, logs and the journal, and a plugin's text (a server's
// answer inside it) must not forge a line there.
func (e *RemoteError) Error() string {
	return fmt.Sprintf("plugin: %s (%s)", plugins.Printable(e.Message), e.Code)
}

// Unwrap lets errors.Is find the error kind the code stands for:
// plugins.ErrUnsupported (Unimplemented), ErrUnknownRun (NotFound),
// ErrConfig (InvalidArgument), ErrPluginStart (FailedPrecondition),
// ErrUnparsed (OutOfRange) and the context errors.
func (e *RemoteError) Unwrap() error { return e.wrapped }

// GRPCStatus lets status.FromError and status.Code see the code.
func (e *RemoteError) GRPCStatus() *status.Status { return status.New(e.Code, e.Message) }

// toStatus turns an implementation's error into a gRPC status error on the
// plugin side of the wire.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	switch {
	case errors.Is(err, plugins.ErrUnsupported):
		return status.Error(codes.Unimplemented, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case errors.Is(err, plugins.ErrUnknownRun):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, plugins.ErrConfig):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, plugins.ErrPluginStart):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, plugins.ErrUnparsed):
		return status.Error(codes.OutOfRange, err.Error())
	}
	var se interface{ GRPCStatus() *status.Status }
	if errors.As(err, &se) {
		return se.GRPCStatus().Err()
	}
	return status.Error(codes.Unknown, err.Error())
}

// fromStatus turns a gRPC error into a RemoteError on the host side.
func fromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	re := &RemoteError{Code: st.Code(), Message: st.Message()}
	switch st.Code() {
	case codes.Unimplemented:
		// Also what gRPC answers for a service the plugin does not register,
		// so asking a trainer-only binary for an LLM call lands here too.
		re.wrapped = plugins.ErrUnsupported
	case codes.Canceled:
		re.wrapped = context.Canceled
	case codes.DeadlineExceeded:
		re.wrapped = context.DeadlineExceeded
	case codes.NotFound:
		re.wrapped = plugins.ErrUnknownRun
	case codes.InvalidArgument:
		// Also what the shim answers for a config it cannot decode.
		re.wrapped = plugins.ErrConfig
	case codes.FailedPrecondition:
		re.wrapped = plugins.ErrPluginStart
	case codes.OutOfRange:
		re.wrapped = plugins.ErrUnparsed
	}
	return re
}

func marshalConfig(what string, m map[string]any) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding %s as JSON for the plugin: %w", what, err)
	}
	return b, nil
}

func unmarshalConfig(what string, b []byte) (map[string]any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "decoding %s: %v", what, err)
	}
	return m, nil
}
