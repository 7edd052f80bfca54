package journal

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/assay-lang/assay/plugins"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Event kinds.
const (
	KindMeta        = "meta"
	KindCall        = "call"        // an LLM call and its result
	KindReserve     = "reserve"     // a real run's budget reservation
	KindStarted     = "started"     // a real run's handle
	KindRerun       = "rerun"       // a started run the trainer lost, started again
	KindFinished    = "finished"    // a real run's result
	KindReward      = "reward"      // the reward of a proposal
	KindPolicy      = "policy"      // a policy update and the new state
	KindCalibration = "calibration" // a calibration round's monitoring figures
	KindPhaseStart  = "phase_start"
	KindPhaseEnd    = "phase_end"
	KindStep        = "step"        // per-step figures of a loop
	KindEval        = "eval"        // evaluation figures
	KindCriticEval  = "critic_eval" // a static critic evaluation's figures
	KindState       = "state"       // the run's state (running, finished, failed)

	KindCritic = "critic" // a critic training's kept critique of a pair
)

// batchSize is how many buffered events make a group commit.
const batchSize = 128

// Event is one row of the journal.
type Event struct {
	Seq  int64
	Kind string
	Key  string
	Data json.RawMessage
	At   time.Time
}

// Reservation is the budget a real run holds from before it starts.
type Reservation struct {
	Env      string  `json:"env"`
	Task     string  `json:"task"`
	GPUHours float64 `json:"gpu_hours"`
	USD      float64 `json:"usd"`
	// Proposal is what the run trains; Baseline and Minimize turn its
	// metric into a gain for reports (Baseline is nil for a baseline run).
	Proposal *plugins.Proposal `json:"proposal,omitempty"`
	Baseline *float64          `json:"baseline,omitempty"`
	Minimize bool              `json:"minimize,omitempty"`
	// Phase is the plan phase whose count the run belongs to.
	Phase string `json:"phase,omitempty"`
	// Lineage is set for a candidate made against a parent program (an
	// evolution loop's child, a parent-conditioned RL candidate): what a
	// pairs export needs to pair it with its parent.
	Lineage *Lineage `json:"lineage,omitempty"`
}

// Lineage ties a candidate's real run to the parent program it was made
// against.
type Lineage struct {
	// Candidate is the candidate's key: its LLM calls are journaled under
	// it (CANDIDATE/summarize), and a retried run's key is CANDIDATE~N.
	Candidate string `json:"candidate"`
	// Parent is the parent program.
	Parent plugins.Proposal `json:"parent"`
	// ParentCandidate is the candidate key of the real run that measured
	// the parent (its Lineage.Candidate); "" for the task's reference
	// configuration, whose metric is the reservation's Baseline.
	ParentCandidate string `json:"parent_candidate,omitempty"`
	// ParentUnmeasured marks a parent no real run measured (an RL line
	// that moved to a child the critic judged without a run).
	ParentUnmeasured bool `json:"parent_unmeasured,omitempty"`
}

// Run is the bookkeeping of one real run, rebuilt from the journal.
type Run struct {
	Key         string
	Reservation Reservation
	Handle      *plugins.RunHandle
	Result      *plugins.RunResult
	// Reruns counts the times the run was started again because its
	// trainer no longer knew it (ErrUnknownRun): each may have spent
	// resources a second time.
	Reruns int
}

// Rerun is why a started run was started again.
type Rerun struct {
	// Handle is the journaled handle the trainer no longer knew.
	Handle string `json:"handle"`
	Reason string `json:"reason"`
}

// Journal is an open run journal. It is safe for concurrent use.
type Journal struct {
	db   *sql.DB
	path string
	// lock is the held run lock (nil for a read-only journal).
	lock *os.File
	ro   bool

	mu      sync.Mutex
	cond    *sync.Cond
	pending []Event
	// spare is the last written batch's slice, kept for the next one:
	// growing a fresh slice for every batch was a twentieth of what a
	// rehearsal allocated.
	spare   []Event
	nextSeq int64
	// Group commit: one writer at a time flushes everything pending;
	// durable is the highest sequence number on disk; err is sticky.
	flushing bool
	durable  int64
	err      error
	runs     map[string]*Run
	order    []string // run keys in reservation order
	calls    map[string]json.RawMessage
	meta     map[string]json.RawMessage
	// loading is set while load folds the events on disk into memory.
	loading bool
	// now stamps events (time.Now unless SetClock gave another clock).
	now func() time.Time
	// inserts are the prepared INSERTs of n events (insertStmt).
	inserts map[int]*sql.Stmt
	// args and kinds are the flushing writer's: the INSERT's arguments,
	// reused from write to write, and each event kind boxed once.
	args  []any
	kinds map[string]any
}

