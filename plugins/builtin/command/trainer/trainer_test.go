package trainer

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins"
)

func newTrainer() *Trainer {
	return New(Options{SlurmPoll: 200 * time.Millisecond, LocalPoll: 50 * time.Millisecond, KillGrace: time.Second})
}

func request(t *testing.T, id string, cfg map[string]any, edits map[string]string) *plugins.RunRequest {
	t.Helper()
	return &plugins.RunRequest{
		RunID: id, Env: "toy", Task: "t1", Seed: 7,
		Proposal: plugins.Proposal{Edits: edits},
		Config:   cfg,
		Executor: plugins.ExecutorSpec{Kind: "local", Concurrency: 2},
		WorkDir:  filepath.Join(t.TempDir(), id),
	}
}

func run(t *testing.T, tr *Trainer, req *plugins.RunRequest) *plugins.RunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	h, err := tr.Start(ctx, req)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	r, err := tr.Wait(ctx, h)
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	return r
}

func TestLocalOutcomes(t *testing.T) {
	jsonMetric := map[string]any{"metric_file": "metrics.json", "metric_field": "eval.loss"}
	with := func(base map[string]any, kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name   string
		cfg    map[string]any
		edits  map[string]string
		status string
		metric float64
		reason string
	}{
		{"json metric from an edit", with(jsonMetric, "command", `printf '{"eval": {"loss": %s}}' {{lr}} > metrics.json`),
			map[string]string{"lr": "0.25"}, plugins.StatusFinished, 0.25, ""},
		{"json list path", with(map[string]any{"metric_file": "{{workdir}}/m.json", "metric_field": "hist[1].v"}, "command", `echo '{"hist": [{"v": 1}, {"v": "2.5"}]}' > m.json`),
			nil, plugins.StatusFinished, 2.5, ""},
		{"regex takes the last match", map[string]any{"command": "echo val=3.5; echo val=1.25", "metric_regex": `val=([0-9.]+)`},
			nil, plugins.StatusFinished, 1.25, ""},
		{"named group", map[string]any{"command": "echo 'step 9 loss 4 bpb 0.75'", "metric_regex": `loss (\d+) bpb (?P<metric>[0-9.]+)`},
			nil, plugins.StatusFinished, 0.75, ""},
		{"built-in placeholders", map[string]any{"command": "echo {{task}}-{{env}}-{{seed}}-{{gpus}}-{{.run_id}} ; echo m=1", "metric_regex": `t1-toy-7-0-(?:r)-?\S*\s+m=(\d)`},
			nil, plugins.StatusFinished, 1, ""},
		{"infeasible exit code", map[string]any{"command": "exit 3", "metric_regex": "x(1)", "infeasible_exit_codes": []any{float64(3)}},
			nil, plugins.StatusInfeasible, 0, "exit code 3 (infeasible_exit_codes)"},
		{"other exit code is an error", map[string]any{"command": "echo boom >&2; exit 4", "metric_regex": "x(1)", "infeasible_exit_codes": []any{3}},
			nil, plugins.StatusError, 0, "exit code 4; stderr ends: boom"},
		{"infeasible pattern", map[string]any{"command": "echo 'RuntimeError: CUDA out of memory' >&2; exit 1", "metric_regex": "x(1)", "infeasible_patterns": []any{"out of memory"}},
			nil, plugins.StatusInfeasible, 0, `infeasible pattern "out of memory"`},
		{"missing metric file", with(jsonMetric, "command", "true"),
			nil, plugins.StatusError, 0, "no metric: metric file"},
		{"missing metric field", with(jsonMetric, "command", `echo '{"eval": {}}' > metrics.json`),
			nil, plugins.StatusError, 0, `no field "loss"`},
		{"regex matches nothing", map[string]any{"command": "echo hello", "metric_regex": `loss=([0-9.]+)`},
			nil, plugins.StatusError, 0, "matched nothing in stdout"},
		{"timeout fails", map[string]any{"command": "sleep 30", "metric_regex": "x(1)", "time_limit": "1s"},
			nil, plugins.StatusFailed, 0, "time limit of 1s exceeded"},
		{"timeout infeasible", map[string]any{"command": "sleep 30", "metric_regex": "x(1)", "time_limit": float64(1), "timeout_infeasible": true},
			nil, plugins.StatusInfeasible, 0, "time limit of 1s exceeded (timeout_infeasible)"},
		{"edits are typed", map[string]any{"command": "echo v={{x}}", "metric_regex": `v=(.*)`},
			map[string]string{"x": "1; echo v=2"}, plugins.StatusInfeasible, 0, `the proposal sets x to "1; echo v=2" is not a plain word`},
	}
	tr := newTrainer()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, tr, request(t, "r"+string(rune('a'+i)), c.cfg, c.edits))
			if r.Status != c.status || r.Metric != c.metric || !strings.Contains(r.Reason, c.reason) {
				t.Fatalf("got %s %v %q, want %s %v containing %q\n%s", r.Status, r.Metric, r.Reason, c.status, c.metric, c.reason, r.Logs)
			}
		})
	}
}

