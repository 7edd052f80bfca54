package redact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	const key = "my-Secret-Key-42"
	tests := []struct{ in, want string }{
		{"nothing secret here", "nothing secret here"},
		{"the key " + key + " leaked", "the key [REDACTED] leaked"},
		{"twice: " + key + key, "twice: [REDACTED][REDACTED]"},
		{"Authorization: Bearer abc.def-ghi", "Authorization: [REDACTED]"},
		{`{"authorization":"Bearer abc"}`, `{"authorization":"[REDACTED]"}`},
		{"authorization=Basic dXNlcjpwYXNz, next", "authorization=[REDACTED], next"},
		{"Proxy-Authorization: Basic xyz", "Proxy-Authorization: [REDACTED]"},
		{"sent bearer tok_123/+= then", "sent Bearer [REDACTED] then"},
		{"Incorrect API key provided: sk-proj-AbC123xyz_-789. See docs", "Incorrect API key provided: [REDACTED]. See docs"},
		{"sk-short", "sk-short"}, // too short to be a key: a word like sk-learn stays
		{`{"api_key": "k-9876543"}`, `{"api_key": "[REDACTED]"}`},
		{"x-api-key: abcdef", "x-api-key: [REDACTED]"},
		{"http://user:pa55word@host:8000/v1 failed", "http://user:[REDACTED]@host:8000/v1 failed"},
	}
	for _, tt := range tests {
		if got := String(tt.in, key); got != tt.want {
			t.Errorf("String(%q) =\n  %q\nwant\n  %q", tt.in, got, tt.want)
		}
	}
}

func TestShortSecretsAreNotMatched(t *testing.T) {
	// A one-letter "secret" would blank every such letter; such a value is
	// no secret, and the patterns still catch real keys.
	if got := String("a cat", "a"); got != "a cat" {
		t.Errorf("String with a 1-char secret = %q", got)
	}
}

func TestError(t *testing.T) {
	const key = "sk-live-0123456789abcdef"
	base := fmt.Errorf("server said %s: %w", key, context.DeadlineExceeded)
	err := Error(base, key)
	if strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "server said [REDACTED]") {
		t.Errorf("Error() = %q", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Error("the redacted error lost its chain for errors.Is")
	}
	if u := errors.Unwrap(err); u != nil {
		t.Errorf("Unwrap exposes the unredacted error: %v", u)
	}
	if Error(nil, key) != nil {
		t.Error("Error(nil) is not nil")
	}
}