// ErrEmpty is returned by OpenReadOnly for a journal file that holds no
// journal: the run stopped before it wrote its first event.
var ErrEmpty = errors.New("the journal is empty")

// ErrUnreadable is returned by OpenReadOnly for a journal that is not a
// readable journal database (corrupt, truncated, or not a journal).
var ErrUnreadable = errors.New("the journal cannot be read")

// Open opens (creating if needed) the journal at path for writing and loads
// its state. It holds the run's exclusive lock (journal.db.lock) until
// Close; while another process holds it, Open fails with a *LockedError
// (ErrLocked) saying which.
func Open(path string) (*Journal, error) { return OpenWith(path, Options{}) }

// Options configure OpenWith.
type Options struct {
	// NoSync leaves syncing the journal's writes to the operating system
	// (SQLite synchronous=OFF): a crash of the process loses nothing, a
	// crash of the machine may lose the last events. Its WAL index is in
	// the process (SQLite's exclusive locking mode), so no other process
	// reads it, status included, until Close. For rehearsals, whose
	// journal is scratch; never for a run that spends a budget.
	NoSync bool
}

// OpenWith is Open with options.
func OpenWith(path string, o Options) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	lock, err := runLock(path)
	if err != nil {
		return nil, err
	}
	j, err := open(path, o.NoSync)
	if err != nil {
		lock.Close()
		return nil, err
	}
	j.lock = lock
	return j, nil
}

func open(path string, noSync bool) (*Journal, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)"
	if noSync {
		// The WAL index in the process's memory instead of a shared
		// file: no other process reads a scratch journal while it is
		// open, and locking the shared index cost each transaction
		// several system calls.
		dsn += "&_pragma=locking_mode(EXCLUSIVE)&_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)"
	} else {
		dsn += "&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	// Events have no index but their sequence: every read of the journal
	// (load, status, report) scans them in order, and an index would cost
	// each of a run's hundreds of thousands of inserts a second B-tree
	// write.
	const schema = `
CREATE TABLE IF NOT EXISTS events (
	seq  INTEGER PRIMARY KEY,
	kind TEXT NOT NULL,
	key  TEXT NOT NULL,
	data BLOB,
	at   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
	key      TEXT PRIMARY KEY,
	reserved INTEGER NOT NULL
);`
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	j := &Journal{db: db, path: path, runs: map[string]*Run{}, calls: map[string]json.RawMessage{}, meta: map[string]json.RawMessage{}}
	j.cond = sync.NewCond(&j.mu)
	if err := j.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return j, nil
}

// OpenReadOnly opens an existing journal for reading (status, report),
// without the run lock, so it works while the run goes on. It changes
// nothing on disk and refuses writes. An empty file is ErrEmpty; a file
// that is not a readable journal is ErrUnreadable.
func OpenReadOnly(path string) (*Journal, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 {
		return nil, fmt.Errorf("journal %s: %w (0 bytes: the run stopped before it wrote anything)", path, ErrEmpty)
	}
	// No journal_mode pragma: WAL is recorded in the file, and setting it
	// would write.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	var tables int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'runs')`).Scan(&tables); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w: %v", path, ErrUnreadable, err)
	}
	if tables != 2 {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w (it has no event tables: the run stopped before it wrote anything)", path, ErrEmpty)
	}
	j := &Journal{db: db, path: path, ro: true, runs: map[string]*Run{}, calls: map[string]json.RawMessage{}, meta: map[string]json.RawMessage{}}
	j.cond = sync.NewCond(&j.mu)
	if err := j.load(); err != nil {
		db.Close()
		return nil, fmt.Errorf("journal %s: %w: %v", path, ErrUnreadable, err)
	}
	return j, nil
}

// SetClock makes the journal stamp events with now instead of time.Now
// (a rehearsal's virtual clock).
func (j *Journal) SetClock(now func() time.Time) {
	j.mu.Lock()
	j.now = now
	j.mu.Unlock()
}

// Path is the database file.
func (j *Journal) Path() string { return j.path }

