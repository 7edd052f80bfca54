package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
)

// supervised is a plugin that is restarted when it dies.
type supervised struct {
	mu   sync.Mutex
	p    *plan.Plugin
	inst Instance
	gen  int
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
	if s.inst == nil {
		started := s.progress.pluginStarting(s.p)
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

// restart drops the instance of generation gen, so the next get starts a
// fresh one; concurrent callers that saw the same failure restart it once.
func (s *supervised) restart(gen int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inst != nil && s.gen == gen {
		_ = s.inst.Close()
		s.inst = nil
	}
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
		// A cap that stops a call, or an answer that cannot be read (which
		// the caller may ask again), is not the plugin's fault: no restart.
		if err == nil || errors.Is(err, plugins.ErrUnsupported) || isPermanent(err) || errors.Is(err, ErrBudget) || errors.Is(err, plugins.ErrUnparsed) {
			return err
		}
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		last = err
		s.restart(gen)
		if attempt < r.retries {
			r.progress.logf("plugin %s: %v; restarted it (retry %d of %d)", name, err, attempt+1, r.retries)
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
