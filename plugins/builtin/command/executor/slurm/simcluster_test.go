package slurm

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// simCluster is a scripted Slurm controller with accounting, answering
// sbatch, squeue, sacct, scancel and scontrol ping from its own job table
// on a virtual clock. Jobs move from PENDING through RUNNING to an end drawn
// from the job id: most complete, some fail (an exit code or a signal),
// time out, are preempted or lose their node (the run must go again), and
// some are requeued by Slurm itself (the same job runs again). The
// controller forgets a job some time after it ends; accounting remembers
// most, and for the rest the job's exit file (written when it ends, as the
// wrapper does) is all that is left. As the downAfter-th submission comes
// the controller goes down for downFor: every command but sacct fails as
// Slurm's do when no controller answers.
type simCluster struct {
	clk       clock
	downAfter int
	downFor   time.Duration

	mu       sync.Mutex
	next     int
	jobs     map[string]*simJob   // by job id: "12", or "12_3" for a task
	arrays   map[string][]*simJob // an array's tasks by its id
	exits    endHeap              // jobs whose exit file is still to write
	submits  int
	downFrom time.Time
	calls    map[string]int          // by tool, answered
	refused  map[string]int          // by tool, while the controller was down
	queries  map[*simProc][]simQuery // every squeue, sacct and scontrol, answered or not
	lines    int                     // squeue lines written
	acctHits int                     // forgotten jobs sacct answered for
	acctMiss int                     // forgotten jobs sacct had lost: their exit file told
}

type simJob struct {
	id, dir   string
	segs      []simSeg // the states before the end, each until a time
	final     string
	code, sig int
	end       time.Time // when the job reaches final
	exitAt    time.Time // when its exit file is written (noAcct), fixed
	forget    time.Time // when the controller forgets it
	noAcct    bool      // accounting lost it: its exit file tells
	requeued  bool
	cancelled bool
}

type simQuery struct {
	name string
	at   time.Time
}

type simSeg struct {
	until time.Time
	state string
}

// simProc is one process's Runner: a crash and a fresh process are a new
// simProc on the same cluster, so the fresh process gets a poller of its
// own.
type simProc struct{ c *simCluster }

func (p *simProc) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	return p.c.run(p, name, args)
}

func newSimCluster(clk clock, downAfter int, downFor time.Duration) *simCluster {
	return &simCluster{
		clk: clk, downAfter: downAfter, downFor: downFor,
		next: 1000, jobs: map[string]*simJob{}, arrays: map[string][]*simJob{},
		calls: map[string]int{}, refused: map[string]int{}, queries: map[*simProc][]simQuery{},
	}
}

var errExit1 = errors.New("exit status 1")

func (c *simCluster) fail(name, msg string) ([]byte, error) {
	c.refused[name]++
	return nil, &CommandError{Name: name, Err: errExit1, Output: msg}
}

func (c *simCluster) run(p *simProc, name string, args []string) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clk.Now()
	c.writeExits(now)
	if name == "sbatch" && c.downFrom.IsZero() && c.submits+1 >= c.downAfter {
		c.downFrom = now // it goes down as this submission comes
	}
	down := !c.downFrom.IsZero() && now.Before(c.downFrom.Add(c.downFor))
	line := name + " " + strings.Join(args, " ")
	if name != "sbatch" && name != "scancel" {
		c.queries[p] = append(c.queries[p], simQuery{name, now})
	}
	switch {
	case name == "sacct":
		// slurmdbd, not the controller, answers sacct.
		return c.sacct(args, now)
	case down && name == "sbatch":
		return c.fail(name, "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)")
	case down && name == "scontrol":
		return c.fail(name, "Slurmctld(primary) at sim is DOWN\n")
	case down:
		return c.fail(name, "slurm_load_jobs error: Unable to contact slurm controller (connect failure)")
	case name == "sbatch":
		return c.sbatch(args, now)
	case name == "squeue":
		return c.squeue(args, now)
	case name == "scancel" && len(args) == 1:
		return c.scancel(args[0], now)
	case line == "scontrol ping":
		c.calls[name]++
		return []byte("Slurmctld(primary) at sim is UP\n"), nil
	}
	return nil, fmt.Errorf("the simulated cluster has no answer to %s", line)
}