func (j *Journal) load() error {
	j.loading = true
	defer func() { j.loading = false }()
	rows, err := j.db.Query(`SELECT seq, kind, key, data FROM events WHERE kind IN (?, ?, ?, ?, ?, ?, ?) ORDER BY seq`,
		KindMeta, KindCall, KindPolicy, KindReserve, KindStarted, KindRerun, KindFinished)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.Seq, &e.Kind, &e.Key, &e.Data); err != nil {
			return err
		}
		j.apply(e)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := j.db.QueryRow(`SELECT COALESCE(MAX(seq), 0) + 1 FROM events`).Scan(&j.nextSeq); err != nil {
		return err
	}
	j.durable = j.nextSeq - 1
	return nil
}

// apply folds an event into the in-memory state. Called with mu held (or
// during load).
func (j *Journal) apply(e Event) {
	switch e.Kind {
	case KindMeta:
		j.meta[e.Key] = e.Data
	case KindCall, KindPolicy:
		if !j.loading {
			// A run's call keys are unique: a call made since Open is
			// never asked for again, and keeping each one's answer would
			// grow a long run's memory (and the collector's work) by
			// every call it makes.
			return
		}
		j.calls[e.Kind+"\x00"+e.Key] = e.Data
	case KindReserve:
		if _, ok := j.runs[e.Key]; ok {
			return
		}
		r := &Run{Key: e.Key}
		_ = json.Unmarshal(e.Data, &r.Reservation)
		j.runs[e.Key] = r
		j.order = append(j.order, e.Key)
	case KindStarted:
		if r := j.runs[e.Key]; r != nil {
			var h plugins.RunHandle
			if json.Unmarshal(e.Data, &h) == nil {
				r.Handle = &h
			}
		}
	case KindRerun:
		if r := j.runs[e.Key]; r != nil {
			r.Reruns++
		}
	case KindFinished:
		if r := j.runs[e.Key]; r != nil {
			var res plugins.RunResult
			if json.Unmarshal(e.Data, &res) == nil {
				r.Result = &res
			}
		}
	}
}

func (j *Journal) event(kind, key string, v any) (Event, error) {
	if j.ro {
		return Event{}, fmt.Errorf("journal %s: opened read-only; %s %s not written", j.path, kind, key)
	}
	var data []byte
	switch x := v.(type) {
	case nil:
	case json.RawMessage:
		data = x
	case []byte:
		data = x
	default:
		var err error
		if data, err = json.Marshal(v); err != nil {
			return Event{}, fmt.Errorf("journal: %s %s: %w", kind, key, err)
		}
	}
	now := time.Now
	if j.now != nil {
		now = j.now
	}
	e := Event{Seq: j.nextSeq, Kind: kind, Key: key, Data: data, At: now()}
	j.nextSeq++
	return e, nil
}

// Append buffers an event; it reaches the disk with the next group commit
// (every batchSize events, or at Flush or any Commit).
func (j *Journal) Append(kind, key string, v any) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, err := j.event(kind, key, v)
	if err != nil {
		return err
	}
	j.pending = append(j.pending, e)
	j.apply(e)
	if len(j.pending) >= batchSize && !j.flushing {
		return j.syncLocked(e.Seq)
	}
	return j.err
}

// Adopt journals a call or policy event (KindCall, KindPolicy) taken from
// another run's journal and, unlike Append, keeps it for Call, as if it had
// been on disk at Open: a replay hands the earlier run's policy updates to
// the code that takes a resumed run's from its own journal.
func (j *Journal) Adopt(kind, key string, data json.RawMessage) error {
	if kind != KindCall && kind != KindPolicy {
		return fmt.Errorf("journal: adopt %s %s: only call and policy events can be adopted", kind, key)
	}
	if err := j.Append(kind, key, data); err != nil {
		return err
	}
	j.mu.Lock()
	j.calls[kind+"\x00"+key] = data
	j.mu.Unlock()
	return nil
}

// Commit writes an event and everything buffered before it durably before
// returning. Concurrent commits share one transaction (group commit): each
// caller still returns only once its own event is on disk.
func (j *Journal) Commit(kind, key string, v any) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, err := j.event(kind, key, v)
	if err != nil {
		return err
	}
	j.pending = append(j.pending, e)
	if err := j.syncLocked(e.Seq); err != nil {
		return err
	}
	j.apply(e)
	return nil
}

