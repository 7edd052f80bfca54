package journal

import (
	"errors"
	"sync"
)

// Memory is a journal kept in the process instead of a database file: for
// a rehearsal whose folder is removed when it ends, so that nothing reads
// its journal but the process that writes it. The journal's bookkeeping is
// the same (a key reserved once, calls and policy updates found again on
// resume); only the store differs, and an event costs an append instead of
// an SQLite insert. A journal opened again with the same Memory (a
// rehearsal's resume) continues it. Nothing of it survives the process:
// never for a run that spends a budget.
type Memory struct {
	mu  sync.Mutex
	log []Event
	// open is set while a journal holds the Memory: one writer at a time,
	// as the run lock makes it for a file.
	open bool
}

// NewMemory returns an empty in-process journal store.
func NewMemory() *Memory { return &Memory{} }

// errMemoryInUse is Open's error for a Memory another journal holds.
var errMemoryInUse = errors.New("the in-process journal is open in another journal")

func (m *Memory) acquire() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.open {
		return errMemoryInUse
	}
	m.open = true
	return nil
}

func (m *Memory) load(apply func(Event)) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.log {
		apply(e)
	}
	if n := len(m.log); n > 0 {
		return m.log[n-1].Seq, nil
	}
	return 0, nil
}

// write keeps the batch's events (their data is the journal's own: event
// marshals a value, and callers hand over the bytes they append).
func (m *Memory) write(batch []Event) error {
	m.mu.Lock()
	m.log = append(m.log, batch...)
	m.mu.Unlock()
	return nil
}

func (m *Memory) events(kind string) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Event
	for _, e := range m.log {
		if kind == "" || e.Kind == kind {
			out = append(out, e)
		}
	}
	return out, nil
}

func (m *Memory) last(kind, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.log) - 1; i >= 0; i-- {
		if e := m.log[i]; e.Kind == kind && e.Key == key {
			return e.Data, true, nil
		}
	}
	return nil, false, nil
}

func (m *Memory) close() error {
	m.mu.Lock()
	m.open = false
	m.mu.Unlock()
	return nil
}
