package plugins

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestWithKind(t *testing.T) {
	base := fmt.Errorf("tinylm config: steps: %w", fs.ErrInvalid)
	err := WithKind(ErrConfig, base)
	if err.Error() != base.Error() {
		t.Errorf("message %q, want %q", err, base)
	}
	if !errors.Is(err, ErrConfig) || !errors.Is(err, fs.ErrInvalid) || errors.Is(err, ErrUnknownRun) {
		t.Errorf("errors.Is on %v: want ErrConfig and the wrapped error only", err)
	}
	if WithKind(ErrConfig, nil) != nil {
		t.Error("WithKind of nil is not nil")
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{err, true},
		{fmt.Errorf("open: %w", ErrPluginStart), true},
		{WithKind(ErrChecksum, WithKind(ErrPluginStart, errors.New("x"))), true},
		{fmt.Errorf("run r: %w", ErrUnknownRun), false},
		{ErrUnsupported, false},
		{errors.New("disk full"), false},
	} {
		if got := IsPermanent(tc.err); got != tc.want {
			t.Errorf("IsPermanent(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