// Flush commits the buffered events.
func (j *Journal) Flush() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.syncLocked(j.nextSeq - 1)
}

// syncLocked returns once every event up to seq is durable. Called with mu
// held. The first caller to find no write in progress writes everything
// pending in one transaction, without holding mu, so other callers queue
// their events meanwhile and the next write takes them all.
func (j *Journal) syncLocked(seq int64) error {
	for j.durable < seq && j.err == nil {
		if j.flushing {
			j.cond.Wait()
			continue
		}
		if len(j.pending) == 0 {
			break
		}
		batch := j.pending
		j.pending, j.spare = j.spare[:0], nil
		j.flushing = true
		j.mu.Unlock()
		err := j.write(batch)
		j.mu.Lock()
		j.flushing = false
		if err != nil {
			j.err = fmt.Errorf("journal %s: %w", j.path, err)
		} else {
			j.durable = batch[len(batch)-1].Seq
		}
		// Nothing holds the written events: apply keeps their data, not
		// the slice, and Last reads only pending.
		clear(batch)
		j.spare = batch[:0]
		j.cond.Broadcast()
	}
	return j.err
}

// write inserts events in one transaction; a reservation also claims its
// key in the runs table, whose primary key forbids a second claim. Events
// go in rows of up to insertRows per statement: a rehearsal writes
// hundreds of thousands, and one statement each made the database/sql
// round trip most of the cost.
func (j *Journal) write(batch []Event) error {
	// The statements are prepared before the transaction takes the one
	// connection.
	for _, n := range []int{min(len(batch), insertRows), len(batch) % insertRows} {
		if _, err := j.insertStmt(n); err != nil {
			return err
		}
	}
	tx, err := j.db.Begin()
	if err != nil {
		return err
	}
	if err := j.insertEvents(tx, batch); err != nil {
		tx.Rollback()
		return err
	}
	for _, e := range batch {
		if e.Kind == KindReserve {
			if _, err := tx.Exec(`INSERT INTO runs(key, reserved) VALUES (?, ?)`, e.Key, e.Seq); err != nil {
				tx.Rollback()
				return err
			}
		}
	}
	return tx.Commit()
}

// insertRows is the most events one INSERT statement writes (5 bound
// values each, far below SQLite's limit on variables).
const insertRows = 64

func (j *Journal) insertEvents(tx *sql.Tx, batch []Event) error {
	if j.kinds == nil {
		j.kinds = map[string]any{}
	}
	args := j.args
	defer func() { clear(args[:cap(args)]); j.args = args[:0] }()
	for len(batch) > 0 {
		n := min(len(batch), insertRows)
		st, err := j.insertStmt(n)
		if err != nil {
			return err
		}
		args = args[:0]
		for _, e := range batch[:n] {
			kind, ok := j.kinds[e.Kind]
			if !ok {
				kind = e.Kind
				j.kinds[e.Kind] = kind
			}
			args = append(args, e.Seq, kind, e.Key, []byte(e.Data), e.At.UnixNano())
		}
		if _, err := tx.Stmt(st).Exec(args...); err != nil {
			return err
		}
		batch = batch[n:]
	}
	return nil
}

