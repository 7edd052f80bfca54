package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// maxRestarts is how many times in a row a plugin is started again after
// its process died: a crash after the last call that succeeded counts, a
// call that succeeds starts the count again. One more crash stops the run
// with its cause, instead of starting a plugin that dies on every call
// without end.
const maxRestarts = 3

// supervised is a plugin that is restarted when it dies.
type supervised struct {
	mu   sync.Mutex
	p    *plan.Plugin
	inst Instance
	gen  int
	// restarts counts restarts since the last call that succeeded; dead is
	// the crash that went past maxRestarts, which every later call gets.
	restarts int
	dead     error
	// progress shows the plugin's start-up.
	progress *progress
}

// pluginSet is the plan's plugins, each supervised: started on first use,
// restarted when it dies, closed at the end of the run.
type pluginSet struct {
	ctx      context.Context
	plan     []*plan.Plugin
	loader   Loader
	retries  int
	progress *progress

	mu  sync.Mutex
	all map[string]*supervised
}

func (r *pluginSet) plugin(name string) (*supervised, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.all[name]; ok {
		return s, nil
	}
	for _, p := range r.plan {
		if p.Name == name {
			s := &supervised{p: p, progress: r.progress}
			r.all[name] = s
			return s, nil
		}
	}
	return nil, fmt.Errorf("no plugin %q in the plan", name)
}

// get returns the running instance (starting it if needed) and its
// generation.
func (s *supervised) get(ctx context.Context, l Loader) (Instance, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		// Checked under the lock: a call that saw the plugin alive before
		// another call's crash killed it for good must not start it again.
		return nil, s.gen, s.dead
	}
	if s.inst == nil {
		started := func(error) {}
		if r, ok := l.(replayedBy); !ok || !r.replaces(s.p) {
			started = s.progress.pluginStarting(s.p)
		} else if s.gen == 0 {
			s.progress.logf("plugin %s is not started: the journal of run %s answers for it", s.p.Name, r.replayed())
		}
		inst, err := l.Open(ctx, s.p)
		started(err)
		if err != nil {
			return nil, s.gen, fmt.Errorf("start plugin %s: %w", s.p.Name, err)
		}
		s.inst = inst
		s.gen++
	}
	return s.inst, s.gen, nil
}

// replayedBy is a replay's loader, which answers for some plugins from an
// earlier run's journal without starting them.
type replayedBy interface {
	replaces(p *plan.Plugin) bool
	replayed() string
}

// restart drops the instance of generation gen after it failed with err,
// so the next get starts a fresh one. Concurrent callers that saw the same
// failure restart it once: only the caller that did (first true) reports
// it. A call that failed on a live process (Alive) was the plugin's answer:
// the process is kept, since restarting it would break every other call in
// flight and not change the answer. Past maxRestarts the plugin is dead
// for the rest of the run (second result). n is the restart's number in
// the current row (0: this caller did not restart it), read under the
// lock, so two crashes in quick succession are numbered 1 and 2 however
// their callers interleave.
func (s *supervised) restart(gen int, err error) (n int, dead error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		return 0, s.dead
	}
	if s.inst == nil || s.gen != gen {
		return 0, nil
	}
	if a, ok := s.inst.(interface{ Alive() bool }); ok && a.Alive() && !errors.Is(err, plugins.ErrCrashed) {
		return 0, nil
	}
	_ = s.inst.Close()
	s.inst = nil
	if s.restarts >= maxRestarts {
		s.dead = plugins.WithKind(errPermanent, fmt.Errorf("plugin %s crashed %d times in a row, the last time: %w; the run stops (restarts are bounded at %d)",
			s.p.Name, s.restarts+1, err, maxRestarts))
		return 0, s.dead
	}
	s.restarts++
	return s.restarts, nil
}

// succeeded starts the count of restarts in a row again.
func (s *supervised) succeeded() {
	s.mu.Lock()
	s.restarts = 0
	s.mu.Unlock()
}

// deadErr is the crash that stopped the plugin for the run, or nil.
func (s *supervised) deadErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dead
}

// close stops every plugin that is running.
func (r *pluginSet) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.all {
		s.mu.Lock()
		if s.inst != nil {
			_ = s.inst.Close()
			s.inst = nil
		}
		s.mu.Unlock()
	}
}

// call runs fn against a plugin, restarting the plugin and retrying when the
// call fails (a dead plugin fails every call).
func (r *pluginSet) call(name string, fn func(Instance) error) error {
	s, err := r.plugin(name)
	if err != nil {
		return err
	}
	var last error
	for attempt := 0; attempt <= r.retries; attempt++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if err := s.deadErr(); err != nil {
			return err
		}
		inst, gen, err := s.get(r.ctx, r.loader)
		if err != nil {
			if isPermanent(err) || attempt == r.retries {
				// A plugin that cannot start fails every call and run after
				// it: stop, rather than spend the budget on failures.
				return fmt.Errorf("%w: plugin %s cannot start: %w", errPermanent, name, err)
			}
			last = err
			continue
		}
		err = fn(inst)
		if err == nil {
			s.succeeded()
			return nil
		}
		// A cap that stops a call, or an answer that cannot be read (which
		// the caller may ask again), is not the plugin's fault: no restart.
		if errors.Is(err, plugins.ErrUnsupported) || isPermanent(err) || errors.Is(err, ErrBudget) || errors.Is(err, plugins.ErrUnparsed) {
			return err
		}
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		last = err
		n, dead := s.restart(gen, err)
		if dead != nil {
			return dead
		}
		if n > 0 {
			// Once per crash, whatever number of calls saw it, and its
			// cause once: a plugin that dies again dies the same way.
			if n == 1 {
				r.progress.logf("plugin %s: %v; starting it again (restart 1 of at most %d in a row)", name, err, maxRestarts)
			} else {
				r.progress.logf("plugin %s crashed again; starting it again (restart %d of at most %d in a row)", name, n, maxRestarts)
			}
		}
	}
	return fmt.Errorf("plugin %s: %w", name, last)
}

// errPermanent marks an answer that retrying cannot fix (a malformed
// payload).
var errPermanent = errors.New("permanent")

// isPermanent reports whether retrying cannot fix err: the plugin is
// misconfigured, cannot start, or answered with something that breaks the
// protocol. Such an error stops the run instead of failing one call or run
// and going on.
func isPermanent(err error) bool {
	return errors.Is(err, errPermanent) || plugins.IsPermanent(err)
}
