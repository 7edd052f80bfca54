package contract

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/runtime"
)

// sharedRoot holds the runs that more than one test reads; TestMain
// removes it.
var sharedRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "contract-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sharedRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sharedRun is one uninterrupted run of a spec's variant, made once for
// the tests that check it and the resume tests that compare with it.
type sharedRun struct {
	once sync.Once
	p    *plan.Plan
	vi   int
	res  *runtime.Result
	dir  string
	err  error
}

var (
	sharedMu   sync.Mutex
	sharedRuns = map[string]*sharedRun{}
)

// runShared returns run "c" of the spec at path (the plan, the index of
// its variant named variant, or of its first if variant is "", the result
// and the run's folder), made the first time a test asks for it. A run
// that does not finish fails every test that asks. Each test gets a plan
// of its own, compiled again to the run's plan hash, so tests that run it
// again in parallel share no plan.
func runShared(t *testing.T, path, variant string) (*plan.Plan, int, *runtime.Result, string) {
	t.Helper()
	key := path + "\x00" + variant
	sharedMu.Lock()
	r, ok := sharedRuns[key]
	if !ok {
		r = &sharedRun{}
		sharedRuns[key] = r
	}
	sharedMu.Unlock()
	r.once.Do(func() { r.run(t, path, variant) })
	if r.err != nil {
		t.Fatalf("%s, variant %q: %v", path, variant, r.err)
	}
	p, ds := compile(t, path)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	if p.Hash != r.p.Hash {
		t.Fatalf("%s compiles to plan %s, the shared run's is %s", path, p.Hash, r.p.Hash)
	}
	return p, r.vi, r.res, r.dir
}

func (r *sharedRun) run(t *testing.T, path, variant string) {
	// Should compile stop the test that runs this, the others fail too.
	r.err = fmt.Errorf("the test that made the run stopped first")
	p, ds := compile(t, path)
	if ds.HasErrors() {
		r.err = fmt.Errorf("does not compile: %v", ds)
		return
	}
	r.p, r.vi = p, -1
	for i, v := range p.Variants {
		if variant == "" && i == 0 || v.Name == variant {
			r.vi = i
			break
		}
	}
	if r.vi < 0 {
		r.err = fmt.Errorf("no such variant among %d", len(p.Variants))
		return
	}
	if r.dir, r.err = os.MkdirTemp(sharedRoot, filepath.Base(path)+"-"); r.err != nil {
		return
	}
	r.res, r.err = runtime.Run(context.Background(), p, runtime.Options{ID: "c", Dir: r.dir, Plugins: loader(), Variant: p.Variants[r.vi].Name})
	if r.err == nil && r.res.State != runtime.StateFinished {
		r.err = fmt.Errorf("state %s (%s)", r.res.State, r.res.Reason)
	}
}
