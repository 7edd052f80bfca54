package contract

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/base/textdiff"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins"
	command "github.com/assay-lang/assay/plugins/builtin/command/trainer"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime"
)

// crashLine, appended to train.go, makes the example suite's program
// panic when it runs: it builds and passes go vet, and fails at run time.
const crashLine = "\nfunc init() { panic(\"injected: the change crashes at start\") }\n"

// crashingBuilder is the offline LLM, but for its builder calls: it
// writes each candidate's patch of train.go itself, a learning-rate
// change, and in the order first builds arrive it makes candidates of
// four kinds: one that runs, one whose run crashes until its first
// repair, one until its second, and one that crashes whatever its repairs
// do (repairs = 2 in the suite's source).
type crashingBuilder struct {
	offline.Model
	mu    sync.Mutex
	kinds map[string]int
}

func (b *crashingBuilder) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	if req.Role != plugins.RoleImplement && req.Role != plugins.RoleBuild {
		return b.Model.Complete(ctx, req)
	}
	var in payload.ImplementRequest
	if err := payload.Decode(req.Payload, &in); err != nil {
		return nil, err
	}
	b.mu.Lock()
	id := in.Proposal.ID + "\x00" + in.Proposal.Text
	kind, ok := b.kinds[id]
	if !ok {
		kind = len(b.kinds) % 4
		b.kinds[id] = kind
	}
	b.mu.Unlock()
	var old string
	for _, f := range in.Source.Files {
		if f.Path == "train.go" {
			old = f.Content
		}
	}
	// Each attempt sets its own rate, so every patch changes the file.
	rate := []string{"0.1", "0.05", "0.2"}[in.Repair%3]
	text := strings.Replace(old, strings.SplitN(old[strings.Index(old, "defaultLR"):], "\n", 2)[0], "defaultLR        = "+rate, 1)
	crash := kind > 0 && in.Repair < kind
	if kind == 3 {
		crash = true
	}
	text = strings.Replace(text, crashLine, "", 1)
	if crash {
		text += crashLine
	}
	patch := textdiff.Unified("a/train.go", "b/train.go", old, text)
	out, err := payload.Encode(payload.ImplementResponse{Proposal: in.Proposal, Patch: patch})
	if err != nil {
		return nil, err
	}
	return &plugins.CompleteResponse{Text: patch, Payload: out, Usage: plugins.Usage{In: 2500, Out: 200}}, nil
}

// TestRunRepairsStayWithinTheEstimate runs the code twin of OpenEvolve on
// the example suite (one island, more real runs allowed) with candidates
// whose programs crash at run time (crashingBuilder): each crash goes
// back to the builder with the panic's stderr, up to the source's two
// repairs, each repair a new commit run again. The run finishes, every
// count lies inside the estimate, and status shows each candidate's
// attempts, the last its commit.
func TestRunRepairsStayWithinTheEstimate(t *testing.T) {
	for _, tool := range []string{"go", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	t.Parallel()
	path := filepath.Join(specsDir(t), "laptop", "code", "repairs-contract.hcl")
	spec := "extends = \"openevolve.hcl\"\nloop \"evolve\" {\n  islands = 1\n}\nbudget {\n  real_runs = 40\n}\n"
	s, _, ds := load.Load(path, load.Options{Overlay: map[string][]byte{path: []byte(spec)}})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p, ds := compiler.Compile(s, compiler.Options{CheckRepository: gitrepo.Check, CheckImport: func(dir string, ex []string, over string) error {
		return gitrepo.CheckImport(gitrepo.ImportSource{Dir: dir, Exclude: ex, Overlay: over})
	}})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	b := &crashingBuilder{kinds: map[string]int{}}
	l := runtime.LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (runtime.Instance, error) {
		switch pl.Source {
		case "builtin:offline":
			return inst{l: b}, nil
		case "builtin:command":
			return inst{t: command.New(command.Options{})}, nil
		}
		return nil, fmt.Errorf("plugin %s: source %s does not run in this test", pl.Name, pl.Source)
	})
	res, dir := checkRunWith(t, p, 0, l)
	st, err := runtime.ReadStatus(dir, "c")
	if err != nil {
		t.Fatal(err)
	}
	ml := res.Totals.Measured.Loops["evolve"]
	t.Logf("real runs %d: %d finished, %d errored, %d infeasible; %d runs repaired, %d builder repairs; %d candidates",
		st.RealRuns, st.Finished, st.Errored, st.Infeasible, ml.RunRepairs, ml.Repairs, len(st.Candidates))
	if st.Errored == 0 || ml.RunRepairs == 0 || st.Finished == 0 {
		t.Fatalf("%d errored runs, %d repaired: want crashes, repaired", st.Errored, ml.RunRepairs)
	}
	repaired := 0
	for _, c := range st.Candidates {
		if len(c.Attempts) == 0 {
			continue
		}
		last := c.Attempts[len(c.Attempts)-1]
		if last.Commit != c.Commit || c.Attempts[0].Status != plugins.StatusError {
			t.Errorf("candidate %s: commit %s, attempts %+v", c.Key, c.Commit, c.Attempts)
		}
		if last.Status == plugins.StatusFinished && c.Gain != nil {
			repaired++
		}
		if got := strings.TrimSpace(git(t, c.Repo, "rev-parse", c.Ref)); got != c.Commit {
			t.Errorf("candidate %s: ref %s at %s, want its last commit %s", c.Key, c.Ref, got, c.Commit)
		}
	}
	if repaired == 0 {
		t.Errorf("no candidate was repaired to a measured run: %+v", st.Candidates)
	}
}
