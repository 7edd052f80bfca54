package slurm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// simConfig is one simulated campaign: runs to account for, at most
// inFlight jobs at once (the runtime's concurrency), submitted in groups,
// every other group as one job array.
type simConfig struct {
	runs, inFlight, group int
	every                 time.Duration // the poll interval
	crashAt               int           // after this many results the process dies and a fresh one re-attaches
	downAfter             int           // the controller goes down as this submission comes, for a minute
}

var campaign = simConfig{runs: 5000, inFlight: 500, group: 25, every: 5 * time.Second, crashAt: 2000, downAfter: 3000}

// simRun is a run as the runtime's journal would hold it: its jobs'
// handles, in order, and its result.
type simRun struct {
	id      string
	handles []string
	results int
	final   executor.Status
	cancel  bool // cancelled right after its first submission
}

// simDriver plays the runtime: it submits runs as slots free, waits on
// each job from an executor of its own (as the command trainer makes one
// per Wait), submits a preempted run again, and at crashAt kills its
// process and re-attaches a fresh one to the jobs in flight.
type simDriver struct {
	cfg   simConfig
	c     *simCluster
	clk   clock
	dir   string
	slots chan struct{}
	kick  chan struct{} // a run joined the queue
	crash chan struct{} // crashAt results are in
	all   chan struct{} // every run has its result
	abort chan struct{} // something went wrong: err says what

	mu         sync.Mutex
	runs       []*simRun
	queue      []*simRun
	byHandle   map[string]int // results of each job
	done       int
	err        error
	procs      []*simProc
	reattached int
}

type simProcess struct {
	d      *simDriver
	ctx    context.Context
	cancel context.CancelFunc
	opts   Options
	wg     sync.WaitGroup
}

func simulate(tb testing.TB, clk clock, cfg simConfig) *simDriver {
	d := &simDriver{
		cfg: cfg, c: newSimCluster(clk, cfg.downAfter, time.Minute), clk: clk, dir: simDir(tb),
		slots: make(chan struct{}, cfg.inFlight), kick: make(chan struct{}, 1),
		crash: make(chan struct{}), all: make(chan struct{}), abort: make(chan struct{}),
		byHandle: map[string]int{},
	}
	for i := range cfg.runs {
		r := &simRun{id: fmt.Sprintf("r%05d", i), cancel: i%97 == 5}
		d.runs = append(d.runs, r)
		d.queue = append(d.queue, r)
	}
	p := d.start()
	if cfg.crashAt > 0 {
		select {
		case <-d.crash:
		case <-d.abort:
		}
		p.cancel()
		p.wg.Wait()
		// The dead process polls no more: its poller ends with its Waits.
		if !pollerStops(sharedPoller(p.opts.Runner, d.clk, cfg.every)) {
			tb.Fatal("the dead process's poller runs on")
		}
		p = d.start()
		p.reattach()
	}
	select {
	case <-d.all:
	case <-d.abort:
	}
	p.cancel()
	p.wg.Wait()
	if d.err != nil {
		tb.Fatal(d.err)
	}
	return d
}

// simDir is where the runs' directories go: in memory where the machine
// has a tmpfs, so the simulation measures the executor rather than a disk
// (the one here takes some 100 µs a file).
func simDir(tb testing.TB) string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "assay-slurm-sim-"); err == nil {
			tb.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return tb.TempDir()
}

// start starts a process: a Runner of its own (so a poller of its own) and
// a submitter.
func (d *simDriver) start() *simProcess {
	proc := &simProc{c: d.c}
	d.procs = append(d.procs, proc)
	ctx, cancel := context.WithCancel(context.Background())
	p := &simProcess{d: d, ctx: ctx, cancel: cancel, opts: Options{PollInterval: d.cfg.every, Runner: proc, clock: d.clk}}
	p.wg.Add(1)
	go p.submitter()
	return p
}

// mark tells a quickClock that the driver acted, so the virtual clock
// waits for it.
func (d *simDriver) mark() {
	if q, ok := d.clk.(*quickClock); ok {
		q.mark()
	}
}

func (d *simDriver) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = err
		close(d.abort)
	}
}

func (p *simProcess) submitter() {
	defer p.wg.Done()
	for n := 0; ; n++ {
		group := p.d.take(p.ctx)
		if group == nil {
			return
		}
		p.d.mark()
		p.submit(group, n%2 == 0 && len(group) > 1)
		p.d.mark()
	}
}

