package slurm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// ctl is a Runner whose answers a test writes as a function of the
// command; it logs each call with the (bubble's) time it came.
type ctl struct {
	answer func(name string, args []string) (string, error)

	mu    sync.Mutex
	calls []ctlCall
}

type ctlCall struct {
	line string
	at   time.Time
}

func (c *ctl) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	c.mu.Lock()
	c.calls = append(c.calls, ctlCall{name + " " + strings.Join(args, " "), time.Now()})
	c.mu.Unlock()
	out, err := c.answer(name, args)
	return []byte(out), err
}

// log is the calls so far, each as "+SECONDS NAME", seconds since start.
func (c *ctl) log(start time.Time) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, k := range c.calls {
		name, _, _ := strings.Cut(k.line, " ")
		out = append(out, "+"+k.at.Sub(start).String()+" "+name)
	}
	return out
}

func failed(msg string) error {
	return &CommandError{Name: "x", Err: errors.New("exit status 1"), Output: msg}
}

// While a job's state stays the same the poller waits twice as long each
// time, to 8 intervals; a change, a new job or a Cancel bring it back to
// one interval.
func TestPollerBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		state := map[string]string{"5": "RUNNING", "6": "PENDING"}
		c := &ctl{answer: func(name string, args []string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if name == "scancel" {
				state[args[0]] = "CANCELLED"
				return "", nil
			}
			var out strings.Builder
			for id, st := range state {
				if strings.Contains(args[len(args)-1], id) {
					out.WriteString(id + "|" + st + "|0|None|\n")
				}
			}
			return out.String(), nil
		}}
		ex := New(Options{PollInterval: time.Second, Runner: c})
		ctx := context.Background()
		done := make(chan executor.Status, 2)
		go func() { st, _ := ex.Wait(ctx, "slurm:5@/nowhere"); done <- st }()
		time.Sleep(70 * time.Second)
		// 0, 1, 3, 7, 15, 23, 31, ... 63: gaps of 1, 2, 4, 8, then 8.
		got := strings.Join(c.log(start), " ")
		want := "+0s squeue +1s squeue +3s squeue +7s squeue +15s squeue +23s squeue +31s squeue +39s squeue +47s squeue +55s squeue +1m3s squeue"
		if got != want {
			t.Fatalf("polls\n got %s\nwant %s", got, want)
		}
		// A second job: the next poll comes one interval after the last.
		go func() {
			st, _ := New(Options{PollInterval: time.Second, Runner: c}).Wait(ctx, "slurm:6@/nowhere")
			done <- st
		}()
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if n := len(c.log(start)); n != 12 {
			t.Fatalf("%d calls after a second job came, want 12: %v", n, c.log(start))
		}
		// Cancel: one interval on, the poll finds job 5 cancelled.
		time.Sleep(20 * time.Second)
		if err := ex.Cancel(ctx, "slurm:5@/nowhere"); err != nil {
			t.Fatal(err)
		}
		before := time.Now()
		st := <-done
		if st.State != executor.Cancelled || time.Since(before) > time.Second {
			t.Fatalf("%+v after %s", st, time.Since(before))
		}
		mu.Lock()
		state["6"] = "COMPLETED"
		mu.Unlock()
		if st := <-done; st.State != executor.Completed {
			t.Fatalf("job 6: %+v", st)
		}
	})
}

