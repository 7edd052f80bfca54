package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/runtime/journal"
)

// A policy or critic update that runs a trainer's update command spends
// GPU time as a real run does, and is held to it the same way (hours.go):
// it reserves its GPU-hours and dollars before it starts and keeps the
// hold; it is sent a time limit of its hours (the plan's
// time_limit_seconds), at which the trainer stops it; and when its result
// comes it is charged what it measured (its wall time times its GPUs, or
// what the trainer reports, if more), at most its hold, and what it
// measured beyond the hold is reported as an overrun. Every journaled
// reservation, and the charge of every journaled result, is counted when
// the run opens (restoreUpdates), as every real run's is, so a resumed run
// counts an update's hold once and before it reserves anything, however
// far it has replayed.

// reserveSuffix ends the journal key of an update's reservation: key +
// reserveSuffix, beside the update's record at key.
const reserveSuffix = "/reserve"

// updateReservation is an update's journaled budget reservation, written
// before the update starts and never released; GPUs is how many the
// update holds, so that its measured hours can be charged after a resume.
type updateReservation struct {
	GPUHours float64 `json:"gpu_hours"`
	USD      float64 `json:"usd"`
	GPUs     int     `json:"gpus,omitempty"`
}

// updateMeasure is what an update took, as its trainer's result said: the
// record of an update keeps it (policyRecord), so a resumed run charges it
// again. Nil: unknown (a trainer that does not time its updates, or an
// update that failed before it ran), charged its hold.
type updateMeasure struct {
	Seconds  float64 `json:"seconds"`
	GPUHours float64 `json:"gpu_hours,omitempty"`
}

// updateJob is one update that runs a trainer's update command: the
// journal key of its record, the phase a cap cut is noted against, what
// the plan gives that phase (for the cut's reason), the trainer plugin and
// what the update holds.
type updateJob struct {
	key, phase, what, trainer string
	hold                      updateReservation
}

// reserve holds the update's cost against the caps before it starts (a
// journaled reservation was counted when the run opened); why says what
// cap refused it, and the phase is noted as cut.
func (u updateJob) reserve(s *service) (why string, err error) {
	if d, ok := s.j.Call(journal.KindPolicy, u.key+reserveSuffix); ok {
		var res updateReservation
		if err := json.Unmarshal(d, &res); err != nil {
			return "", fmt.Errorf("%w: journal: update reservation %s: %v", errPermanent, u.key, err)
		}
		return "", nil
	}
	if err := s.budget.ReserveUpdate(u.hold.GPUHours, u.hold.USD); errors.Is(err, ErrBudget) {
		s.cuts.cut(u.phase, "made fewer "+u.what+" than the plan gives it: "+strings.TrimPrefix(err.Error(), ErrBudget.Error()+": "))
		return err.Error(), nil
	} else if err != nil {
		return "", err
	}
	if err := s.j.Append(journal.KindPolicy, u.key+reserveSuffix, u.hold); err != nil {
		return "", err
	}
	return "", s.j.Flush()
}

// run starts the update on its trainer (sent its time limit in req) and
// waits for its result; once it has one, or the trainer failed it, the
// update is charged what it measured (nil: unknown, its hold) and an
// overrun is logged. An interrupted update is charged nothing here: the
// resume that runs it to its result charges it.
func (u updateJob) run(s *service, req *plugins.RunRequest) (*plugins.RunResult, *updateMeasure, error) {
	var res *plugins.RunResult
	err := s.plugins.call(u.trainer, func(inst Instance) error {
		tr := inst.Trainer()
		if tr == nil {
			return fmt.Errorf("%w: plugin %s is not a trainer", errPermanent, u.trainer)
		}
		h, err := tr.Start(s.ctx, req)
		if err != nil {
			return err
		}
		if res, err = tr.Wait(s.ctx, h); err == nil && res == nil {
			err = fmt.Errorf("plugin %s gave update %s no result", u.trainer, u.key)
		}
		return err
	})
	if s.ctx.Err() != nil {
		return res, nil, err
	}
	// A trainer that does not time its updates leaves them charged their
	// hold: timed here, an update waited on after a resume would read
	// shorter than it was, and the figures would depend on the machine.
	var m *updateMeasure
	if err == nil && (res.Seconds > 0 || res.GPUHours > 0) {
		m = &updateMeasure{Seconds: res.Seconds, GPUHours: res.GPUHours}
	}
	if o, over := s.charged.settleUpdate(u.hold, m); over {
		o.log(s.progress, "update "+u.key)
	}
	return res, m, err
}

// settleUpdate charges an update what it measured (m; nil: unknown), at
// most its hold, and counts an overrun.
func (c *charges) settleUpdate(hold updateReservation, m *updateMeasure) (overrun, bool) {
	got, ok := 0.0, false
	if m != nil {
		got, ok = measuredHours(hold.GPUs, m.Seconds, m.GPUHours)
	}
	return c.charge(hold.GPUHours, hold.USD, got, ok, true)
}

// updateHolds are the update reservations in journal j, by the key of the
// update's record. One that does not decode is left out here, and refused
// where the update reads it (updateJob.reserve).
func updateHolds(j *journal.Journal) map[string]updateReservation {
	out := map[string]updateReservation{}
	for _, key := range j.CallKeys(journal.KindPolicy) {
		rkey, ok := strings.CutSuffix(key, reserveSuffix)
		if !ok {
			continue
		}
		d, _ := j.Call(journal.KindPolicy, key)
		var hold updateReservation
		if json.Unmarshal(d, &hold) == nil {
			out[rkey] = hold
		}
	}
	return out
}

// restoreUpdates counts every update reservation in journal j against the
// caps of b, and charges (c) every update whose record is there what it
// measured, as newService does for real runs.
func restoreUpdates(j *journal.Journal, b *Budget, c *charges) {
	for key, hold := range updateHolds(j) {
		b.restoreUpdate(hold.GPUHours, hold.USD)
		if d, ok := j.Call(journal.KindPolicy, key); ok {
			var pr policyRecord
			if json.Unmarshal(d, &pr) == nil {
				c.settleUpdate(hold, pr.Measured)
			}
		}
	}
}