// take waits for a run to submit and a slot, then takes up to a group.
func (d *simDriver) take(ctx context.Context) []*simRun {
	for {
		select {
		case d.slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		case <-d.all:
			return nil
		}
		d.mu.Lock()
		if len(d.queue) == 0 {
			d.mu.Unlock()
			<-d.slots
			select {
			case <-d.kick:
				continue
			case <-ctx.Done():
				return nil
			case <-d.all:
				return nil
			}
		}
		group := []*simRun{d.queue[0]}
		d.queue = d.queue[1:]
	more:
		for len(group) < d.cfg.group && len(d.queue) > 0 {
			select {
			case d.slots <- struct{}{}:
				group, d.queue = append(group, d.queue[0]), d.queue[1:]
			default:
				break more
			}
		}
		d.mu.Unlock()
		return group
	}
}

// requeue puts runs back in the queue and frees their slots.
func (d *simDriver) requeue(rs ...*simRun) {
	d.mu.Lock()
	d.queue = append(d.queue, rs...)
	d.mu.Unlock()
	for range rs {
		<-d.slots
	}
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

func (p *simProcess) submit(group []*simRun, array bool) {
	d := p.d
	jobs := make([]*executor.Job, len(group))
	for i, r := range group {
		dir := filepath.Join(d.dir, fmt.Sprintf("%s-%d", r.id, len(r.handles)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			d.fail(err)
			return
		}
		jobs[i] = &executor.Job{Name: "assay-" + r.id, Dir: dir, Script: filepath.Join(dir, "run.sh"),
			Stdout: filepath.Join(dir, "stdout"), Stderr: filepath.Join(dir, "stderr")}
	}
	ex := New(p.opts)
	var hs []string
	var err error
	if array {
		hs, err = ex.SubmitArray(p.ctx, jobs)
	} else {
		for _, j := range jobs {
			var h string
			if h, err = ex.Submit(p.ctx, j); err != nil {
				break
			}
			hs = append(hs, h)
		}
	}
	if err != nil && p.ctx.Err() == nil {
		d.fail(fmt.Errorf("submitting %d runs: %v", len(group), err))
	}
	if len(hs) < len(group) {
		d.requeue(group[len(hs):]...)
	}
	for i, h := range hs {
		r := group[i]
		d.mu.Lock()
		r.handles = append(r.handles, h) // journaled before the wait
		first := len(r.handles) == 1
		d.mu.Unlock()
		if r.cancel && first {
			if ex.Cancel(p.ctx, h) != nil {
				r.cancel = false // the controller was down: it runs to its end
			}
		}
		p.wait(r, h)
	}
}

func (p *simProcess) wait(r *simRun, h string) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		st, err := New(p.opts).Wait(p.ctx, h)
		if err != nil {
			if p.ctx.Err() == nil {
				p.d.fail(fmt.Errorf("wait %s: %v", h, err))
			}
			return
		}
		p.d.result(r, h, st)
	}()
}

func (d *simDriver) result(r *simRun, h string, st executor.Status) {
	d.mark()
	defer d.mark()
	d.mu.Lock()
	d.byHandle[h]++
	if st.State == executor.Preempted {
		d.mu.Unlock()
		d.requeue(r)
		return
	}
	r.results++
	r.final = st
	d.done++
	if d.done == d.cfg.crashAt {
		close(d.crash)
	}
	if d.done == len(d.runs) {
		close(d.all)
	}
	d.mu.Unlock()
	<-d.slots
}

// reattach waits, in a fresh process, on every job the dead one left in
// flight: those journaled with no result.
func (p *simProcess) reattach() {
	d := p.d
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range d.runs {
		if n := len(r.handles); n > 0 && r.results == 0 && d.byHandle[r.handles[n-1]] == 0 {
			d.reattached++
			p.wait(r, r.handles[n-1])
		}
	}
}

// simOutcome is the executor state each end of the simulated cluster must
// come back as.
var simOutcome = map[string]executor.State{
	"COMPLETED": executor.Completed, "FAILED": executor.Failed, "TIMEOUT": executor.TimedOut,
	"PREEMPTED": executor.Preempted, "NODE_FAIL": executor.Preempted, "CANCELLED": executor.Cancelled,
}

// simFigures are what a campaign exercised.
type simFigures struct {
	jobs, preempted, requeued, cancelled, fromAcct, fromExitFile, reattached int
	refusedSbatch, refusedSqueue, polls, sacct                               int
}

