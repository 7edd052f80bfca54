package contract

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/assay-lang/assay/base/gitrepo"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime"
)

// configReader is a research program that reads $ASSAY_CONFIG over its
// constants, as many do (examples/suite does): KEY=VALUE lines of the
// file it names, when it names one, set its settings.
const configReader = `# The program's settings; a file named by $ASSAY_CONFIG overrides them.
rate=0.5
width=8
if [ -n "${ASSAY_CONFIG:-}" ] && [ -f "$ASSAY_CONFIG" ]; then . "$ASSAY_CONFIG"; fi
awk -v r="$rate" -v w="$width" 'BEGIN { printf "loss=%.6f\n", (r - 0.1) * (r - 0.1) + 1 / w }'
`

// jsonProgram reads its settings from config.json, its edit surface, and
// $ASSAY_CONFIG's file (KEY=VALUE lines) over them.
var jsonProgram = map[string]string{
	"config.json": "{\n  \"rate\": 0.5,\n  \"width\": 8\n}\n",
	"train.sh": `rate=$(sed -n 's/.*"rate": *\([-0-9.eE+]*\).*/\1/p' config.json)
width=$(sed -n 's/.*"width": *\([-0-9.eE+]*\).*/\1/p' config.json)
if [ -n "${ASSAY_CONFIG:-}" ] && [ -f "$ASSAY_CONFIG" ]; then . "$ASSAY_CONFIG"; fi
awk -v r="$rate" -v w="$width" 'BEGIN { printf "loss=%.6f\n", (r - 0.1) * (r - 0.1) + 1 / w }'
`,
}

// measuredSpec runs an evolution loop on that program in source mode: the
// offline proposer's ideas name a setting of train.sh and its value, the
// offline builder's patch sets it, and the command trainer runs each
// candidate's commit.
const measuredSpec = `name = "measured"
seed = 3

plugin "cmd" {
  kind   = "trainer"
  source = "builtin:command"
  config = {
    command      = "sh train.sh"
    metric_regex = "loss=([0-9.]+)"
  }
}

plugin "offline" {
  kind   = "llm"
  source = "builtin:offline"
}

environment "e" {
  trainer  = plugin.cmd
  scale    = 0.2
  baseline = 0.285
  metric {
    name      = "loss"
    direction = "minimize"
  }
  run_cost {
    gpus  = 0
    hours = { low = 0.00001, expected = 0.0001, high = 0.01 }
  }
  tasks {
    train   = 1
    holdout = 0
  }
  source {
    repository = "seed"
    editable   = ["EDITABLE"]
    build      = ["sh", "-n", "train.sh"]
  }
}

role "proposer" {
  llm         = plugin.offline
  temperature = 1.0
  concurrency = 2
  seconds     = 0.001
  tokens {
    in  = 500
    out = 100
  }
  price {
    in  = 0
    out = 0
  }
}

role "implementer" {
  llm         = plugin.offline
  concurrency = 2
  seconds     = 0.001
  tokens {
    in  = 500
    out = 200
  }
  price {
    in  = 0
    out = 0
  }
}

loop "evolve" {
  preset                  = "openevolve"
  islands                 = 1
  rounds                  = 6
  migration_every         = 3
  verifications_per_round = 1
  select                  = "random"
}

budget {
  real_runs = 7
  usd       = 1
}

executor {
  kind        = "local"
  concurrency = 1
}
`

// TestSourceModeMeasuresTheCommit: for every candidate of a real
// source-mode run, on a program that reads $ASSAY_CONFIG over its
// constants, the metric Assay records is the one that checking the
// candidate's commit out and running the command by hand gives, and the
// candidates differ in what they measure where their commits differ: with
// the constants in the program, and with them in a JSON config file that
// is the whole edit surface.
func TestSourceModeMeasuresTheCommit(t *testing.T) {
	for _, tool := range []string{"git", "sh", "awk", "sed"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
	for _, c := range []struct {
		name, editable string
		files          map[string]string
	}{
		{"constants", "train.sh", map[string]string{"train.sh": configReader}},
		{"json", "config.json", jsonProgram},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			measuresTheCommit(t, c.files, c.editable)
		})
	}
}

func measuresTheCommit(t *testing.T, files map[string]string, editable string) {
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed")
	if err := os.MkdirAll(seed, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(seed, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, seed, "init", "-q")
	git(t, seed, "add", ".")
	git(t, seed, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "seed")
	specPath := filepath.Join(dir, "measured.hcl")
	if err := os.WriteFile(specPath, []byte(strings.Replace(measuredSpec, "EDITABLE", editable, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, ds := load.Load(specPath, load.Options{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p, ds := compiler.Compile(s, compiler.Options{CheckRepository: gitrepo.Check})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	runs := filepath.Join(dir, "runs")
	res, err := runtime.Run(context.Background(), p, runtime.Options{ID: "m", Dir: runs, Plugins: loader()})
	if err != nil || res.State != runtime.StateFinished {
		t.Fatalf("run: %v %+v", err, res)
	}
	j, err := runtime.OpenRun(runs, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()

	// By hand: a clone of the repository with the run's refs, each
	// candidate's commit checked out and the command run there.
	hand := filepath.Join(dir, "hand")
	git(t, dir, "clone", "-q", seed, hand)
	git(t, hand, "fetch", "-q", "origin", "refs/assay/*:refs/assay/*")
	metric := regexp.MustCompile(`loss=([0-9.]+)`)
	byCommit := map[string]float64{}
	checked := 0
	for _, r := range j.Runs() {
		if r.Result == nil || r.Result.Status != plugins.StatusFinished || r.Reservation.Proposal == nil || r.Reservation.Proposal.Commit == "" {
			continue
		}
		commit := r.Reservation.Proposal.Commit
		git(t, hand, "checkout", "-q", commit)
		cmd := exec.Command("sh", "train.sh")
		cmd.Dir = hand
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sh train.sh at %s: %v\n%s", commit, err, out)
		}
		m := metric.FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("sh train.sh at %s printed no metric: %s", commit, out)
		}
		want, _ := strconv.ParseFloat(m[1], 64)
		t.Logf("%s %s (%s): recorded %.6f, by hand %.6f", r.Key, commit[:12], strings.TrimSpace(r.Reservation.Proposal.Text), r.Result.Metric, want)
		if r.Result.Metric != want {
			t.Errorf("%s: Assay recorded %g for commit %s, which gives %g by hand", r.Key, r.Result.Metric, commit, want)
		}
		byCommit[commit] = want
		checked++
	}
	distinct := map[float64]bool{}
	for _, m := range byCommit {
		distinct[m] = true
	}
	if checked < 3 || len(distinct) < 2 {
		t.Fatalf("%d candidates checked, %d distinct metrics over %d commits: want several candidates that measure differently", checked, len(distinct), len(byCommit))
	}
}