func (c *simCluster) sbatch(args []string, now time.Time) ([]byte, error) {
	c.calls["sbatch"]++
	var dir string
	tasks := -1
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--chdir="); ok {
			dir = v
		}
		if v, ok := strings.CutPrefix(a, "--array=0-"); ok {
			v, _, _ = strings.Cut(v, "%")
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("sbatch %s", a)
			}
			tasks = n + 1
		}
	}
	c.next++
	id := strconv.Itoa(c.next)
	if tasks < 0 {
		c.add(id, dir, now, true)
	} else {
		for i := range tasks {
			c.arrays[id] = append(c.arrays[id], c.add(id+"_"+strconv.Itoa(i), "", now, false))
		}
	}
	c.submits++
	return []byte(id + "\n"), nil
}

// add draws a job's life from its id.
func (c *simCluster) add(id, dir string, now time.Time, single bool) *simJob {
	n, _ := strconv.Atoi(strings.ReplaceAll(id, "_", "0"))
	rng := rand.New(rand.NewPCG(uint64(n), 31))
	j := &simJob{id: id, dir: dir}
	at := now.Add(time.Duration(rng.IntN(60)) * time.Second)
	j.segs = append(j.segs, simSeg{at, "PENDING"})
	run := time.Minute + time.Duration(rng.IntN(540))*time.Second
	roll := rng.IntN(100)
	if roll >= 93 && roll < 97 {
		// Slurm requeues it (a preemption with PreemptMode=REQUEUE): the
		// same job id runs again from the start.
		j.requeued = true
		at = at.Add(run / 2)
		j.segs = append(j.segs, simSeg{at, "RUNNING"})
		at = at.Add(time.Second)
		j.segs = append(j.segs, simSeg{at, "REQUEUED"}, simSeg{at.Add(30 * time.Second), "PENDING"})
		at = at.Add(30 * time.Second)
	}
	at = at.Add(run)
	j.segs = append(j.segs, simSeg{at, "RUNNING"})
	j.end = at
	switch {
	case roll < 78 || j.requeued:
		j.final = "COMPLETED"
	case roll < 86:
		j.final, j.code = "FAILED", 3
	case roll < 89:
		j.final, j.sig = "FAILED", 9
	case roll < 93:
		j.final, j.sig = "PREEMPTED", 15
	case roll < 99:
		j.final, j.sig = "TIMEOUT", 15
	default:
		j.final = "NODE_FAIL"
	}
	j.forget = j.end.Add(5 * time.Minute)
	if rng.IntN(100) < 15 {
		j.forget = j.end.Add(2 * time.Second) // purged before a poll sees it end
	}
	if single && j.sig == 0 && (j.final == "COMPLETED" || j.final == "FAILED") && rng.IntN(100) < 10 {
		j.noAcct, j.exitAt = true, j.end
		heap.Push(&c.exits, j)
	}
	c.jobs[id] = j
	return j
}

func (j *simJob) state(now time.Time) string {
	for _, s := range j.segs {
		if now.Before(s.until) {
			return s.state
		}
	}
	return j.final
}

func (j *simJob) squeueLine(now time.Time) string {
	st, status, reason := j.state(now), 0, "None"
	switch {
	case st == "PENDING":
		reason = "Resources"
	case st == j.final:
		status = j.code<<8 | j.sig
		if j.final == "FAILED" && j.code != 0 {
			reason = "NonZeroExitCode"
		}
	}
	return j.id + "|" + st + "|" + strconv.Itoa(status) + "|" + reason + "|\n"
}

