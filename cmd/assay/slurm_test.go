package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor/slurm"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
)

// TestSlurmQuickstartArrays runs `assay run` on a quicker copy of
// specs/quickstart-slurm.hcl (testdata/slurm) through the real command
// trainer on the Slurm cluster that `sinfo` reaches, and checks from
// `assay status --json`, the journal and squeue that it finished, that the
// planned 8 real runs ran, and that each phase's runs went out as one job
// array (tasks ID_0, ID_1, ...), none asking for a GPU (the spec's runs are
// CPU work, run_cost.gpus = 0). It skips without a cluster, except under
// CI=true, where .ci/slurm-up.sh starts one.
func TestSlurmQuickstartArrays(t *testing.T) {
	// Finding no cluster takes sinfo several seconds of retries.
	t.Parallel()
	if err := slurm.Available(context.Background()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but no Slurm cluster: %v (.ci/slurm-up.sh starts one)", err)
		}
		t.Skipf("no Slurm cluster: %v (start one with .ci/slurm-up.sh)", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "assay")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	spec := writeSlurmSpec(t, root, tmp)
	runs := filepath.Join(tmp, "runs")
	out := runAssayBin(t, bin, root, "run", "--id", "arrays", "--dir", runs, spec)
	t.Logf("assay run:\n%s", out)

	var st runtime.Status
	if err := json.Unmarshal(runAssayBin(t, bin, root, "status", "--json", "--dir", runs, "arrays"), &st); err != nil {
		t.Fatal(err)
	}
	// 4 seed records + 2 calibration runs + Avg@2/Best@2 on 1 holdout task.
	const wantRuns = 8
	if st.State != runtime.StateFinished || st.RealRuns != wantRuns || st.Finished != wantRuns || st.Failed != 0 {
		t.Fatalf("status: state %s, %d real runs (%d finished, %d failed), want finished with %d finished runs",
			st.State, st.RealRuns, st.Finished, st.Failed, wantRuns)
	}

	j, err := journal.OpenReadOnly(filepath.Join(runs, "arrays", runtime.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	arrays, tasks := journaledArrays(t, j)
	if len(j.Runs()) != wantRuns {
		t.Errorf("the journal holds %d runs, want %d", len(j.Runs()), wantRuns)
	}
	checkArraysPerPhase(t, arrays)
	checkNoGPUAsked(t, arrays)
	checkSqueueLists(t, tasks)
}

// writeSlurmSpec copies testdata/slurm/quickstart-slurm.hcl into tmp and
// returns the copy's path. The spec lies beside its own lock file and
// plugin cache, in a temp dir; the command runs from the repository root,
// so the spec's repo = "." is this checkout.
func writeSlurmSpec(t *testing.T, root, tmp string) string {
	t.Helper()
	specSrc, err := os.ReadFile(filepath.Join("testdata", "slurm", "quickstart-slurm.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	// extends is relative to the testdata file; the copy needs it absolute.
	specSrc = []byte(strings.Replace(string(specSrc), `"../../../../specs/quickstart-slurm.hcl"`,
		strconv.Quote(filepath.Join(root, "specs", "quickstart-slurm.hcl")), 1))
	spec := filepath.Join(tmp, "quickstart-slurm.hcl")
	if err := os.WriteFile(spec, specSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	return spec
}

// runAssayBin runs the built assay binary bin from root and returns its
// output, failing the test if it fails.
func runAssayBin(t *testing.T, bin, root string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("assay %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// journaledArrays checks that every journaled run finished as a Slurm
// array task, and returns "PHASE JOBID" -> the run keys of that array's
// tasks, and every task id.
func journaledArrays(t *testing.T, j *journal.Journal) (map[string][]string, []string) {
	t.Helper()
	arrays := map[string][]string{}
	var tasks []string
	for _, r := range j.Runs() {
		if r.Result == nil || r.Result.Status != plugins.StatusFinished {
			t.Errorf("run %s: %+v, want finished", r.Key, r.Result)
		}
		if r.Handle == nil {
			t.Fatalf("run %s has no journaled handle", r.Key)
		}
		// Handles read slurm:JOBID_TASK@DIR.
		id, _, _ := strings.Cut(strings.TrimPrefix(r.Handle.Handle, "slurm:"), "@")
		base, task, ok := strings.Cut(id, "_")
		if !strings.HasPrefix(r.Handle.Handle, "slurm:") || !ok || task == "" {
			t.Errorf("run %s: handle %q is not a Slurm array task", r.Key, r.Handle.Handle)
			continue
		}
		phase, _, _ := strings.Cut(r.Key, "/")
		arrays[phase+" "+base] = append(arrays[phase+" "+base], r.Key)
		tasks = append(tasks, id)
	}
	return arrays, tasks
}

// checkArraysPerPhase checks one array per phase: seed records (4), the
// calibration round (2), evaluation (2).
func checkArraysPerPhase(t *testing.T, arrays map[string][]string) {
	t.Helper()
	perPhase := map[string]int{}
	for k, keys := range arrays {
		phase, _, _ := strings.Cut(k, " ")
		perPhase[phase]++
		t.Logf("array %s: %v", k, keys)
	}
	for _, phase := range []string{"seed", "calibration", "eval"} {
		if perPhase[phase] != 1 {
			t.Errorf("phase %s went out as %d job arrays, want 1", phase, perPhase[phase])
		}
	}

	calib := 0
	for k, keys := range arrays {
		if strings.HasPrefix(k, "calibration ") {
			calib += len(keys)
		}
	}
	if calib != 2 {
		t.Errorf("%d calibration runs went out as array tasks, want 2", calib)
	}
}

// checkNoGPUAsked checks that no job asks Slurm for a GPU: the spec's
// runs are CPU work (run_cost.gpus = 0).
func checkNoGPUAsked(t *testing.T, arrays map[string][]string) {
	t.Helper()
	for k := range arrays {
		_, base, _ := strings.Cut(k, " ")
		out, err := exec.Command("scontrol", "show", "job", base, "-o").CombinedOutput()
		if err != nil {
			t.Fatalf("scontrol show job %s: %v: %s", base, err, out)
		}
		if strings.Contains(string(out), "gres:gpu") || strings.Contains(string(out), "gres/gpu") {
			t.Errorf("job %s asks for a GPU though run_cost.gpus = 0:\n%s", base, out)
		}
	}
}

// checkSqueueLists checks that Slurm itself lists the calibration runs
// (and every other) as array tasks.
func checkSqueueLists(t *testing.T, tasks []string) {
	t.Helper()
	sq, err := exec.Command("squeue", "-h", "-t", "all", "-o", "%i").Output()
	if err != nil {
		t.Fatalf("squeue: %v", err)
	}
	known := map[string]bool{}
	for _, f := range strings.Fields(string(sq)) {
		known[f] = true
	}
	sort.Strings(tasks)
	for _, id := range tasks {
		if !known[id] {
			t.Errorf("squeue does not list array task %s", id)
		}
	}
}
