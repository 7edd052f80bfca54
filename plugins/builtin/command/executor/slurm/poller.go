package slurm

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// backoff is how far the poll interval stretches while nothing changes:
// up to backoff times the configured interval, doubling each quiet poll.
const backoff = 8

// maxArg bounds the job list of one squeue or sacct argument, under
// Linux's 128 KiB limit on one argument: some 12,000 job ids. Past it
// squeue lists all of the user's jobs, still one query.
const maxArg = 100_000

// A poller asks the controller about every job a process waits on with one
// squeue per interval, and one sacct for those the controller has
// forgotten, however many jobs are in flight and however many goroutines
// wait on them. Each Wait adds its job and blocks until a poll finds the job
// ended. The poller's goroutine runs while some job is waited on.
type poller struct {
	run   Runner
	clk   clock
	every time.Duration // the configured interval: polls are never closer
	most  time.Duration // the interval after a long quiet
	user  string        // squeue --user: the controller packs this user's jobs alone
	max   int           // maxArg; tests lower it

	mu       sync.Mutex
	jobs     map[string]*watch // by job id, "12" or "12_3"
	running  bool
	wake     chan struct{} // a job was added, or Cancel asks to look soon
	reset    bool          // the next poll comes one interval after the last
	last     time.Time     // when the last poll began
	up       chan struct{} // closed by the next poll the controller answers
	awaiting int           // submissions waiting on up
	noAcct   bool          // sacct said accounting is disabled: never ask again
}

// watch is one job some Waits are waiting on.
type watch struct {
	h     executor.Handle
	n     int    // Waits on it
	state string // the last state a poll saw
	done  chan struct{}
	st    executor.Status // set before done is closed
}

type pollerKey struct {
	run   Runner
	clk   clock
	every time.Duration
}

// pollers are the process's pollers: every Executor with the same Runner,
// clock and interval shares one, so a fresh Executor per Wait (as the
// command trainer makes them) still adds to the same squeue.
var pollers = struct {
	sync.Mutex
	m map[pollerKey]*poller
}{m: map[pollerKey]*poller{}}

func sharedPoller(run Runner, clk clock, every time.Duration) *poller {
	pollers.Lock()
	defer pollers.Unlock()
	k := pollerKey{run, clk, every}
	if p := pollers.m[k]; p != nil {
		return p
	}
	p := &poller{
		run: run, clk: clk, every: every, most: backoff * every,
		user: strconv.Itoa(os.Getuid()), max: maxArg,
		jobs: map[string]*watch{}, wake: make(chan struct{}, 1),
	}
	pollers.m[k] = p
	return p
}

// add starts watching h's job, or joins the Waits already watching it.
func (p *poller) add(h executor.Handle) *watch {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.jobs[h.ID]
	if w == nil {
		w = &watch{h: h, done: make(chan struct{})}
		p.jobs[h.ID] = w
		// A new job may be a short one: look again one interval on.
		p.nudgeLocked()
	}
	w.n++
	p.startLocked()
	return w
}

// drop ends one Wait's interest in w; the last one to leave stops the
// watch.
func (p *poller) drop(w *watch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.n--
	if w.n == 0 && p.jobs[w.h.ID] == w {
		delete(p.jobs, w.h.ID)
		p.wakeIfIdleLocked()
	}
}

// wakeIfIdleLocked lets the loop end now rather than after its wait, once
// nothing is watched.
func (p *poller) wakeIfIdleLocked() {
	if len(p.jobs) == 0 && p.awaiting == 0 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// nudge brings the next poll to one interval after the last (after a
// Cancel, whose job will soon end).
func (p *poller) nudge() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nudgeLocked()
}

func (p *poller) nudgeLocked() {
	p.reset = true
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *poller) startLocked() {
	if !p.running {
		p.running = true
		go p.loop()
	}
}

// awaitUp blocks until a poll reaches the controller (or ctx ends): a
// submission the controller did not answer waits on it, so an outage costs
// one query an interval however many submissions wait.
func (p *poller) awaitUp(ctx context.Context) error {
	p.mu.Lock()
	if p.up == nil {
		p.up = make(chan struct{})
	}
	up := p.up
	p.awaiting++
	p.startLocked()
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.awaiting--
		p.wakeIfIdleLocked()
		p.mu.Unlock()
	}()
	select {
	case <-up:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *poller) markUp() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up != nil {
		close(p.up)
		p.up = nil
	}
}

// loop polls while anything is waited on, each poll at least p.every after
// the last, the gap doubling (to p.most) while polls see nothing change.
func (p *poller) loop() {
	gap := p.every
	var timer <-chan time.Time // fires at due
	var due time.Time
	for {
		p.mu.Lock()
		if len(p.jobs) == 0 && p.awaiting == 0 {
			p.running = false
			p.mu.Unlock()
			return
		}
		if p.reset {
			gap, p.reset = p.every, false
		}
		next, now := p.last.Add(gap), p.clk.Now()
		p.mu.Unlock()
		if !p.last.IsZero() && next.After(now) {
			// A wake that leaves the time of the next poll as it was
			// keeps the timer.
			if timer == nil || !next.Equal(due) {
				timer, due = p.clk.After(next.Sub(now)), next
			}
			select {
			case <-timer:
			case <-p.wake:
				continue // a job came or went, or Cancel was called: think again
			}
		}
		timer = nil
		if p.poll() {
			gap = p.every
		} else {
			gap = min(2*gap, p.most)
		}
	}
}

