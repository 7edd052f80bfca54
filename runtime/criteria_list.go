package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/assay-lang/assay/runtime/journal"
)

// TaskCriteria is a task's criteria a critic's criteria_role gave in a
// run, as its journal holds them.
type TaskCriteria struct {
	Critic string `json:"critic"`
	Env    string `json:"env"`
	Task   string `json:"task"`
	Role   string `json:"role"`
	// From is "generated" (a call of the role) or "reused" (the runs
	// directory's store, without a call).
	From   string `json:"from"`
	Digest string `json:"digest,omitempty"`
	Text   string `json:"text"`
}

// RunCriteria are the criteria run id's critics were given by their
// criteria_role, by critic, environment and task. It reads the journal
// read-only, as status does.
func RunCriteria(dir, id string) ([]TaskCriteria, error) {
	j, err := openRun(dir, id)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	evs, err := j.Events(journal.KindCriteria)
	if err != nil {
		return nil, err
	}
	var out []TaskCriteria
	for _, e := range evs {
		var rec criteriaRecord
		if err := json.Unmarshal(e.Data, &rec); err != nil {
			return nil, fmt.Errorf("run %s: criteria %s cannot be read: %v", id, e.Key, err)
		}
		out = append(out, TaskCriteria{Critic: rec.Critic, Env: rec.Env, Task: rec.Task, Role: rec.Role, From: rec.From, Digest: rec.Digest, Text: rec.Text})
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Critic != y.Critic {
			return x.Critic < y.Critic
		}
		if x.Env != y.Env {
			return x.Env < y.Env
		}
		return x.Task < y.Task
	})
	return out, nil
}

// WriteCriteriaDirs writes cs as criteria directories under out: one per
// critic, OUT/CRITIC/TASK.md, each usable as that critic's criteria_dir.
// A file that exists with other text is refused, never overwritten, as
// are two environments' tasks of one name with different criteria (a
// criteria_dir names a task alone). It returns the files written.
func WriteCriteriaDirs(out string, cs []TaskCriteria) ([]string, error) {
	texts := map[string]string{}
	perCritic := map[string]int{}
	var order []string
	for _, c := range cs {
		if c.Text == "" {
			continue
		}
		name, err := storeTaskFile(c.Task)
		if err != nil {
			return nil, err
		}
		if _, err := storeTaskFile(c.Critic); err != nil {
			return nil, fmt.Errorf("critic %q cannot name a directory", c.Critic)
		}
		path := filepath.Join(out, c.Critic, name)
		if was, ok := texts[path]; ok {
			if was != c.Text {
				return nil, fmt.Errorf("critic %s: two environments' tasks named %s have different criteria; a criteria_dir holds one file per task name", c.Critic, c.Task)
			}
			continue
		}
		texts[path] = c.Text
		order = append(order, path)
		if perCritic[c.Critic]++; perCritic[c.Critic] > maxCriteriaFiles {
			return nil, fmt.Errorf("critic %s: over %d criteria files; a criteria_dir holds at most %d", c.Critic, maxCriteriaFiles, maxCriteriaFiles)
		}
	}
	for _, path := range order {
		b := []byte(texts[path] + "\n")
		old, err := os.ReadFile(path)
		switch {
		case err == nil && bytes.Equal(old, b):
			continue
		case err == nil:
			return nil, fmt.Errorf("%s exists with other criteria; remove it or choose another --out", path)
		case !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
	}
	for _, path := range order {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := writeFileAtomic(path, []byte(texts[path]+"\n")); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// maxCriteriaFiles is how many files a criteria_dir may hold (lang/load).
const maxCriteriaFiles = 256
