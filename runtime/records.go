package runtime

import "sync"

// taskList is the variant's tasks, resolved.
type taskList []*taskInfo

func (ts taskList) find(env, name string) *taskInfo {
	for _, t := range ts {
		if t.Env == env && t.Name == name {
			return t
		}
	}
	return nil
}

func (ts taskList) of(env, split string) []*taskInfo {
	var out []*taskInfo
	for _, t := range ts {
		if (env == "" || t.Env == env) && t.Split == split {
			out = append(out, t)
		}
	}
	return out
}

// recordStore is the world model's record context and the state pool
// (records by "env/task", for a state's history).
type recordStore struct {
	mu     sync.Mutex
	rwm    []record
	pool   []record
	poolBy map[string][]record
	// recent is each task's history as history last made it, until add
	// gives the task a record: a task is asked for its history by every
	// proposal made for it, and records come only with real runs.
	recent map[string][]record
}

// history returns the last records of a task from the state pool, newest
// first. The slice is shared with other callers until the task's next
// record: read it, never write it (its capacity is its length, so an
// append copies).
func (r *recordStore) history(t *taskInfo) []record {
	k := t.Env + "/" + t.Name
	r.mu.Lock()
	defer r.mu.Unlock()
	if out, ok := r.recent[k]; ok {
		return out
	}
	recs := r.poolBy[k]
	if len(recs) == 0 {
		return nil
	}
	out := make([]record, 0, min(historyLen, len(recs)))
	for i := len(recs) - 1; i >= 0 && len(out) < historyLen; i-- {
		out = append(out, recs[i])
	}
	out = out[:len(out):len(out)]
	if r.recent == nil {
		r.recent = map[string][]record{}
	}
	r.recent[k] = out
	return out
}

func (r *recordStore) context() []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]record(nil), r.rwm...)
}

// eachInContext calls fn, under the store's lock, with each record of
// task t in the world model's context: a rollout asks this for every task
// it samples, and copying a context of tens of thousands of records each
// time was most of a large rehearsal's time.
func (r *recordStore) eachInContext(t *taskInfo, fn func(*record)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.rwm {
		if rec := &r.rwm[i]; rec.Task == t.Name && rec.Env == t.Env {
			fn(rec)
		}
	}
}

func (r *recordStore) add(toContext bool, recs ...record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if toContext {
		r.rwm = append(r.rwm, recs...)
	}
	r.pool = append(r.pool, recs...)
	for _, rec := range recs {
		k := rec.Env + "/" + rec.Task
		r.poolBy[k] = append(r.poolBy[k], rec)
		delete(r.recent, k)
	}
}

// count is how many records the world model's context holds.
func (r *recordStore) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.rwm)
}