// A listing with a line that does not parse proves nothing about the jobs
// missing from it; a clean one sends them to accounting once, and a
// cluster without accounting is not asked again: the exit file tells.
func TestPollerForgottenJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		var mu sync.Mutex
		garbled := true
		c := &ctl{answer: func(name string, args []string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case name == "sacct":
				return "", failed("Slurm accounting storage is disabled")
			case garbled:
				return "8|RUN NING|0|None|\n", nil
			}
			return "", nil // neither job is listed
		}}
		opts := Options{PollInterval: time.Second, Runner: c}
		res := make(chan executor.Status, 2)
		for _, h := range []string{"slurm:7@" + dir, "slurm:8@/nowhere"} {
			go func() { st, _ := New(opts).Wait(context.Background(), h); res <- st }()
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if len(res) != 0 {
			t.Fatalf("a job missing from a garbled listing ended: %+v", <-res)
		}
		if err := os.WriteFile(filepath.Join(dir, executor.ExitFile), []byte("4\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		garbled = false
		mu.Unlock()
		got := map[executor.State]int{}
		for range 2 {
			st := <-res
			got[st.State]++
			if st.State == executor.Failed && st.ExitCode != 4 {
				t.Errorf("job 7: %+v", st)
			}
		}
		if got[executor.Failed] != 1 || got[executor.Lost] != 1 {
			t.Errorf("got %v, want job 7 failed (its exit file) and job 8 lost", got)
		}
		// Two more forgotten jobs: accounting is not asked again.
		for _, h := range []string{"slurm:9@/nowhere", "slurm:10@/nowhere"} {
			if st, _ := New(opts).Wait(context.Background(), h); st.State != executor.Lost {
				t.Errorf("%s: %+v", h, st)
			}
		}
		if n := strings.Count(strings.Join(c.log(time.Time{}), " "), " sacct"); n != 1 {
			t.Errorf("sacct asked %d times, want 1", n)
		}
	})
}

// Waits on one job share its watch: one leaving does not end the other's,
// and the last to leave ends the poller's goroutine (synctest.Test fails
// on one left blocked).
func TestPollerSharedWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		state := "RUNNING"
		c := &ctl{answer: func(name string, args []string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			if !strings.HasSuffix(args[len(args)-1], "--jobs=11") || !strings.Contains(strings.Join(args, " "), "--user=") {
				return "", failed("unexpected " + strings.Join(args, " "))
			}
			return "11_2|" + state + "|0|None|\n11_1|RUNNING|0|None|\n", nil
		}}
		opts := Options{PollInterval: time.Second, Runner: c}
		ctx, cancel := context.WithCancel(context.Background())
		errs := make(chan error, 1)
		go func() { _, err := New(opts).Wait(ctx, "slurm:11_2@/d"); errs <- err }()
		res := make(chan executor.Status, 1)
		go func() { st, _ := New(opts).Wait(context.Background(), "slurm:11_2@/d"); res <- st }()
		time.Sleep(3 * time.Second)
		cancel()
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled Wait returned %v", err)
		}
		mu.Lock()
		state = "TIMEOUT"
		mu.Unlock()
		if st := <-res; st.State != executor.TimedOut {
			t.Fatalf("got %+v", st)
		}
		p := sharedPoller(c, wallClock{}, time.Second)
		synctest.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.running || len(p.jobs) != 0 {
			t.Fatalf("the poller runs on (%v) with %d jobs", p.running, len(p.jobs))
		}
	})
}

// Past one argument's worth of job ids, squeue lists the user's jobs; the
// jobs it does not list are asked of sacct, no more than fit in one
// argument a poll.
func TestPollerLongJobList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &ctl{answer: func(name string, args []string) (string, error) {
			last := args[len(args)-1]
			switch {
			case name == "squeue" && strings.HasPrefix(last, "--user="):
				return "100|COMPLETED|0|None|\n999|RUNNING|0|None|\n", nil
			case name == "squeue":
				return "", nil // a few ids: none of them listed
			case name == "sacct":
				var out strings.Builder
				for id := range strings.SplitSeq(last, ",") {
					out.WriteString(id + "|FAILED|2:0\n")
				}
				return out.String(), nil
			}
			return "", failed("unexpected " + name + " " + last)
		}}
		opts := Options{PollInterval: time.Second, Runner: c}
		p := sharedPoller(c, wallClock{}, time.Second)
		p.max = 20
		res := make(chan executor.Status, 8)
		for _, id := range []string{"100", "101", "102", "103", "104", "105", "106", "107"} {
			go func() { st, _ := New(opts).Wait(context.Background(), "slurm:"+id+"@/d"); res <- st }()
		}
		for range 8 {
			<-res
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		sacct, byUser := 0, 0
		for _, k := range c.calls {
			if strings.HasPrefix(k.line, "squeue") && !strings.Contains(k.line, "--jobs") {
				byUser++
			}
			if strings.HasPrefix(k.line, "sacct") {
				sacct++
				if len(k.line[strings.LastIndexByte(k.line, ' ')+1:]) > 20 {
					t.Errorf("%s: a job list longer than the bound", k.line)
				}
			}
		}
		if sacct < 2 || byUser == 0 {
			t.Errorf("%d squeue of the user's jobs; 7 forgotten jobs asked of sacct in %d queries of 5 ids at most", byUser, sacct)
		}
	})
}

