package rehearse

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRehearse is one rehearsal of a full-scale spec of specs/, as
// `assay rehearse SPEC` makes it (world seed 1, the journal in memory):
// the whole plan through the runtime, with simulated plugins in process.
// The same world each time, since worlds differ in work: critic-grpo's
// seed 0 makes 379,392 LLM calls, seed 1 223,744. cpu-ms/op is the
// process's CPU time (user and system, every thread) per rehearsal, the
// figure to compare on a machine that others load. journal=file keeps the
// journal in an SQLite file, as --dir does.
func BenchmarkRehearse(b *testing.B) {
	for _, name := range []string{"lm2lm.hcl", "critic-grpo.hcl", "critic-evolve.hcl"} {
		for _, keep := range []bool{false, true} {
			journal := "memory"
			if keep {
				journal = "file"
			}
			b.Run(name+"/journal="+journal, func(b *testing.B) {
				p := compileSpec(b, filepath.Join("../../specs", name))
				cpu := cpuTime(b)
				for b.Loop() {
					opts := Options{Runs: 1, Seed: 1}
					if keep {
						opts.Dir = b.TempDir()
					}
					rep, err := Rehearse(context.Background(), p, opts)
					if err != nil {
						b.Fatal(err)
					}
					if rep.Rehearsals[0].State != "finished" {
						b.Fatalf("state %s", rep.Rehearsals[0].State)
					}
				}
				b.ReportMetric(float64((cpuTime(b)-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkRehearseRuns100 is `assay rehearse --runs 100 specs/lm2lm.hcl`:
// a hundred rehearsals, as many at once as there are cores, and their
// spread. One iteration takes about a minute: run it with -benchtime 1x.
func BenchmarkRehearseRuns100(b *testing.B) {
	p := compileSpec(b, filepath.Join("../../specs", "lm2lm.hcl"))
	cpu := cpuTime(b)
	for b.Loop() {
		rep, err := Rehearse(context.Background(), p, Options{Runs: 100, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		if len(rep.Rehearsals) != 100 {
			b.Fatalf("%d rehearsals, want 100", len(rep.Rehearsals))
		}
	}
	b.ReportMetric(float64((cpuTime(b)-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
