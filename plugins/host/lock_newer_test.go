package host

import (
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/version"
)

// A lock written by a newer Assay says so, names that release and tells
// the user to upgrade Assay; it never suggests rewriting the lock as the
// first remedy (that would take it back to an older release).
func TestLockFromNewerAssay(t *testing.T) {
	newer := `{"format_version": 3, "plugins": [{"name": "offline", "kind": "llm", "source": "builtin:offline", "assay_version": "0.10.0"}]}`
	_, err := parseLock([]byte(newer), "q.hcl.lock")
	if err == nil {
		t.Fatal("a lock of a newer format was accepted")
	}
	for _, want := range []string{"q.hcl.lock was written by a newer Assay (0.10.0)", "lock format 3", "upgrade Assay", "assay init -upgrade SPEC"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}

	e := &ReleaseError{Plugin: "offline", Locked: "99.0.0", Actual: version.Release, Path: "/x/q.hcl.lock"}
	for _, want := range []string{"q.hcl.lock was written by a newer Assay (99.0.0) than this one (" + version.Release + ")", "upgrade Assay to 99.0.0 or later", "assay init -upgrade=offline SPEC"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("newer release: %q does not say %q", e.Error(), want)
		}
	}
	if strings.Contains(e.Error(), "run the locked release") {
		t.Errorf("newer release: %q", e.Error())
	}
	old := &ReleaseError{Plugin: "offline", Locked: "0.0.1", Actual: "0.1.0", Path: "q.hcl.lock"}
	if !strings.Contains(old.Error(), "locks it to assay 0.0.1, but this is assay 0.1.0") {
		t.Errorf("older release: %q", old.Error())
	}
}

func TestNewerRelease(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"0.10.0", "0.9.1", true},
		{"0.9.1", "0.10.0", false},
		{"1.0", "1.0.0", false},
		{"1.0.1", "1.0", true},
		{"0.1.0", "0.1.0", false},
		{"v2.0.0", "1.9.9", true},
	} {
		if got := NewerRelease(c.a, c.b); got != c.want {
			t.Errorf("NewerRelease(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
