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
		"extra_args": []any{"--exclusive"}, "poll_interval": "2s",
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
		{map[string]any{"poll_interval": "soon"}, "executor.slurm.poll_interval"},
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
	want := "--parsable --job-name=assay-r1 --export=PATH,HOME,USER,LOGNAME,SHELL,LANG,LC_ALL,LC_CTYPE,TZ,TMPDIR --partition=b200 --account=lab --qos=high --time=4:00:00 --gres=gpu:8 --cpus-per-task=8 --mem=64G --chdir=/runs/r1 --output=/runs/r1/stdout --error=/runs/r1/stderr /runs/r1/.assay-job.sh"
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

func TestStateMapping(t *testing.T) {
	for _, c := range []struct {
		line  string
		state executor.State
		code  int
		sig   int
	}{
		{"JobId=1 JobName=x JobState=COMPLETED Reason=None Dependency=(null) ExitCode=0:0", executor.Completed, 0, 0},
		{"JobId=2 JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0", executor.Failed, 3, 0},
		{"JobId=3 JobState=CANCELLED Reason=None ExitCode=0:15", executor.Cancelled, 0, 15},
		{"JobId=4 JobState=FAILED Reason=RaisedSignal:9_Killed ExitCode=0:9", executor.Failed, 0, 9},
		{"JobId=5 JobState=TIMEOUT Reason=TimeLimit ExitCode=0:15", executor.TimedOut, 0, 15},
		{"JobId=6 JobState=PREEMPTED Reason=None ExitCode=0:15", executor.Preempted, 0, 15},
		{"JobId=7 JobState=NODE_FAIL Reason=NodeDown ExitCode=0:0", executor.Preempted, 0, 0},
		{"JobId=8 JobState=BOOT_FAIL Reason=None ExitCode=0:0", executor.Preempted, 0, 0},
		{"JobId=9 JobState=PENDING Reason=Resources ExitCode=0:0", executor.Pending, 0, 0},
		{"JobId=10 JobState=RUNNING Reason=None ExitCode=0:0", executor.Running, 0, 0},
		{"JobId=11 JobState=COMPLETING Reason=None ExitCode=0:0", executor.Running, 0, 0},
		{"JobId=12 JobState=OUT_OF_MEMORY Reason=OutOfMemory ExitCode=0:125", executor.Failed, 0, 125},
		{"JobId=13 JobState=DEADLINE Reason=None ExitCode=0:0", executor.TimedOut, 0, 0},
		{"JobId=14 JobState=WEIRD_NEW Reason=None ExitCode=0:0", executor.Failed, 0, 0},
	} {
		in, err := ParseInfo(c.line)
		if err != nil {
			t.Fatal(err)
		}
		st := in.Status()
		if st.State != c.state || st.ExitCode != c.code || st.Signal != c.sig {
			t.Errorf("%s: got %+v, want %s %d:%d", c.line, st, c.state, c.code, c.sig)
		}
	}
	if _, err := ParseInfo("slurm_load_jobs error: Invalid job id specified"); err == nil {
		t.Error("a line without JobState parsed")
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
