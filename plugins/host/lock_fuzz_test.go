package host

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzParseLock: any bytes give a lock or an error, never a panic, and a
// lock that parses survives Write and a second parse unchanged.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte(`{"format_version":1,"plugins":[{"name":"gpt","kind":"llm","source":"builtin:openai","version":"1","path":".assay/plugins/openai","sha256":"00"}]}`))
	f.Add([]byte(`{"format_version":1,"plugins":[]}`))
	f.Add([]byte(`{"format_version":2}`))
	f.Add([]byte(`{"format_version":1,"plugins":[{"name":"a","path":"x","sha256":"1"},{"name":"a","path":"y","sha256":"2"}]}`))
	f.Add([]byte(`[`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, LockFileName)
		l, err := parseLock(b, path)
		if err != nil {
			return
		}
		if err := l.Write(path); err != nil {
			t.Fatal(err)
		}
		again, err := ReadLock(path)
		if err != nil {
			t.Fatalf("a written lock does not read back: %v", err)
		}
		if diff := cmp.Diff(l, again, cmp.AllowUnexported(Lock{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("lock changed through Write (-before +after):\n%s", diff)
		}
	})
}
