//go:build unix

package slurm

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkSimulatedCluster runs the 5,000-run campaign of
// TestSimulatedCluster on a quickClock, checks its
// accounting, and reports the process's CPU time (user and system, the
// simulated cluster's and the driver's included) per job submitted:
//
//	go test -run '^$' -bench SimulatedCluster -benchtime 5x ./plugins/builtin/command/executor/slurm
func BenchmarkSimulatedCluster(b *testing.B) {
	var cpu time.Duration
	jobs, polls := 0, 0
	for b.Loop() {
		before := cpuTime()
		d := simulate(b, &quickClock{now: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}, campaign)
		cpu += cpuTime() - before
		f := d.check(b)
		jobs += f.jobs
		polls += f.polls
	}
	b.ReportMetric(float64(cpu.Microseconds())/float64(jobs), "cpu-µs/job")
	b.ReportMetric(float64(jobs)/float64(b.N), "jobs/op")
	b.ReportMetric(float64(polls)/float64(b.N), "polls/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
