package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/assay-lang/assay/plugins/builtin"
)

var update = flag.Bool("update", false, "rewrite the golden files inside testdata/script/*.txtar")

// TestMain serves built-in plugins when this test binary is started as one
// (the host starts the running executable, which under testscript is this
// binary), and otherwise runs the scripts with it as the assay command.
func TestMain(m *testing.M) {
	builtin.Main()
	testscript.Main(m, map[string]func(){"assay": main})
}

// TestScripts runs the CLI scripts in testdata/script. $SPECS is the
// repository's specs directory, so scripts check the example specs'
// figures. go test ./cmd/assay -update rewrites golden sections.
func TestScripts(t *testing.T) {
	specs, err := filepath.Abs(filepath.Join("..", "..", "specs"))
	if err != nil {
		t.Fatal(err)
	}
	// Scripts that run go (a suite's evaluation command) share the build
	// cache of the test, which testscript's bare environment would lose.
	gocache, _ := exec.Command("go", "env", "GOCACHE").Output()
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("SPECS", specs)
			env.Setenv("NO_COLOR", "1")
			if c := strings.TrimSpace(string(gocache)); c != "" {
				env.Setenv("GOCACHE", c)
			}
			env.Values["openai"] = &fakeOpenAI{}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":      cmdExitCode,
			"openai-server": cmdOpenAIServer,
			"checkpairs":    cmdCheckPairs,
			"same-lines":    cmdSameLines,
			"criticacc":     cmdCriticAcc,
			"snapshot":      cmdSnapshot,
		},
	})
}

// cmdExitCode runs "exitcode N prog args..." and fails unless prog exits
// with code N. (testscript's exec only tells zero from non-zero.)
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "PATH="+ts.Getenv("PATH"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	got := 0
	if ee, ok := err.(*exec.ExitError); ok {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d; output:\n%s", strings.Join(args[1:], " "), got, want, out)
	}
}

// cmdSameLines runs "same-lines FILE1 FILE2 PREFIX..." and fails unless,
// for each PREFIX, both files have a line that begins with it and the
// lines are equal (two runs' status figures, say).
func cmdSameLines(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: same-lines FILE1 FILE2 PREFIX...")
	}
	line := func(file, prefix string) string {
		for _, l := range strings.Split(ts.ReadFile(file), "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		ts.Fatalf("%s has no line beginning %q", file, prefix)
		return ""
	}
	for _, p := range args[2:] {
		if a, b := line(args[0], p), line(args[1], p); a != b {
			ts.Fatalf("%s: %q\n%s: %q", args[0], a, args[1], b)
		}
	}
}

func TestNormalizeArgs(t *testing.T) {
	got := strings.Join(normalizeArgs([]string{"plan", "-var", "a=1", "-var-file=x.hcl", "-json", "-w", "-check", "--", "-var"}), " ")
	want := "plan --var a=1 --var-file=x.hcl --json -w --check -- -var"
	if got != want {
		t.Errorf("normalizeArgs = %q, want %q", got, want)
	}
}
