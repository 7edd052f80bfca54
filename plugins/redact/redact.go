package redact

import (
	"errors"
	"regexp"
	"strings"
)

// Mark replaces every credential.
const Mark = "[REDACTED]"

// minSecret is the shortest secret value replaced wherever it appears: a
// shorter one would blank ordinary letters, and no real key is that short.
const minSecret = 4

var patterns = []struct {
	re   *regexp.Regexp
	with string
}{
	// Authorization and Proxy-Authorization, as a header or a JSON field,
	// with any scheme.
	{regexp.MustCompile(`(?i)((?:proxy-)?authorization"?\s*[:=]\s*"?)(?:(?:bearer|basic|token|digest)\s+)?[^\s",;]+`), "${1}" + Mark},
	// API-key headers and fields: x-api-key, api_key, api-key, apikey.
	{regexp.MustCompile(`(?i)((?:x-)?api[_-]?key"?\s*[:=]\s*"?)[^\s",;}]+`), "${1}" + Mark},
	// A bearer token anywhere else.
	{regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+`), "Bearer " + Mark},
	// Keys in the common "sk-..." shape.
	{regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{10,}`), Mark},
	// The password of a URL's user info.
	{regexp.MustCompile(`(://[^/\s:@]+:)[^@\s/]+@`), "${1}" + Mark + "@"},
}

// String returns s with every secret value and every credential-shaped
// substring replaced by Mark.
func String(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= minSecret {
			s = strings.ReplaceAll(s, sec, Mark)
		}
	}
	for _, p := range patterns {
		s = p.re.ReplaceAllString(s, p.with)
	}
	return s
}

// Error returns err with its message redacted by String; nil for nil.
// errors.Is on the result consults err's chain, but nothing unwraps to the
// unredacted message.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	return &redacted{msg: String(err.Error(), secrets...), orig: err}
}

type redacted struct {
	msg  string
	orig error
}

func (e *redacted) Error() string { return e.msg }

// Is lets errors.Is see through to the original chain (context.Canceled,
// a plugin's config error) without an Unwrap that would expose the text.
func (e *redacted) Is(target error) bool { return errors.Is(e.orig, target) }
