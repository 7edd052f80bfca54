package rehearse

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkRehearse is one rehearsal of a full-scale spec of specs/, as
// `assay rehearse SPEC` makes it (world seed 1): the whole plan through
// the runtime, with simulated plugins in process. The same world each
// time, since worlds differ in work: critic-grpo's seed 0 makes 379,392
// LLM calls, seed 1 223,744.
func BenchmarkRehearse(b *testing.B) {
	for _, name := range []string{"lm2lm.hcl", "critic-grpo.hcl"} {
		b.Run(name, func(b *testing.B) {
			p := compileSpec(b, filepath.Join("../../specs", name))
			for b.Loop() {
				rep, err := Rehearse(context.Background(), p, Options{Runs: 1, Seed: 1, Dir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				if rep.Rehearsals[0].State != "finished" {
					b.Fatalf("state %s", rep.Rehearsals[0].State)
				}
			}
		})
	}
}

// BenchmarkRehearseRuns100 is `assay rehearse --runs 100 specs/lm2lm.hcl`:
// a hundred rehearsals, as many at once as there are cores, and their
// spread. One iteration takes about a minute: run it with -benchtime 1x.
func BenchmarkRehearseRuns100(b *testing.B) {
	p := compileSpec(b, filepath.Join("../../specs", "lm2lm.hcl"))
	for b.Loop() {
		rep, err := Rehearse(context.Background(), p, Options{Runs: 100, Seed: 1, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Rehearsals) != 100 {
			b.Fatalf("%d rehearsals, want 100", len(rep.Rehearsals))
		}
	}
}
