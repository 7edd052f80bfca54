package runtime

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assay-lang/assay/base/boundedfile"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins/payload"
)

// The criteria store keeps what criteria roles generated, so that a later
// run of any spec on the same task reuses the text without a call. It is
// a directory of the runs directory (CriteriaStoreDir), one JSON file per
// answer, named by the SHA-256 of everything that determines the answer
// (criteriaIdentity): a changed task, prompt, model, endpoint or sampling
// parameter names another entry and is asked again.
const (
	// CriteriaStoreDir is the store's directory under the runs directory;
	// a run id cannot begin with '.', so it is no run's.
	CriteriaStoreDir = ".criteria"
	// maxStoredCriteria bounds one entry's text (a criteria file's bound)
	// and maxStoreEntry its file; a larger answer is not stored.
	maxStoredCriteria = 256 << 10
	maxStoreEntry     = maxStoredCriteria*6 + 64<<10
	// storeVersion is the entry format's; another is not read.
	storeVersion = 1
)

// maxStoreEntries bounds the store: past it, new answers are used by
// their run but not stored. A variable for its test.
var maxStoreEntries = 10000

var storeNameRE = regexp.MustCompile(`^[0-9a-f]{64}\.json$`)

// criteriaIdentity is what determines a criteria role's answer: the
// request about the task (its env, name, manifest description and
// domain), the role's kind, model, sampling parameters, prompt templates
// and answer format, and its plugin (source, version, configuration: the
// endpoint). The run's seed is not part of it: the criteria of a task are
// asked once, whatever the seed.
type criteriaIdentity struct {
	Version         int                      `json:"version"`
	Request         payload.SummarizeRequest `json:"request"`
	Kind            string                   `json:"kind"`
	Model           string                   `json:"model,omitempty"`
	Temperature     float64                  `json:"temperature"`
	MaxTokens       int                      `json:"max_tokens,omitempty"`
	MaxPromptTokens int                      `json:"max_prompt_tokens,omitempty"`
	System          string                   `json:"system,omitempty"`
	User            string                   `json:"user,omitempty"`
	Answer          *plan.Answer             `json:"answer,omitempty"`
	Plugin          storedPlugin             `json:"plugin"`
}

type storedPlugin struct {
	Source  string         `json:"source"`
	Version string         `json:"version,omitempty"`
	Config  map[string]any `json:"config,omitempty"`
}

// storedCriteria is one entry of the store.
type storedCriteria struct {
	Identity criteriaIdentity `json:"identity"`
	Text     string           `json:"text"`
	// Run and Role say where the text came from; At when.
	Run  string    `json:"run"`
	Role string    `json:"role"`
	At   time.Time `json:"at"`
}

// digest is the identity's SHA-256, the entry's name.
func (id *criteriaIdentity) digest() (string, error) {
	b, err := json.Marshal(id)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// criteriaIdentityOf is the identity of role's answer to req.
func criteriaIdentityOf(v *plan.Variant, role *plan.Role, req payload.SummarizeRequest) criteriaIdentity {
	id := criteriaIdentity{Version: storeVersion, Request: req, Kind: role.Kind, Model: role.Model,
		Temperature: role.Temperature, Answer: role.Answer}
	if role.TokensOut.High > 0 {
		id.MaxTokens = tokenBound(role.TokensOut.High)
	}
	if role.TokensIn.High > 0 {
		id.MaxPromptTokens = tokenBound(role.TokensIn.High)
	}
	if role.Prompt != nil {
		id.System, id.User = role.Prompt.System, role.Prompt.User
	}
	for _, p := range v.Plugins {
		if p.Name == role.Plugin {
			id.Plugin = storedPlugin{Source: p.Source, Version: p.Version, Config: p.Config}
		}
	}
	return id
}

// criteriaStore is the store in a runs directory.
type criteriaStore struct{ dir string }

func storeIn(runsDir string) criteriaStore {
	return criteriaStore{dir: filepath.Join(runsDir, CriteriaStoreDir)}
}

// storeOf is the store of a run's runs directory; none for a rehearsal,
// whose runs directory is a scratch one.
func storeOf(opts Options) (criteriaStore, bool) {
	if opts.Scratch || opts.Dir == "" {
		return criteriaStore{}, false
	}
	return storeIn(opts.Dir), true
}

// get is the stored text of the identity's digest d; found is false
// without an entry. An entry that cannot be read (too large, not JSON,
// another version, another identity, a text over its bound) is an error:
// the caller asks the role again and stores the new answer over it.
func (s criteriaStore) get(d string, id *criteriaIdentity) (text string, found bool, err error) {
	path := filepath.Join(s.dir, d+".json")
	// Read as every file a user can put in place is: regular and bounded,
	// so an entry that is a pipe or a device is refused, not waited on.
	b, err := boundedfile.Read(path, maxStoreEntry)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err == nil {
		text, err = decodeEntry(b, d, id)
	}
	if err != nil {
		return "", false, fmt.Errorf("criteria store entry %s: %v", path, err)
	}
	return text, true, nil
}

// decodeEntry is the text of an entry's bytes b read under digest d, when
// it is id's whole, valid entry.
func decodeEntry(b []byte, d string, id *criteriaIdentity) (string, error) {
	var e storedCriteria
	if err := json.Unmarshal(b, &e); err != nil {
		return "", err
	}
	if err := e.check(d, id); err != nil {
		return "", err
	}
	return e.Text, nil
}

// check says why an entry read under digest d is not the answer of id.
func (e *storedCriteria) check(d string, id *criteriaIdentity) error {
	if e.Identity.Version != storeVersion {
		return fmt.Errorf("version %d, not %d", e.Identity.Version, storeVersion)
	}
	got, err := e.Identity.digest()
	if err != nil || got != d {
		return errors.New("its identity does not hash to its name")
	}
	want, err := id.digest()
	if err != nil || want != d {
		return errors.New("it is another request's")
	}
	if e.Text == "" || len(e.Text) > maxStoredCriteria || !utf8.ValidString(e.Text) {
		return fmt.Errorf("its text is empty, over %d bytes or not UTF-8", maxStoredCriteria)
	}
	return nil
}

// put stores text under digest d, atomically (a temporary file renamed
// into place), so a reader sees a whole entry or none. A text over its
// bound, or a store at its entry bound, is not stored (stored false).
func (s criteriaStore) put(d string, e *storedCriteria) (stored bool, err error) {
	if e.Text == "" || len(e.Text) > maxStoredCriteria || !utf8.ValidString(e.Text) {
		return false, nil
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return false, err
	}
	if _, err := os.Stat(filepath.Join(s.dir, d+".json")); err != nil {
		n, err := s.count()
		if err != nil || n >= maxStoreEntries {
			return false, err
		}
	}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return false, err
	}
	return true, writeFileAtomic(filepath.Join(s.dir, d+".json"), b)
}

// count is how many entries the store holds.
func (s criteriaStore) count() (int, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		if storeNameRE.MatchString(e.Name()) {
			n++
		}
	}
	return n, nil
}

// storeTaskFile is the file name of a task's criteria in a criteria_dir:
// TASK.md, for a task name that is a plain file name.
func storeTaskFile(task string) (string, error) {
	if task == "" || task == "." || task == ".." || strings.ContainsAny(task, `/\`+"\x00") || len(task) > 200 {
		return "", fmt.Errorf("task %q cannot name a criteria file", task)
	}
	return task + ".md", nil
}
