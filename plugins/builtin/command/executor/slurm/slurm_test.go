package slurm

import (
	"strings"
	"testing"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions(map[string]any{
		"partition": "b200", "account": "lab", "qos": "high", "time_limit": "4:00:00",
		"cpus": float64(16), "memory": "64G", "array": true, "gres": "gpu:b200",
		"extra_args": []any{"--exclusive"}, "poll_seconds": float64(2),
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.Partition != "b200" || o.Account != "lab" || o.QOS != "high" || o.CPUs != 16 || !o.Array ||
		o.PollInterval != 2*time.Second || o.ExtraArgs[0] != "--exclusive" {
		t.Fatalf("got %+v", o)
	}
	for _, c := range []struct {
		m    map[string]any
		want string
	}{
		{map[string]any{"partiton": "x"}, "executor.slurm.partiton: unknown setting"},
		{map[string]any{"cpus": "many"}, "executor.slurm.cpus: want a whole number"},
		{map[string]any{"cpus": 1.5}, "executor.slurm.cpus"},
		{map[string]any{"array": "yes"}, "executor.slurm.array: want true or false"},
		{map[string]any{"extra_args": []any{1}}, "executor.slurm.extra_args: element 0"},
		{map[string]any{"poll_seconds": "soon"}, "executor.slurm.poll_seconds: want a number of seconds"},
		{map[string]any{"poll_seconds": 0.5}, "executor.slurm.poll_seconds: want between 1 and 86400"},
		{map[string]any{"extra_args": []any{"--requeue"}}, "executor.slurm.extra_args: \"--requeue\": Assay starts a preempted run's next attempt itself"},
	} {
		_, err := ParseOptions(c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.m, err, c.want)
		}
	}
}

func TestSbatchArgs(t *testing.T) {
	e := New(Options{Partition: "b200", Account: "lab", QOS: "high", TimeLimit: "4:00:00", CPUs: 8, Memory: "64G"})
	j := &executor.Job{Name: "assay-r1", Dir: "/runs/r1", Stdout: "/runs/r1/stdout", Stderr: "/runs/r1/stderr", GPUs: 8}
	got := strings.Join(e.SbatchArgs(j), " ")
	want := "--parsable --no-requeue --job-name=assay-r1 --export=PATH,HOME,USER,LOGNAME,SHELL,LANG,LC_ALL,LC_CTYPE,TZ,TMPDIR --partition=b200 --account=lab --qos=high --time=4:00:00 --gres=gpu:8 --cpus-per-task=8 --mem=64G --chdir=/runs/r1 --output=/runs/r1/stdout --error=/runs/r1/stderr /runs/r1/.assay-job.sh"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// A run's own limit wins, rounded up to whole minutes; no GPUs, no --gres.
	j.GPUs, j.TimeLimit = 0, 61*time.Second
	got = strings.Join(New(Options{TimeLimit: "4:00:00"}).SbatchArgs(j), " ")
	if !strings.Contains(got, "--time=2 ") || strings.Contains(got, "--gres") {
		t.Fatalf("got %s", got)
	}
}

// The lines are squeue's (squeueFormat), exit codes raw wait statuses, as
// Slurm 22.05 prints them for the states seen on a real cluster.
func TestStateMapping(t *testing.T) {
	for _, c := range []struct {
		line  string
		state executor.State
		code  int
		sig   int
	}{
		{"1|COMPLETED|0|None|", executor.Completed, 0, 0},
		{"2|FAILED|768|NonZeroExitCode|", executor.Failed, 3, 0},
		{"3|CANCELLED|15|None|", executor.Cancelled, 0, 15},
		{"4|FAILED|9|RaisedSignal:9_Killed|", executor.Failed, 0, 9},
		{"5|TIMEOUT|15|TimeLimit|", executor.TimedOut, 0, 15},
		{"6|PREEMPTED|15|None|", executor.Preempted, 0, 15},
		{"7|NODE_FAIL|0|NodeDown|", executor.Preempted, 0, 0},
		{"8|BOOT_FAIL|0|None|", executor.Preempted, 0, 0},
		{"9|PENDING|0|Resources|", executor.Pending, 0, 0},
		{"10|RUNNING|0|None|", executor.Running, 0, 0},
		{"11|COMPLETING|0|None|", executor.Running, 0, 0},
		{"12|OUT_OF_MEMORY|0:125|OutOfMemory|", executor.Failed, 0, 125},
		{"13|DEADLINE|0|None|", executor.TimedOut, 0, 0},
		{"14|WEIRD_NEW|0|None|", executor.Failed, 0, 0},
		{"15_2|REQUEUED|0|BeginTime|", executor.Pending, 0, 0},
		{"16_0|FAILED|512|NonZeroExitCode|", executor.Failed, 2, 0},
	} {
		infos, bad := ParseSqueue([]byte(c.line + "\n"))
		id, _, _ := strings.Cut(c.line, "|")
		in, ok := infos[id]
		if !ok || bad != 0 {
			t.Fatalf("%s: parsed %v, %d bad lines", c.line, infos, bad)
		}
		st := in.Status()
		if st.State != c.state || st.ExitCode != c.code || st.Signal != c.sig {
			t.Errorf("%s: got %+v, want %s %d:%d", c.line, st, c.state, c.code, c.sig)
		}
	}
}

func TestHandles(t *testing.T) {
	for _, h := range []string{"slurm:12@/d", "slurm:12_3@/d", "slurm:12"} {
		if _, err := parse(h); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	for _, h := range []string{"local:12@/d", "slurm:x@/d", "slurm:12_y", "slurm:", "12"} {
		if _, err := parse(h); err == nil {
			t.Errorf("%s parsed", h)
		}
	}
}

func TestControllersDown(t *testing.T) {
	for out, want := range map[string]string{
		"Slurmctld(primary) at vm is DOWN\n*****\n** RESTORE SLURMCTLD DAEMON TO SERVICE **\n": "Slurmctld(primary) at vm is DOWN",
		"Slurmctld(primary) at vm is UP\n":                                  "",
		"Slurmctld(primary) at a is DOWN\nSlurmctld(backup) at b is UP\n":   "",
		"Slurmctld(primary) at a is DOWN\nSlurmctld(backup) at b is DOWN\n": "Slurmctld(primary) at a is DOWN",
		"scontrol: error: something else\n":                                 "",
		"":                                                                  "",
	} {
		if got := controllersDown([]byte(out)); got != want {
			t.Errorf("controllersDown(%q) = %q, want %q", out, got, want)
		}
	}
}
