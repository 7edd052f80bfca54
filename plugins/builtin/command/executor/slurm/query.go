package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/plugins/builtin/command/executor"
)

// ErrUnknownJob is returned by Query for a job id the cluster does not know.
var ErrUnknownJob = errors.New("unknown Slurm job")

// Info is what the controller says about a job.
type Info struct {
	JobState string
	Reason   string
	ExitCode int
	Signal   int
}

// squeueFormat asks for the fields a poll reads, each ended by "|" and
// unpadded (no width). The reason comes last: free text, it may hold
// anything but a newline.
const squeueFormat = "JobArrayID:|,State:|,exit_code:|,Reason:|"

// squeueArgs lists jobs in every state, one array task a line (-r): the
// user's (when user is set) among jobs (when set). With one user and more
// than one job, squeue asks the controller for that user's jobs alone
// (without --user, for every job of the cluster) and keeps those listed;
// with one job, for that job.
func squeueArgs(user, jobs string) []string {
	a := []string{"-h", "-r", "-t", "all", "-O", squeueFormat}
	if user != "" {
		a = append(a, "--user="+user)
	}
	if jobs != "" {
		a = append(a, "--jobs="+jobs)
	}
	return a
}

// sacctArgs asks accounting about jobs, one line per job (-X: no steps).
func sacctArgs(ids string) []string {
	return []string{"-n", "-P", "-X", "-o", "JobID,State,ExitCode", "-j", ids}
}

// ParseSqueue reads the output of squeue with squeueFormat: each line
// "ID|STATE|EXIT|REASON|", ID "JOBID" or "JOBID_TASK", EXIT the raw wait
// status (768 is exit code 3, 9 is signal 9) or "code:signal". It returns
// the jobs it read and how many lines it could not read; a caller must not
// take a job absent from a listing with unread lines as gone.
func ParseSqueue(out []byte) (map[string]Info, int) {
	infos := map[string]Info{}
	bad := 0
	for line := range bytes.Lines(out) {
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		id, rest, ok1 := strings.Cut(s, "|")
		state, rest, ok2 := strings.Cut(rest, "|")
		code, reason, ok3 := strings.Cut(rest, "|")
		id, state, code = strings.TrimSpace(id), strings.TrimSpace(state), strings.TrimSpace(code)
		in := Info{JobState: state, Reason: strings.TrimSpace(strings.TrimSuffix(reason, "|"))}
		var okCode bool
		in.ExitCode, in.Signal, okCode = exitStatus(code)
		if !ok1 || !ok2 || !ok3 || !okCode || !jobID(id) || !stateWord(state) {
			bad++
			continue
		}
		infos[id] = in
	}
	return infos, bad
}

// ParseSacct reads the output of sacct with sacctArgs: "ID|STATE|code:signal"
// a line, STATE perhaps "CANCELLED by 0". Like ParseSqueue, it counts the
// lines it could not read.
func ParseSacct(out []byte) (map[string]Info, int) {
	infos := map[string]Info{}
	bad := 0
	for line := range bytes.Lines(out) {
		s := strings.TrimSpace(string(line))
		if s == "" {
			continue
		}
		f := strings.Split(s, "|")
		if len(f) != 3 {
			bad++
			continue
		}
		state, _, _ := strings.Cut(strings.TrimSpace(f[1]), " ")
		code, sig, ok := exitStatus(strings.TrimSpace(f[2]))
		id := strings.TrimSpace(f[0])
		if !ok || !jobID(id) || !stateWord(state) {
			bad++
			continue
		}
		infos[id] = Info{JobState: state, ExitCode: code, Signal: sig}
	}
	return infos, bad
}

// exitStatus reads Slurm's "code:signal", or a raw wait status as squeue's
// exit_code prints it.
func exitStatus(s string) (code, signal int, ok bool) {
	if c, sig, found := strings.Cut(s, ":"); found {
		code, err1 := strconv.Atoi(c)
		signal, err2 := strconv.Atoi(sig)
		return code, signal, err1 == nil && err2 == nil && code >= 0 && code <= 255 && signal >= 0 && signal <= 255
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, 0, false
	}
	if sig := n & 0x7f; sig != 0 {
		return 0, sig, true
	}
	return (n >> 8) & 0xff, 0, true
}

// jobID reports whether s is "JOBID" or "JOBID_TASK", both decimal.
func jobID(s string) bool {
	id, task, hasTask := strings.Cut(s, "_")
	return digits(id) && (!hasTask || digits(task))
}

func digits(s string) bool {
	if s == "" || len(s) > 18 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// stateWord reports whether s looks like a Slurm job state: capitals and _.
func stateWord(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'A' && r <= 'Z' || r == '_') {
			return false
		}
	}
	return true
}

// baseID is a job id without its array task: "12" of "12_3".
func baseID(id string) string {
	b, _, _ := strings.Cut(id, "_")
	return b
}

// jobList joins ids for squeue --jobs or sacct -j: sorted, each once.
func jobList(ids []string) string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	return strings.Join(slices.Compact(ids), ",")
}

// Query asks the controller about one job (ID or ID_TASK) with squeue, then
// accounting (sacct), for a job the controller has forgotten. Wait batches
// these questions for all jobs; Query is for tests and tools.
func Query(ctx context.Context, id string) (Info, error) {
	return query(ctx, toolRunner{}, id)
}

func query(ctx context.Context, run Runner, id string) (Info, error) {
	if !jobID(id) {
		return Info{}, fmt.Errorf("%q is not a Slurm job id", id)
	}
	out, err := run.Run(ctx, "squeue", squeueArgs("", id)...)
	if err != nil && !says(err, "Invalid job id") {
		return Info{}, err
	}
	infos, _ := ParseSqueue(out)
	if in, ok := infos[id]; ok && err == nil {
		return in, nil
	}
	if acct, err := run.Run(ctx, "sacct", sacctArgs(id)...); err == nil {
		infos, _ := ParseSacct(acct)
		if in, ok := infos[id]; ok {
			return in, nil
		}
	}
	return Info{}, fmt.Errorf("%w %s", ErrUnknownJob, id)
}

// Status maps a Slurm job state to an executor status.
func (in Info) Status() executor.Status {
	st := executor.Status{ExitCode: in.ExitCode, Signal: in.Signal, Reason: in.Reason}
	switch in.JobState {
	case "PENDING", "CONFIGURING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "RESIZING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT":
		st.State = executor.Pending
	case "RUNNING", "COMPLETING":
		st.State = executor.Running
	case "COMPLETED":
		st.State = executor.Completed
	case "FAILED", "OUT_OF_MEMORY", "SPECIAL_EXIT":
		st.State = executor.Failed
		switch {
		case in.JobState == "OUT_OF_MEMORY":
			st.Reason = "out of memory"
		case in.Signal != 0:
			st.Reason = "killed by signal " + strconv.Itoa(in.Signal)
		default:
			st.Reason = "exit code " + strconv.Itoa(in.ExitCode)
		}
	case "TIMEOUT", "DEADLINE":
		st.State, st.Reason = executor.TimedOut, "Slurm time limit exceeded"
	case "CANCELLED":
		st.State, st.Reason = executor.Cancelled, "cancelled"
	case "PREEMPTED", "NODE_FAIL", "BOOT_FAIL":
		st.State, st.Reason = executor.Preempted, "Slurm "+in.JobState
	default:
		st.State, st.Reason = executor.Failed, "Slurm state "+in.JobState
	}
	return st
}
