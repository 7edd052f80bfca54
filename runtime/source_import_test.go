package runtime

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// An imported source is imported once per content under the runs
// directory; a resume keeps the import its journal records even after the
// directory changed, where a new run imports the change.
func TestSourceImportResumesItsImport(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "params.txt"), []byte(seedParams), 0o644); err != nil {
		t.Fatal(err)
	}
	runs := t.TempDir()
	resolve := func(journalDir string) *seedProgram {
		t.Helper()
		v := baseVariant()
		v.Envs[0].Tasks[0].Source = &plan.Source{Repository: plain, Editable: []string{"params.txt"}, Import: &plan.Import{}}
		j, err := journal.Open(filepath.Join(journalDir, "journal.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		loader := LoaderFunc(func(ctx context.Context, p *plan.Plugin) (Instance, error) {
			if p.Kind == plugins.KindTrainer {
				return &inst{t: newFakeTrainer()}, nil
			}
			return &inst{l: &scriptedBuilder{patches: []string{""}}}, nil
		})
		r := newService(context.Background(), v, j, journalDir, Options{ID: filepath.Base(journalDir), Dir: runs, Plugins: loader, Retries: 2})
		defer r.plugins.close()
		if err := r.resolveTasks(); err != nil {
			t.Fatal(err)
		}
		return r.tasks[0].src
	}
	first := filepath.Join(runs, "a")
	a := resolve(first)
	if filepath.Dir(a.repo.Dir) != filepath.Join(runs, ImportsDir) {
		t.Fatalf("imported into %s, want under %s", a.repo.Dir, filepath.Join(runs, ImportsDir))
	}
	if err := os.WriteFile(filepath.Join(plain, "params.txt"), []byte(seedParams+"depth = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if again := resolve(first); again.repo.Dir != a.repo.Dir || again.base != a.base {
		t.Errorf("the resume imported again: %s at %s, first %s at %s", again.repo.Dir, again.base, a.repo.Dir, a.base)
	}
	if b := resolve(filepath.Join(runs, "b")); b.repo.Dir == a.repo.Dir || b.base == a.base {
		t.Errorf("a new run of changed files reused the old import %s", b.repo.Dir)
	}
}
