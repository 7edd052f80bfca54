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
	mu sync.Mutex
	// log holds the events in chunks of memChunk: one slice grown by
	// doubling copied a rehearsal's hundreds of thousands of events over
	// and over.
	log [][]Event
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

// memChunk is how many events one chunk of a Memory's log holds.
const memChunk = 4096

func (m *Memory) load(apply func(Event)) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var last int64
	for _, c := range m.log {
		for _, e := range c {
			apply(e)
			last = e.Seq
		}
	}
	return last, nil
}

// write keeps the batch's events (their data is the journal's own: event
// marshals a value, and callers hand over the bytes they append).
func (m *Memory) write(batch []Event) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(batch) > 0 {
		n := len(m.log)
		if n == 0 || len(m.log[n-1]) == memChunk {
			m.log = append(m.log, make([]Event, 0, memChunk))
			n++
		}
		c := m.log[n-1]
		k := min(len(batch), memChunk-len(c))
		m.log[n-1] = append(c, batch[:k]...)
		batch = batch[k:]
	}
	return nil
}

func (m *Memory) events(kind string) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Event
	for _, c := range m.log {
		for _, e := range c {
			if kind == "" || e.Kind == kind {
				out = append(out, e)
			}
		}
	}
	return out, nil
}

func (m *Memory) last(kind, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for ci := len(m.log) - 1; ci >= 0; ci-- {
		c := m.log[ci]
		for i := len(c) - 1; i >= 0; i-- {
			if e := c[i]; e.Kind == kind && e.Key == key {
				return e.Data, true, nil
			}
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
