package journal

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// store is where a journal's events are kept: a database file (sqliteStore)
// or the process's memory (Memory).
type store interface {
	// load calls apply for the events Open folds into memory, in sequence
	// order, and returns the highest sequence number stored.
	load(apply func(Event)) (int64, error)
	// write stores a batch of events at once; a reservation also claims
	// its key. Only one writer calls it at a time.
	write(batch []Event) error
	// events are the stored events of a kind ("" for all), in order.
	events(kind string) ([]Event, error)
	// last is the data of the last stored event of kind with key.
	last(kind, key string) ([]byte, bool, error)
	close() error
}

// sqliteStore is a journal in an SQLite database file.
type sqliteStore struct {
	db *sql.DB
	// inserts are the prepared INSERTs of n events (insertStmt).
	inserts map[int]*sql.Stmt
	// args and kinds are the flushing writer's: the INSERT's arguments,
	// reused from write to write, and each event kind boxed once.
	args  []any
	kinds map[string]any
}

// openSQLite opens (creating if needed) the journal database at path for
// writing.
func openSQLite(path string, noSync bool) (*sqliteStore, error) {
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
	return &sqliteStore{db: db}, nil
}

// openSQLiteReadOnly opens an existing journal database for reading; an
// empty file is ErrEmpty and one that is not a journal ErrUnreadable.
func openSQLiteReadOnly(path string) (*sqliteStore, error) {
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
	return &sqliteStore{db: db}, nil
}

func (s *sqliteStore) load(apply func(Event)) (int64, error) {
	rows, err := s.db.Query(`SELECT seq, kind, key, data FROM events WHERE kind IN (?, ?, ?, ?, ?, ?, ?, ?) ORDER BY seq`,
		KindMeta, KindCall, KindPolicy, KindCriteria, KindReserve, KindStarted, KindRerun, KindFinished)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.Seq, &e.Kind, &e.Key, &e.Data); err != nil {
			return 0, err
		}
		apply(e)
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	var last int64
	if err := s.db.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&last); err != nil {
		return 0, err
	}
	return last, nil
}

// write inserts events in one transaction; a reservation also claims its
// key in the runs table, whose primary key forbids a second claim. Events
// go in rows of up to insertRows per statement: a rehearsal writes
// hundreds of thousands, and one statement each made the database/sql
// round trip most of the cost.
func (s *sqliteStore) write(batch []Event) error {
	// The statements are prepared before the transaction takes the one
	// connection.
	for _, n := range []int{min(len(batch), insertRows), len(batch) % insertRows} {
		if _, err := s.insertStmt(n); err != nil {
			return err
		}
	}
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	if err := s.insertEvents(tx, batch); err != nil {
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

func (s *sqliteStore) insertEvents(tx *sql.Tx, batch []Event) error {
	if s.kinds == nil {
		s.kinds = map[string]any{}
	}
	args := s.args
	defer func() { clear(args[:cap(args)]); s.args = args[:0] }()
	for len(batch) > 0 {
		n := min(len(batch), insertRows)
		st, err := s.insertStmt(n)
		if err != nil {
			return err
		}
		args = args[:0]
		for _, e := range batch[:n] {
			kind, ok := s.kinds[e.Kind]
			if !ok {
				kind = e.Kind
				s.kinds[e.Kind] = kind
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
func (s *sqliteStore) insertStmt(n int) (*sql.Stmt, error) {
	if st := s.inserts[n]; st != nil || n == 0 {
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
	st, err := s.db.Prepare(q.String())
	if err != nil {
		return nil, err
	}
	if s.inserts == nil {
		s.inserts = map[int]*sql.Stmt{}
	}
	s.inserts[n] = st
	return st, nil
}

func (s *sqliteStore) events(kind string) ([]Event, error) {
	q := `SELECT seq, kind, key, data, at FROM events ORDER BY seq`
	var args []any
	if kind != "" {
		q = `SELECT seq, kind, key, data, at FROM events WHERE kind = ? ORDER BY seq`
		args = append(args, kind)
	}
	rows, err := s.db.Query(q, args...)
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

func (s *sqliteStore) last(kind, key string) ([]byte, bool, error) {
	var d []byte
	err := s.db.QueryRow(`SELECT data FROM events WHERE kind = ? AND key = ? ORDER BY seq DESC LIMIT 1`, kind, key).Scan(&d)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return d, true, nil
}

func (s *sqliteStore) close() error {
	for _, st := range s.inserts {
		st.Close()
	}
	return s.db.Close()
}