func (c *simCluster) squeue(args []string, now time.Time) ([]byte, error) {
	want := squeueArgs("", "")
	if len(args) < len(want) || !slices.Equal(args[:len(want)], want) {
		return nil, fmt.Errorf("squeue %s: not the simulated listing", strings.Join(args, " "))
	}
	var user, list string
	for _, a := range args[len(want):] {
		if v, ok := strings.CutPrefix(a, "--user="); ok {
			user = v
		} else if v, ok := strings.CutPrefix(a, "--jobs="); ok {
			list = v
		} else {
			return nil, fmt.Errorf("squeue %s", a)
		}
	}
	if user != strconv.Itoa(os.Getuid()) {
		return nil, fmt.Errorf("squeue for user %q, not this process's", user)
	}
	c.calls["squeue"]++
	var out strings.Builder
	show := func(j *simJob) {
		if now.Before(j.forget) {
			out.WriteString(j.squeueLine(now))
			c.lines++
		}
	}
	if list == "" {
		for _, j := range c.jobs {
			show(j)
		}
		return []byte(out.String()), nil
	}
	ids := strings.Split(list, ",")
	for _, id := range ids {
		if tasks, ok := c.arrays[id]; ok {
			for _, j := range tasks {
				show(j)
			}
		} else if j, ok := c.jobs[id]; ok {
			show(j)
		}
	}
	if len(ids) == 1 && out.Len() == 0 {
		return c.fail("squeue", "slurm_load_jobs error: Invalid job id specified")
	}
	return []byte(out.String()), nil
}

func (c *simCluster) sacct(args []string, now time.Time) ([]byte, error) {
	want := sacctArgs("")
	if len(args) != len(want) || !slices.Equal(args[:len(args)-1], want[:len(want)-1]) {
		return nil, fmt.Errorf("sacct %s: not the simulated query", strings.Join(args, " "))
	}
	c.calls["sacct"]++
	var out strings.Builder
	for id := range strings.SplitSeq(args[len(args)-1], ",") {
		j, ok := c.jobs[id]
		if ok && j.noAcct && !now.Before(j.forget) {
			c.acctMiss++
		}
		if !ok || j.noAcct {
			continue
		}
		st := j.state(now)
		code, sig := 0, 0
		if st == j.final {
			code, sig = j.code, j.sig
			if !now.Before(j.forget) {
				c.acctHits++
			}
		}
		if st == "CANCELLED" {
			st = "CANCELLED by 0"
		}
		fmt.Fprintf(&out, "%s|%s|%d:%d\n", id, st, code, sig)
	}
	return []byte(out.String()), nil
}

func (c *simCluster) scancel(id string, now time.Time) ([]byte, error) {
	j, ok := c.jobs[id]
	if !ok || !now.Before(j.forget) {
		return c.fail("scancel", "scancel: error: Kill job error on job id "+id+": Invalid job id specified")
	}
	c.calls["scancel"]++
	if now.Before(j.end) {
		j.sig = 0
		if j.state(now) == "RUNNING" {
			j.sig = 15
		}
		j.segs, j.final, j.code, j.end, j.forget, j.noAcct = nil, "CANCELLED", 0, now, now.Add(5*time.Minute), false
	}
	return nil, nil
}

// writeExits writes the exit files of the jobs accounting lost, once they
// have ended, as the job's wrapper does.
func (c *simCluster) writeExits(now time.Time) {
	for len(c.exits) > 0 && !now.Before(c.exits[0].exitAt) {
		j := heap.Pop(&c.exits).(*simJob)
		if j.noAcct {
			_ = os.WriteFile(filepath.Join(j.dir, ".assay-exit"), []byte(strconv.Itoa(j.code)+"\n"), 0o644)
		}
	}
}

// endHeap orders jobs by their end.
type endHeap []*simJob

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, k int) bool { return h[i].exitAt.Before(h[k].exitAt) }
func (h endHeap) Swap(i, k int)      { h[i], h[k] = h[k], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(*simJob)) }
func (h *endHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	*h = old[:len(old)-1]
	return j
}

// quickClock is virtual time for the benchmark, where synctest's bubble
// is not to be had: After waits (in real time, sleeping) until the driver
// has been quiet for a moment, then moves the clock on by d and fires. The
// poller is the only part of the executor that waits on time, so the
// simulated cluster lives its hours in a second, and the driver keeps up
// with it as it does in the bubble.
type quickClock struct {
	mu       sync.Mutex
	now      time.Time
	activity atomic.Int64 // bumped by the driver whenever it acts
}

func (c *quickClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *quickClock) After(d time.Duration) <-chan time.Time {
	for {
		a := c.activity.Load()
		time.Sleep(100 * time.Microsecond)
		if c.activity.Load() == a {
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

func (c *quickClock) mark() { c.activity.Add(1) }
