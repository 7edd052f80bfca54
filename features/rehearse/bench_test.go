package rehearse

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkRehearse is one rehearsal of a full-scale spec of specs/: the
// whole plan through the runtime, with simulated plugins in process.
func BenchmarkRehearse(b *testing.B) {
	for _, name := range []string{"lm2lm.hcl", "critic-grpo.hcl"} {
		b.Run(name, func(b *testing.B) {
			p := compileSpec(b, filepath.Join("../../specs", name))
			for i := 0; b.Loop(); i++ {
				rep, err := Rehearse(context.Background(), p, Options{Runs: 1, Seed: int64(i), Dir: b.TempDir()})
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