// poll asks about every watched job once and ends the watches of jobs that
// ended. It reports whether any job's state changed.
func (p *poller) poll() bool {
	p.mu.Lock()
	p.last = p.clk.Now()
	ids := make([]string, 0, len(p.jobs))
	for id := range p.jobs {
		ids = append(ids, id)
	}
	p.mu.Unlock()
	ctx := context.Background()
	if len(ids) == 0 {
		// Only submissions wait: ask whether the controller is back.
		if out, err := p.run.Run(ctx, "scontrol", "ping"); err == nil && controllersDown(out) == "" {
			p.markUp()
		}
		return false
	}
	infos, complete, err := p.list(ctx, ids)
	if err != nil {
		return false // the controller is down or restarting: ask again later
	}
	p.markUp()
	forgotten := map[string]bool{}
	if complete {
		var gone []string
		for _, id := range ids {
			if _, ok := infos[id]; !ok {
				gone = append(gone, id)
			}
		}
		if len(gone) > 0 {
			p.account(ctx, gone, infos, forgotten)
		}
	}
	return p.deliver(infos, forgotten)
}

// list is one squeue for all of ids (an array's tasks asked for by the
// array's id); complete is false when some line did not parse, so a job
// missing from it may be on that line.
func (p *poller) list(ctx context.Context, ids []string) (map[string]Info, bool, error) {
	bases := make([]string, len(ids))
	for i, id := range ids {
		bases[i] = baseID(id)
	}
	jobs := jobList(bases)
	if len(jobs) > p.max {
		jobs = "" // all of the user's, each kept or not here
	}
	out, err := p.run.Run(ctx, "squeue", squeueArgs(p.user, jobs)...)
	if err != nil {
		// squeue asked about one job it does not know fails; about several,
		// it lists those it knows.
		if says(err, "Invalid job id specified") {
			return map[string]Info{}, true, nil
		}
		return nil, false, err
	}
	infos, bad := ParseSqueue(out)
	return infos, bad == 0, nil
}

// account asks accounting, in one sacct, about jobs the controller no
// longer lists: what it finds goes into infos, the rest into forgotten.
// Jobs past one argument's worth wait for the next poll.
func (p *poller) account(ctx context.Context, gone []string, infos map[string]Info, forgotten map[string]bool) {
	list := jobList(gone)
	if len(list) > p.max {
		if i := strings.LastIndexByte(list[:p.max], ','); i > 0 {
			list = list[:i]
		}
	}
	asked := strings.Split(list, ",")
	p.mu.Lock()
	noAcct := p.noAcct
	p.mu.Unlock()
	if !noAcct {
		out, err := p.run.Run(ctx, "sacct", sacctArgs(list)...)
		if says(err, "accounting storage is disabled") {
			p.mu.Lock()
			p.noAcct = true
			p.mu.Unlock()
		}
		if err == nil {
			found, _ := ParseSacct(out)
			for _, id := range asked {
				if in, ok := found[id]; ok {
					infos[id] = in
				}
			}
		}
	}
	for _, id := range asked {
		if _, ok := infos[id]; !ok {
			forgotten[id] = true
		}
	}
}

// deliver ends the watches of the jobs a poll found ended, or forgotten by
// controller and accounting alike (then their directory says how they
// ended). It reports whether any watched job changed state.
func (p *poller) deliver(infos map[string]Info, forgotten map[string]bool) bool {
	changed := false
	var lost []*watch
	p.mu.Lock()
	for id, w := range p.jobs {
		if forgotten[id] {
			delete(p.jobs, id)
			lost = append(lost, w)
			changed = true
			continue
		}
		in, ok := infos[id]
		if !ok {
			continue
		}
		if in.JobState != w.state {
			w.state, changed = in.JobState, true
		}
		if st := in.Status(); st.State.Done() {
			w.st = st
			delete(p.jobs, id)
			close(w.done)
		}
	}
	p.mu.Unlock()
	for _, w := range lost {
		w.st = unknown(w.h)
		close(w.done)
	}
	return changed
}

// unknown reports a job the controller no longer knows (purged after
// MinJobAge, or a controller that lost its state) and accounting does not
// either: the wrapper's exit file says how it ended, if it got that far.
func unknown(h executor.Handle) executor.Status {
	if code, ok := executor.ReadExit(h.Dir); ok && h.Dir != "" {
		st := executor.Status{State: executor.Completed, ExitCode: code}
		if code != 0 {
			st.State, st.Reason = executor.Failed, "exit code "+strconv.Itoa(code)
		}
		return st
	}
	if executor.WasCancelled(h.Dir) {
		return executor.Status{State: executor.Cancelled, CancelledByUs: true, Reason: "cancelled"}
	}
	return executor.Status{State: executor.Lost, Reason: "Slurm no longer knows job " + h.ID + " and it left no exit code"}
}
