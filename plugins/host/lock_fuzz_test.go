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
	f.Add([]byte(`{"format_version":2,"plugins":[{"name":"gpt","kind":"llm","source":"builtin:openai","version":"1","assay_version":"0.1.0"}]}`))
	f.Add([]byte(`{"format_version":2,"plugins":[{"name":"t","kind":"trainer","source":"./t","checksums":{"linux/amd64":"` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `"}}]}`))
	f.Add([]byte(`{"format_version":2,"plugins":[]}`))
	f.Add([]byte(`{"format_version":1}`))
	f.Add([]byte(`{"format_version":2,"plugins":[{"name":"a","source":"x","checksums":{"a":"1"}},{"name":"a","source":"y","assay_version":"2"}]}`))
	f.Add([]byte(`{"format_version":2,"plugins":[],"prompts":[{"use":"role critic system","file":"p.txt","sha256":"` + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" + `"},{"use":"","file":"q","sha256":"zz"}]}`))
	f.Add([]byte(`[`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, testLock)
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
