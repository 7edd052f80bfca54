package model

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

const trainPy = "# training settings\nlearning_rate = 0.003\nlayers = 4\nname = \"tiny\"\n"

func patchRequest(id string, repair int) *payload.ImplementRequest {
	return &payload.ImplementRequest{Task: "t", Proposal: plugins.Proposal{ID: id, Text: "a smaller learning rate"}, Repair: repair,
		Source: &payload.SourceContext{Commit: strings.Repeat("a", 40), Editable: []string{"train.py"},
			Files: []payload.SourceFile{{Path: "train.py", Content: trainPy}}}}
}

// In source mode the offline builder writes a unified diff that git
// applies to the files it was shown (a repair always; a first patch is
// sometimes stale and git refuses it), changing one numeric setting, the
// same for the same seed.
func TestImplementPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	stale, applied := 0, 0
	for seed := int64(1); seed <= 12; seed++ {
		for _, repair := range []int{0, 1} {
			resp := Implement(patchRequest("p", repair), seed)
			if resp.Infeasible || resp.Patch == "" || resp.Proposal.Patch != resp.Patch {
				t.Fatalf("seed %d: %+v", seed, resp)
			}
			if again := Implement(patchRequest("p", repair), seed); again.Patch != resp.Patch {
				t.Fatalf("seed %d: two patches for one seed", seed)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte(trainPy), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("git", "apply", "--unsafe-paths", "--directory=", "-")
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(resp.Patch)
			if out, err := cmd.CombinedOutput(); err != nil {
				if repair > 0 {
					t.Fatalf("seed %d: a repair's patch does not apply: %v\n%s\n%s", seed, err, out, resp.Patch)
				}
				stale++
				continue
			}
			applied++
			got, _ := os.ReadFile(filepath.Join(dir, "train.py"))
			if string(got) == trainPy || strings.Count(string(got), "\n") != strings.Count(trainPy, "\n") {
				t.Fatalf("seed %d: the patch made\n%s", seed, got)
			}
		}
	}
	if stale == 0 || applied == 0 {
		t.Fatalf("%d stale and %d applied first patches over 12 seeds: want some of each", stale, applied)
	}
	// An idea that names a setting changes that one.
	for seed := int64(1); seed <= 5; seed++ {
		req := patchRequest("n", 1)
		req.Proposal.Text = "I propose layers = 8, a change to the architecture."
		if resp := Implement(req, seed); !strings.Contains(resp.Patch, "-layers = 4") {
			t.Fatalf("seed %d: the idea names layers, the patch is\n%s", seed, resp.Patch)
		}
	}
	if resp := Implement(&payload.ImplementRequest{Proposal: plugins.Proposal{ID: "q"}, Source: &payload.SourceContext{Files: []payload.SourceFile{{Path: "x", Content: "no numbers here\n"}}}}, 1); !resp.Infeasible {
		t.Fatalf("a file without a numeric setting was patched: %+v", resp)
	}
}