// The run directory holds everything to re-run a result by hand.
func TestRunDirectoryRerunsByHand(t *testing.T) {
	cfg := map[string]any{
		"command":      `python3 -c 'import json,sys; print("loss", json.load(open(sys.argv[1]))["lr"] * 2)' {{config}}`,
		"metric_regex": `loss ([0-9.]+)`,
	}
	if _, err := exec.LookPath("python3"); err != nil {
		cfg["command"] = `echo loss $(sed -n 's/.*"lr": \([0-9.]*\).*/\1/p' {{config}})`
	}
	req := request(t, "byhand", cfg, map[string]string{"lr": "0.5"})
	r := run(t, newTrainer(), req)
	if r.Status != plugins.StatusFinished {
		t.Fatalf("%+v", r)
	}
	for _, f := range []string{RecordFile, ResultFile, ScriptFile, "overrides.json", StdoutFile, StderrFile} {
		if _, err := os.Stat(filepath.Join(req.WorkDir, f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	out, err := exec.Command("bash", filepath.Join(req.WorkDir, ScriptFile)).Output()
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := os.ReadFile(filepath.Join(req.WorkDir, StdoutFile))
	if string(out) != string(stdout) {
		t.Fatalf("bash run.sh printed %q, the run printed %q", out, stdout)
	}
}

func TestOverridesFormats(t *testing.T) {
	edits := map[string]string{"lr": "3e-4", "opt": "adam", "warm": "true"}
	for _, c := range []struct{ file, want string }{
		{"o.json", "{\n  \"lr\": 0.0003,\n  \"opt\": \"adam\",\n  \"warm\": true\n}\n"},
		{"o.yaml", "\"lr\": 0.0003\n\"opt\": \"adam\"\n\"warm\": true\n"},
		{"o.env", "lr=3e-4\nopt=adam\nwarm=true\n"},
	} {
		req := request(t, "ov", map[string]any{"command": "echo m=1", "metric_regex": "m=(1)", "overrides_file": c.file}, edits)
		run(t, newTrainer(), req)
		b, err := os.ReadFile(filepath.Join(req.WorkDir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.file, b, c.want)
		}
	}
}

func TestKnobs(t *testing.T) {
	cfg := map[string]any{
		"command": "echo m={{lr}}", "metric_regex": "m=([0-9.]+)",
		"knobs": map[string]any{"lr": map[string]any{"default": "0.5", "mechanism": "optimizer", "values": []any{"0.5", "0.25"}}},
	}
	tr := newTrainer()
	d, err := tr.Describe(context.Background(), &plugins.DescribeRequest{Config: cfg})
	if err != nil || len(d.Knobs) != 1 || d.Knobs[0].Mechanism != "optimizer" {
		t.Fatalf("describe: %+v %v", d, err)
	}
	if r := run(t, tr, request(t, "k1", cfg, nil)); r.Metric != 0.5 {
		t.Errorf("default: %+v", r)
	}
	if r := run(t, tr, request(t, "k2", cfg, map[string]string{"lr": "0.25"})); r.Metric != 0.25 {
		t.Errorf("edit: %+v", r)
	}
	if r := run(t, tr, request(t, "k3", cfg, map[string]string{"lr": "9"})); r.Status != plugins.StatusInfeasible || !strings.Contains(r.Reason, `the proposal sets lr to "9" is not one of 0.5, 0.25`) {
		t.Errorf("off-list value: %+v", r)
	}
	if r := run(t, tr, request(t, "k4", cfg, map[string]string{"momentum": "9"})); r.Status != plugins.StatusInfeasible || !strings.Contains(r.Reason, `"momentum"`) {
		t.Errorf("unknown knob: %+v", r)
	}
}

func TestConfigErrorsNameTheField(t *testing.T) {
	for _, c := range []struct {
		cfg  map[string]any
		want string
	}{
		{map[string]any{"metric_regex": "x(1)"}, "config.command: missing"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "comand": "y"}, "config.comand: unknown setting; known: apply, command,"},
		{map[string]any{"command": "x"}, "config.metric_file: missing"},
		{map[string]any{"command": "x", "metric_file": "m.json"}, "config.metric_field: missing"},
		{map[string]any{"command": "x", "metric_regex": "x"}, "config.metric_regex: \"x\" has no capture group"},
		{map[string]any{"command": "x", "metric_regex": "("}, "config.metric_regex: \"(\" is not a regular expression: error parsing regexp"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "metric_file": "m"}, "config.metric_regex: set together with metric_file"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "apply": "merge"}, "config.apply: \"merge\" is not one of \"overrides\", \"patch\""},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "apply": "patch"}, "config.repo: missing; apply = \"patch\" needs it"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "apply": "patch", "repo": "."}, "config.revision: missing; apply = \"patch\" needs it"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "time_limit": "soon"}, "config.time_limit: \"soon\" is not a duration"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "infeasible_exit_codes": []any{"three"}}, "config.infeasible_exit_codes[0]: want a number"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "infeasible_patterns": []any{"("}}, "config.infeasible_patterns[0]: \"(\" is not a regular expression"},
		{map[string]any{"command": "x {{", "metric_regex": "x(1)"}, "config.command:"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "overrides_format": "toml"}, "config.overrides_format"},
		{map[string]any{"command": "x", "metric_regex": "x(1)", "knobs": map[string]any{"lr": map[string]any{"dflt": 1}}}, "config.knobs.lr.dflt: unknown setting; known: default, max, mechanism, min, pattern, type, values"},
	} {
		_, err := ParseConfig(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v:\n got %v\nwant %q", c.cfg, err, c.want)
		}
	}
	// A placeholder no one defines fails Start, naming the field.
	_, err := newTrainer().Start(context.Background(), request(t, "ph", map[string]any{"command": "train --lr {{lr}}", "metric_regex": "x(1)"}, nil))
	if err == nil || !strings.Contains(err.Error(), "config.command: unknown placeholder {{lr}}") {
		t.Fatalf("got %v", err)
	}
}