// insertStmt is the prepared INSERT of n events, prepared once per
// journal: preparing it per write cost as much as the insert. Only the
// one flushing writer calls it, outside a transaction (the database has
// one connection).
func (j *Journal) insertStmt(n int) (*sql.Stmt, error) {
	if st := j.inserts[n]; st != nil || n == 0 {
		return st, nil
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO events(seq, kind, key, data, at) VALUES `)
	for i := range n {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString(`(?, ?, ?, ?, ?)`)
	}
	st, err := j.db.Prepare(q.String())
	if err != nil {
		return nil, err
	}
	if j.inserts == nil {
		j.inserts = map[int]*sql.Stmt{}
	}
	j.inserts[n] = st
	return st, nil
}

// ErrReserved is returned by Reserve for a key that already holds a
// reservation.
var ErrReserved = errors.New("run key already reserved")

// Reserve durably records a real run's reservation. A key is reserved at
// most once (checked in memory and by the database's primary key); a
// second Reserve of the same key returns ErrReserved and the first
// reservation.
func (j *Journal) Reserve(key string, r Reservation) (*Run, error) {
	runs, err := j.ReserveMany([]string{key}, []Reservation{r})
	if len(runs) == 1 && runs[0] != nil {
		return runs[0], err
	}
	return nil, err
}

// ReserveMany reserves several runs in one durable transaction. It stops
// at the first key already reserved (ErrReserved), after committing the
// ones before it.
func (j *Journal) ReserveMany(keys []string, rs []Reservation) ([]*Run, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []*Run
	var dup error
	for i, key := range keys {
		if old, ok := j.runs[key]; ok {
			out = append(out, old)
			dup = ErrReserved
			break
		}
		e, err := j.event(KindReserve, key, rs[i])
		if err != nil {
			return out, err
		}
		j.pending = append(j.pending, e)
		j.apply(e)
		out = append(out, j.runs[key])
	}
	if err := j.syncLocked(j.nextSeq - 1); err != nil {
		return nil, fmt.Errorf("journal: reserve: %w", err)
	}
	return out, dup
}

// Started durably records a real run's handle.
func (j *Journal) Started(key string, h *plugins.RunHandle) error {
	return j.Commit(KindStarted, key, h)
}

// Rerun durably records that a started run is started again because its
// trainer no longer knows it; it is on disk before the second Start.
func (j *Journal) Rerun(key string, rr Rerun) error {
	return j.Commit(KindRerun, key, rr)
}

// Finished durably records a real run's result; it is on disk before the
// runtime acts on it.
func (j *Journal) Finished(key string, res *plugins.RunResult) error {
	return j.Commit(KindFinished, key, res)
}

// Run returns the bookkeeping of a real run key.
func (j *Journal) Run(key string) (Run, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	r, ok := j.runs[key]
	if !ok {
		return Run{}, false
	}
	return *r, true
}

// Runs returns every reserved run in reservation order.
func (j *Journal) Runs() []Run {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Run, 0, len(j.order))
	for _, k := range j.order {
		out = append(out, *j.runs[k])
	}
	return out
}

// Call returns the journaled result of a plugin call key (KindCall) or of a
// policy update (KindPolicy) that was on disk when the journal was opened:
// a run's call keys are unique, so one journaled since is not asked for
// again in the same process and is not kept in memory.
func (j *Journal) Call(kind, key string) (json.RawMessage, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	d, ok := j.calls[kind+"\x00"+key]
	return d, ok
}

// Meta returns a meta value.
func (j *Journal) Meta(key string, v any) bool {
	j.mu.Lock()
	d, ok := j.meta[key]
	j.mu.Unlock()
	if !ok {
		return false
	}
	return json.Unmarshal(d, v) == nil
}

// SetMeta durably records a meta value.
func (j *Journal) SetMeta(key string, v any) error { return j.Commit(KindMeta, key, v) }

// Events returns the committed and buffered events of a kind (all kinds
// when kind is ""), in sequence order.
func (j *Journal) Events(kind string) ([]Event, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.syncLocked(j.nextSeq - 1); err != nil {
		return nil, err
	}
	q := `SELECT seq, kind, key, data, at FROM events ORDER BY seq`
	var args []any
	if kind != "" {
		q = `SELECT seq, kind, key, data, at FROM events WHERE kind = ? ORDER BY seq`
		args = append(args, kind)
	}
	rows, err := j.db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var at int64
		if err := rows.Scan(&e.Seq, &e.Kind, &e.Key, &e.Data, &at); err != nil {
			return nil, err
		}
		e.At = time.Unix(0, at)
		out = append(out, e)
	}
	return out, rows.Err()
}

// Last returns the data of the last event of kind with key, if any.
func (j *Journal) Last(kind, key string) (json.RawMessage, bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.pending) - 1; i >= 0; i-- {
		if e := j.pending[i]; e.Kind == kind && e.Key == key {
			return e.Data, true, nil
		}
	}
	var d []byte
	err := j.db.QueryRow(`SELECT data FROM events WHERE kind = ? AND key = ? ORDER BY seq DESC LIMIT 1`, kind, key).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return d, true, nil
}

// Close flushes and closes the journal, and releases the run lock.
func (j *Journal) Close() error {
	err := j.Flush()
	for _, st := range j.inserts {
		st.Close()
	}
	if cerr := j.db.Close(); err == nil {
		err = cerr
	}
	if j.lock != nil {
		j.lock.Close() // closing the descriptor releases the flock
		j.lock = nil
	}
	return err
}