// A submission the controller did not answer waits for the poller to
// reach it again, then goes again; after submitPatience it fails.
func TestSubmitRidesOutAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		downFor := 3 * time.Minute
		c := &ctl{answer: func(name string, _ []string) (string, error) {
			if time.Since(start) < downFor {
				return "", failed("Unable to contact slurm controller (connect failure)")
			}
			if name == "scontrol" {
				return "Slurmctld(primary) at x is UP\n", nil
			}
			return "42\n", nil
		}}
		ex := New(Options{PollInterval: 5 * time.Second, Runner: c})
		dir := t.TempDir()
		job := &executor.Job{Name: "j", Dir: dir, Script: filepath.Join(dir, "run.sh"), Stdout: dir + "/o", Stderr: dir + "/e"}
		h, err := ex.Submit(context.Background(), job)
		if err != nil || h != "slurm:42@"+dir {
			t.Fatalf("got %q, %v", h, err)
		}
		if took := time.Since(start); took < downFor || took > downFor+45*time.Second {
			t.Errorf("submitted %s after the start, the controller back at %s", took, downFor)
		}
		log := strings.Join(c.log(start), " ")
		if strings.Count(log, "sbatch") != 2 {
			t.Errorf("sbatch not sent twice: %s", log)
		}
		downFor = time.Hour
		start = time.Now()
		if _, err := ex.Submit(context.Background(), job); err == nil || !unreachable(err) {
			t.Fatalf("got %v with the controller down for good", err)
		}
		if took := time.Since(start); took != submitPatience {
			t.Errorf("gave up after %s, want %s", took, submitPatience)
		}
	})
}

// A cancel the controller did not answer is sent again once it is back:
// a job counted as stopped must not run on.
func TestCancelRidesOutAnOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		downFor := 2 * time.Minute
		c := &ctl{answer: func(name string, _ []string) (string, error) {
			if time.Since(start) < downFor {
				return "", failed("Unable to contact slurm controller (connect failure)")
			}
			if name == "scontrol" {
				return "Slurmctld(primary) at x is UP\n", nil
			}
			return "", nil
		}}
		ex := New(Options{PollInterval: 5 * time.Second, Runner: c})
		dir := t.TempDir()
		if err := ex.Cancel(context.Background(), "slurm:42@"+dir); err != nil {
			t.Fatalf("cancel: %v", err)
		}
		if took := time.Since(start); took < downFor || took > downFor+45*time.Second {
			t.Errorf("cancelled %s after the start, the controller back at %s", took, downFor)
		}
		if log := strings.Join(c.log(start), " "); strings.Count(log, "scancel") != 2 {
			t.Errorf("scancel not sent twice: %s", log)
		}
		downFor, start = time.Hour, time.Now()
		if err := ex.Cancel(context.Background(), "slurm:43@"+dir); err == nil || !unreachable(err) {
			t.Fatalf("got %v with the controller down for good", err)
		}
		if took := time.Since(start); took != submitPatience {
			t.Errorf("gave up after %s, want %s", took, submitPatience)
		}
	})
}
