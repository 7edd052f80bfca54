package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// LockSuffix names a journal's run lock file: journal.db.lock next to
// journal.db, in the run's directory.
const LockSuffix = ".lock"

// ErrLocked is returned (as a *LockedError) by Open when another process
// holds the run: a second `assay run` or `assay resume` of the same run.
var ErrLocked = errors.New("run is in use by another process")

// Holder says who holds a run lock.
type Holder struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// LockedError reports a run whose lock another process holds. Holder is
// nil when the lock file did not say who (it was being written).
type LockedError struct {
	Path   string
	Holder *Holder
}

func (e *LockedError) Error() string {
	who := "another process"
	if h := e.Holder; h != nil {
		who = fmt.Sprintf("pid %d on host %s since %s", h.PID, h.Host, h.Since.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("run journal %s is in use by %s: wait for that run to end or stop it (its lock goes with the process), then try again", e.Path, who)
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }

// lockWait is how long Open keeps trying for a lock that is held: long
// enough to ride out a status command probing it, short enough to report a
// run that is really in use at once.
const lockWait = time.Second

// runLock takes the exclusive run lock of the journal at path and records
// this process as its holder. The lock is a flock, so the kernel releases
// it when the process dies however it dies; a stale file only holds the
// last holder's description.
func runLock(path string) (*os.File, error) {
	lp := path + LockSuffix
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &LockedError{Path: path, Holder: readHolder(lp)}
			}
			return nil, fmt.Errorf("locking %s: %w", lp, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	host, _ := os.Hostname()
	b, _ := json.Marshal(Holder{PID: os.Getpid(), Host: host, Since: time.Now().UTC()})
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("writing %s: %w", lp, err)
	}
	return f, nil
}

func readHolder(lockPath string) *Holder {
	b, err := os.ReadFile(lockPath)
	if err != nil {
		return nil
	}
	var h Holder
	if json.Unmarshal(b, &h) != nil || h.PID == 0 {
		return nil
	}
	return &h
}

// HeldBy reports whether a process holds the run lock of the journal at
// path, and who. held is false when there is no lock file (a run that
// never took one).
func HeldBy(path string) (h *Holder, held bool, err error) {
	lp := path + LockSuffix
	f, err := os.Open(lp)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	// A shared probe: it only fails while a writer holds the lock.
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return nil, false, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, false, fmt.Errorf("probing %s: %w", lp, err)
	}
	return readHolder(lp), true, nil
}

// HasLockFile reports whether the journal at path has a run lock file, so
// HeldBy's answer means something (runs older than the lock have none).
func HasLockFile(path string) bool {
	_, err := os.Stat(path + LockSuffix)
	return err == nil
}