// Starting the same RunID twice runs it once.
func TestStartIsIdempotent(t *testing.T) {
	tr := newTrainer()
	req := request(t, "once", map[string]any{"command": "echo x >> {{workdir}}/../count; echo m=1", "metric_regex": "m=(1)"}, nil)
	ctx := context.Background()
	h1, err := tr.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := newTrainer().Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if h1.Handle != h2.Handle {
		t.Fatalf("handles differ: %s, %s", h1.Handle, h2.Handle)
	}
	if _, err := tr.Wait(ctx, h1); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(req.WorkDir, "..", "count"))
	if n := strings.Count(string(b), "x"); n != 1 {
		t.Fatalf("ran %d times", n)
	}
}

func TestLocalCancel(t *testing.T) {
	tr := newTrainer()
	req := request(t, "cancel", map[string]any{"command": "sleep 60", "metric_regex": "m=(1)"}, nil)
	ctx := context.Background()
	h, err := tr.Start(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := tr.Cancel(ctx, h); err != nil {
		t.Fatal(err)
	}
	r, err := tr.Wait(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusCancelled {
		t.Fatalf("got %+v", r)
	}
}

// A fresh trainer (a restarted plugin) re-attaches to a local run by handle.
func TestLocalReattach(t *testing.T) {
	req := request(t, "re", map[string]any{"command": "sleep 0.5; echo m=4", "metric_regex": "m=(4)"}, nil)
	h, err := newTrainer().Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newTrainer().Wait(context.Background(), h)
	if err != nil || r.Status != plugins.StatusFinished || r.Metric != 4 {
		t.Fatalf("%+v %v", r, err)
	}
}

// A handle whose run directory is gone, or that is not a handle at all, is
// plugins.ErrUnknownRun: nothing of the run is known, so the runtime starts
// it again instead of recording a failure.
func TestWaitUnknownRun(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	for _, h := range []*plugins.RunHandle{
		{RunID: "r", Handle: "local:123@" + gone},
		{RunID: "r", Handle: "nonsense"},
	} {
		r, err := newTrainer().Wait(context.Background(), h)
		if !errors.Is(err, plugins.ErrUnknownRun) || r != nil {
			t.Errorf("Wait(%q) = %+v, %v; want ErrUnknownRun", h.Handle, r, err)
		}
	}
}

func TestLocalGPUs(t *testing.T) {
	req := request(t, "gpu", map[string]any{"command": "echo gpus={{gpus}} cuda=$CUDA_VISIBLE_DEVICES", "metric_regex": "(?m)gpus=(\\d+) cuda=0,1$"}, nil)
	req.GPUs = 2
	req.Executor.GPUs = 4
	if r := run(t, newTrainer(), req); r.Status != plugins.StatusFinished || r.Metric != 2 {
		t.Fatalf("%+v\n%s", r, r.Logs)
	}
}

func gitRepo(t *testing.T) (dir, sha string) {
	t.Helper()
	dir = t.TempDir()
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "root"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "train.sh"), []byte("echo loss=0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "train.sh"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "train"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	out, _ := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	return dir, strings.TrimSpace(string(out))
}

func TestPatchAtPinnedRevision(t *testing.T) {
	repo, sha := gitRepo(t)
	cfg := map[string]any{"command": "bash train.sh", "metric_regex": `loss=([0-9.]+)`, "apply": "patch", "repo": repo, "revision": sha}
	good := "--- a/train.sh\n+++ b/train.sh\n@@ -1 +1 @@\n-echo loss=0.9\n+echo loss=0.7\n"
	bad := "--- a/train.sh\n+++ b/train.sh\n@@ -1 +1 @@\n-echo loss=0.8\n+echo loss=0.1\n"
	tr := newTrainer()
	req := request(t, "p1", cfg, nil)
	req.Proposal.Patch = good
	if r := run(t, tr, req); r.Status != plugins.StatusFinished || r.Metric != 0.7 {
		t.Fatalf("good patch: %+v", r)
	}
	script, _ := os.ReadFile(filepath.Join(req.WorkDir, ScriptFile))
	if !strings.Contains(string(script), sha) {
		t.Errorf("run.sh does not name the revision:\n%s", script)
	}
	req = request(t, "p2", cfg, nil)
	if r := run(t, tr, req); r.Status != plugins.StatusFinished || r.Metric != 0.9 {
		t.Fatalf("no patch: %+v", r)
	}
	req = request(t, "p3", cfg, nil)
	req.Proposal.Patch = bad
	if r := run(t, tr, req); r.Status != plugins.StatusInfeasible || !strings.Contains(r.Reason, "does not apply") {
		t.Fatalf("bad patch: %+v", r)
	}
	cfg["revision"] = "no-such-branch"
	if _, err := tr.Start(context.Background(), request(t, "p4", cfg, nil)); err == nil || !strings.Contains(err.Error(), "config.revision") {
		t.Fatalf("bad revision: %v", err)
	}
}

// In source mode the run checks out the commit the request names (here
// one only a ref under refs/assay/ holds) and runs there; config.repo and
// the proposal's patch play no part.
func TestSourceCheckoutRunsTheCommit(t *testing.T) {
	repo, base := gitRepo(t)
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %s", args, out)
		}
		return strings.TrimSpace(string(out))
	}
	if err := os.WriteFile(filepath.Join(repo, "train.sh"), []byte("echo loss=0.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "candidate")
	cand := git("rev-parse", "HEAD")
	git("update-ref", "refs/assay/r/c1", cand)
	git("reset", "-q", "--hard", base)
	cfg := map[string]any{"command": "bash train.sh", "metric_regex": `loss=([0-9.]+)`}
	tr := newTrainer()
	for _, c := range []struct {
		commit string
		want   float64
	}{{cand, 0.4}, {base, 0.9}} {
		req := request(t, "s-"+c.commit[:8], cfg, nil)
		req.Proposal.Patch = "not a patch"
		req.Source = &plugins.Checkout{Repository: repo, Commit: c.commit}
		if r := run(t, tr, req); r.Status != plugins.StatusFinished || r.Metric != c.want {
			t.Fatalf("commit %s: %+v, want metric %g", c.commit, r, c.want)
		}
	}
	// Nothing but the commit reaches the program: the idea's edits are
	// not written, there is no overrides file and no ASSAY_CONFIG.
	req := request(t, "s-edits", cfg, map[string]string{"lr": "0.3"})
	req.Source = &plugins.Checkout{Repository: repo, Commit: cand}
	if r := run(t, tr, req); r.Status != plugins.StatusFinished || r.Metric != 0.4 {
		t.Fatalf("source run with edits: %+v, want metric 0.4", r)
	}
	if _, err := os.Stat(filepath.Join(req.WorkDir, "overrides.json")); err == nil {
		t.Error("a source-mode run wrote an overrides file")
	}
	if script, _ := os.ReadFile(filepath.Join(req.WorkDir, ScriptFile)); strings.Contains(string(script), "ASSAY_CONFIG") || strings.Contains(string(script), "0.3") {
		t.Errorf("run.sh of a source-mode run carries an overrides file or an edit:\n%s", script)
	}
	// What would put more than the commit into the run is refused as the
	// config's fault: knobs, a placeholder of a proposal's content, knob
	// mode's settings.
	for name, bad := range map[string]func(map[string]any){
		"knobs":    func(c map[string]any) { c["knobs"] = map[string]any{"lr": map[string]any{"default": 0.1}} },
		"config":   func(c map[string]any) { c["command"] = "bash train.sh --config {{config}}" },
		"edit":     func(c map[string]any) { c["command"] = `bash train.sh --lr {{index .edits "lr"}}` },
		"override": func(c map[string]any) { c["overrides_file"] = "o.env" },
		"env":      func(c map[string]any) { c["env"] = map[string]any{"ASSAY_CONFIG": "/tmp/o.json"} },
	} {
		c := map[string]any{"command": "bash train.sh", "metric_regex": `loss=([0-9.]+)`}
		bad(c)
		req := request(t, "s-bad-"+name, c, nil)
		req.Source = &plugins.Checkout{Repository: repo, Commit: cand}
		if _, err := tr.Start(context.Background(), req); !errors.Is(err, plugins.ErrInvalidConfig) || !strings.Contains(err.Error(), "source mode") {
			t.Errorf("%s: %v, want a config error about source mode", name, err)
		}
	}
	// A suite task's evaluation command runs in the checkout too; a
	// task_dir outside it (the scaffold's own directory) is refused.
	cfg["task_command"] = []any{"bash", "train.sh"}
	req = request(t, "s-task", cfg, nil)
	req.Source = &plugins.Checkout{Repository: repo, Commit: cand}
	if r := run(t, tr, req); r.Status != plugins.StatusFinished || r.Metric != 0.4 {
		t.Fatalf("task command in the checkout: %+v, want metric 0.4", r)
	}
	cfg["task_dir"] = repo
	req = request(t, "s-dir", cfg, nil)
	req.Source = &plugins.Checkout{Repository: repo, Commit: cand}
	if _, err := tr.Start(context.Background(), req); err == nil || !strings.Contains(err.Error(), "task_dir") {
		t.Fatalf("task_dir outside the checkout: %v", err)
	}
}
