package slurm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// realSqueue is what squeue -h -r -t all -O squeueFormat printed on the
// project's Slurm 22.05 cluster for a failed job, a throttled array and a
// job killed by signal 9.
const realSqueue = `1|FAILED|768|NonZeroExitCode|
2_1|PENDING|0|JobArrayTaskLimit|
2_2|PENDING|0|Resources|
3|FAILED|9|JobLaunchFailure|
2_0|RUNNING|0|None|
`

func TestParseSqueue(t *testing.T) {
	infos, bad := ParseSqueue([]byte(realSqueue))
	if bad != 0 || len(infos) != 5 {
		t.Fatalf("got %v, %d bad", infos, bad)
	}
	if in := infos["1"]; in.JobState != "FAILED" || in.ExitCode != 3 || in.Signal != 0 || in.Reason != "NonZeroExitCode" {
		t.Errorf("1: %+v", in)
	}
	if in := infos["3"]; in.ExitCode != 0 || in.Signal != 9 {
		t.Errorf("3: %+v", in)
	}
	if in := infos["2_1"]; in.JobState != "PENDING" || in.Reason != "JobArrayTaskLimit" {
		t.Errorf("2_1: %+v", in)
	}
	for _, c := range []struct {
		out     string
		ids     int
		bad     int
		id, why string
	}{
		// Padded columns (a width in the format), CRLF, blank lines.
		{"  7 |RUNNING   |0    |None  |\r\n\n", 1, 0, "7", "None"},
		// A reason with the separator in it stays whole.
		{"8|PENDING|0|held: a|b|\n", 1, 0, "8", "held: a|b"},
		// A collapsed array line (squeue without -r), a header, a
		// truncated line, a state in lower case, a negative status: unread.
		{"9_[1-5]|PENDING|0|Resources|\nJOBID|STATE|EXIT|REASON|\n10|RUNNING\n11|running|0|None|\n12|FAILED|-1|x|\n", 0, 5, "", ""},
		{"13|COMPLETED|0:0|None|\n14|FAILED|3:0|\n", 2, 0, "14", ""},
	} {
		infos, bad := ParseSqueue([]byte(c.out))
		if len(infos) != c.ids || bad != c.bad {
			t.Errorf("%q: %d jobs, %d bad; want %d, %d", c.out, len(infos), bad, c.ids, c.bad)
		}
		if c.id != "" && infos[c.id].Reason != c.why {
			t.Errorf("%q: reason %q, want %q", c.out, infos[c.id].Reason, c.why)
		}
	}
}

func TestParseSacct(t *testing.T) {
	infos, bad := ParseSacct([]byte("2_1|CANCELLED by 0|0:15\n5|COMPLETED|0:0\n6|FAILED|3:0\n7|RUNNING\n8.batch|COMPLETED|0:0\n"))
	if bad != 2 || len(infos) != 3 {
		t.Fatalf("got %v, %d bad", infos, bad)
	}
	if in := infos["2_1"]; in.JobState != "CANCELLED" || in.Signal != 15 {
		t.Errorf("2_1: %+v", in)
	}
	if in := infos["6"]; in.JobState != "FAILED" || in.ExitCode != 3 {
		t.Errorf("6: %+v", in)
	}
}

// formatSqueue writes infos the way squeue does with squeueFormat.
func formatSqueue(id string, in Info) string {
	return fmt.Sprintf("%s|%s|%d:%d|%s|\n", id, in.JobState, in.ExitCode, in.Signal, in.Reason)
}