// check asserts that every run was accounted for once, as the cluster
// says it ended, each job waited to its end once, and that no process asked
// the controller more than one squeue (and one sacct) per interval.
func (d *simDriver) check(tb testing.TB) simFigures {
	tb.Helper()
	f := simFigures{reattached: d.reattached, refusedSbatch: d.c.refused["sbatch"], refusedSqueue: d.c.refused["squeue"],
		fromAcct: d.c.acctHits, fromExitFile: d.c.acctMiss}
	for _, r := range d.runs {
		if r.results != 1 || len(r.handles) == 0 {
			tb.Fatalf("run %s: %d results from %d jobs, want 1", r.id, r.results, len(r.handles))
		}
		for i, h := range r.handles {
			j := d.c.jobs[strings.TrimPrefix(strings.SplitN(h, "@", 2)[0], "slurm:")]
			f.jobs++
			if n := d.byHandle[h]; n != 1 || j == nil {
				tb.Fatalf("run %s: job %s waited to an end %d times (known to the cluster: %v)", r.id, h, n, j != nil)
			}
			if last := i == len(r.handles)-1; last != (simOutcome[j.final] != executor.Preempted) {
				tb.Fatalf("run %s: job %s of %d ended %s", r.id, h, len(r.handles), j.final)
			}
			if j.requeued {
				f.requeued++
			}
		}
		f.preempted += len(r.handles) - 1
		j := d.c.jobs[strings.TrimPrefix(strings.SplitN(r.handles[len(r.handles)-1], "@", 2)[0], "slurm:")]
		st := r.final
		if st.State != simOutcome[j.final] || st.ExitCode != j.code || st.Signal != j.sig || st.CancelledByUs != (j.final == "CANCELLED") {
			tb.Fatalf("run %s: job %s ended %s %d:%d, the executor says %+v", r.id, j.id, j.final, j.code, j.sig, st)
		}
		if r.cancel {
			f.cancelled++
		}
	}
	for _, proc := range d.procs {
		polls, sacct := checkRate(tb, d.c.queries[proc], d.cfg.every)
		f.polls += polls
		f.sacct += sacct
		if !pollerStops(sharedPoller(proc, d.clk, d.cfg.every)) {
			tb.Errorf("a poller still runs with nothing to wait on")
		}
	}
	return f
}

// pollerStops reports whether p's goroutine ends within 10 s, as it must
// once no job is waited on (at once, in a bubble).
func pollerStops(p *poller) bool {
	for range 10000 {
		p.mu.Lock()
		idle := !p.running
		p.mu.Unlock()
		if idle {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// checkRate asserts that a process's polls (squeue, or scontrol ping when
// only submissions wait) lie at least one interval apart, with at most one
// sacct after each; it returns the counts.
func checkRate(tb testing.TB, qs []simQuery, every time.Duration) (polls, sacct int) {
	tb.Helper()
	var last time.Time
	acctOK := false
	for _, q := range qs {
		switch q.name {
		case "squeue", "scontrol":
			if polls > 0 && q.at.Sub(last) < every {
				tb.Fatalf("two polls %s apart, less than the interval %s", q.at.Sub(last), every)
			}
			last, acctOK = q.at, q.name == "squeue"
			polls++
		case "sacct":
			if !acctOK {
				tb.Fatalf("a second sacct in one poll, or one without a squeue")
			}
			acctOK = false
			sacct++
		}
	}
	return polls, sacct
}

// TestSimulatedCluster runs the 5,000-run campaign on the simulated
// cluster in a synctest bubble, whose clock is virtual and moves when every
// goroutine waits: the executor's own timers, unchanged. Every run must be
// accounted for once, and every feature of the campaign must have shown.
func TestSimulatedCluster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		d := simulate(t, wallClock{}, campaign)
		f := d.check(t)
		t.Logf("%+v in %s of virtual time", f, time.Since(start))
		for what, n := range map[string]int{
			"preempted and submitted again": f.preempted, "requeued by Slurm": f.requeued, "cancelled": f.cancelled,
			"answered by sacct once forgotten": f.fromAcct, "told by the exit file": f.fromExitFile,
			"re-attached after the crash": f.reattached, "sbatch refused while down": f.refusedSbatch,
			"squeue refused while down": f.refusedSqueue,
		} {
			if n == 0 {
				t.Errorf("no job %s: the campaign does not exercise it", what)
			}
		}
		// One squeue per interval at most: the campaign's virtual hours
		// bound the polls, whatever the number of jobs.
		if limit := int(time.Since(start)/campaign.every) + 2*len(d.procs); f.polls > limit {
			t.Errorf("%d polls in %s, more than one per %s", f.polls, time.Since(start), campaign.every)
		}
	})
}
