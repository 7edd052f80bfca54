package lsp

import (
	"errors"
	"io"
	"reflect"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// Every error that reaches jsonrpc2's connection has one concrete type: a
// handler's error after a stream's (or the other way round) would
// otherwise panic in the connection's atomic.Value.
func TestConnErrorsShareOneType(t *testing.T) {
	want := reflect.TypeOf(connError("reading a frame", io.EOF))
	for _, err := range []error{io.EOF, errors.New("plain"), jsonrpc2.NewError(jsonrpc2.InternalError, "x"), connError("nested", io.EOF)} {
		if got := reflect.TypeOf(connError("handling x", err)); got != want {
			t.Errorf("connError(%T) is %v, the stream's errors %v", err, got, want)
		}
		if !errors.Is(connError("handling x", err), err) {
			t.Errorf("connError(%v) lost the error it wraps", err)
		}
	}
	if connError("x", nil) != nil {
		t.Error("connError(nil) is not nil")
	}
}