// FuzzParseSqueue: any output parses without a panic into jobs whose ids
// and states are well formed, and what it read reads back the same.
func FuzzParseSqueue(f *testing.F) {
	f.Add([]byte(realSqueue))
	f.Add([]byte("9_[1-5]|PENDING|0|Resources|\n8|PENDING|0|held: a|b|\r\n"))
	f.Add([]byte("13|COMPLETED|0:0|None|\n|||\n_|X|1|\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		infos, bad := ParseSqueue(out)
		if bad < 0 || len(infos)+bad > strings.Count(string(out), "\n")+1 {
			t.Fatalf("%d jobs and %d bad lines from %d lines", len(infos), bad, strings.Count(string(out), "\n")+1)
		}
		for id, in := range infos {
			if !jobID(id) || !stateWord(in.JobState) || in.ExitCode < 0 || in.ExitCode > 255 || in.Signal < 0 || in.Signal > 255 {
				t.Fatalf("malformed %q: %+v", id, in)
			}
			if strings.ContainsAny(in.Reason, "\r\n") {
				continue // cannot be written back on one line
			}
			again, bad := ParseSqueue([]byte(formatSqueue(id, in)))
			if bad != 0 || again[id] != in {
				t.Fatalf("%q %+v reads back as %+v (%d bad)", id, in, again[id], bad)
			}
		}
	})
}

// FuzzParseSacct: the same for sacct's output.
func FuzzParseSacct(f *testing.F) {
	f.Add([]byte("2_1|CANCELLED by 0|0:15\n5|COMPLETED|0:0\n"))
	f.Add([]byte("7|RUNNING\n8.batch|COMPLETED|0:0\n|x|\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		infos, bad := ParseSacct(out)
		if bad < 0 || len(infos)+bad > strings.Count(string(out), "\n")+1 {
			t.Fatalf("%d jobs and %d bad lines", len(infos), bad)
		}
		for id, in := range infos {
			if !jobID(id) || !stateWord(in.JobState) || in.ExitCode < 0 || in.Signal < 0 || in.Reason != "" {
				t.Fatalf("malformed %q: %+v", id, in)
			}
		}
	})
}

// script is a Runner that answers from a table, keyed by the command line.
type script map[string]struct {
	out string
	err string // non-empty: the command fails, printing this
}

func (s script) Run(_ context.Context, name string, args ...string) ([]byte, error) {
	line := name + " " + strings.Join(args, " ")
	a, ok := s[line]
	if !ok {
		return nil, fmt.Errorf("unscripted command %s", line)
	}
	if a.err != "" {
		return []byte(a.out), &CommandError{Name: name, Err: errors.New("exit status 1"), Output: a.err}
	}
	return []byte(a.out), nil
}

func TestQuery(t *testing.T) {
	sq := "squeue " + strings.Join(squeueArgs("", "0"), " ")
	sq = sq[:len(sq)-1]
	sa := "sacct " + strings.Join(sacctArgs(""), " ")
	run := script{
		sq + "5":   {out: "5|RUNNING|0|None|\n"},
		sq + "6":   {err: "slurm_load_jobs error: Invalid job id specified"},
		sa + "6":   {out: "6|FAILED|3:0\n"},
		sq + "7":   {err: "slurm_load_jobs error: Invalid job id specified"},
		sa + "7":   {err: "Slurm accounting storage is disabled"},
		sq + "8_1": {err: "slurm_load_jobs error: Unable to contact slurm controller (connect failure)"},
	}
	ctx := context.Background()
	if in, err := query(ctx, run, "5"); err != nil || in.JobState != "RUNNING" {
		t.Errorf("5: %+v %v", in, err)
	}
	if in, err := query(ctx, run, "6"); err != nil || in.JobState != "FAILED" || in.ExitCode != 3 {
		t.Errorf("6: %+v %v", in, err)
	}
	if _, err := query(ctx, run, "7"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("7: %v, want ErrUnknownJob", err)
	}
	if _, err := query(ctx, run, "8_1"); err == nil || errors.Is(err, ErrUnknownJob) || !unreachable(err) {
		t.Errorf("8_1: %v, want the controller unreachable", err)
	}
	if _, err := query(ctx, run, "5;rm"); err == nil {
		t.Error("a malformed id was asked about")
	}
}
