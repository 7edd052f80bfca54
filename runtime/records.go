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
}

// history returns the last records of a task from the state pool.
func (r *recordStore) history(t *taskInfo) []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs := r.poolBy[t.Env+"/"+t.Name]
	if len(recs) == 0 {
		return nil
	}
	out := make([]record, 0, min(historyLen, len(recs)))
	for i := len(recs) - 1; i >= 0 && len(out) < historyLen; i-- {
		out = append(out, recs[i])
	}
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
	}
}

// count is how many records the world model's context holds.
func (r *recordStore) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.rwm)
}
