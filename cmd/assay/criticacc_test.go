package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/payload"
	"github.com/assay-lang/assay/runtime"
	"github.com/assay-lang/assay/runtime/journal"
	"github.com/assay-lang/assay/runtime/pairs"
)

// cmdCriticAcc runs "criticacc PAIRS RUNDIR TRAINING SPLIT VOTES": the
// offline critic's 3-way accuracy on the pairs of SPLIT in PAIRS, by the
// majority of VOTES verdicts at temperature 0.7, untrained and as the
// run's critic training TRAINING left it (the state of its last update in
// the journal). It prints both and fails unless the trained critic is
// more accurate: training showed its effect on pairs it never saw.
func cmdCriticAcc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 5 {
		ts.Fatalf("usage: criticacc PAIRS RUNDIR TRAINING SPLIT VOTES")
	}
	f, err := os.Open(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	ps, err := pairs.ReadJSONL(f)
	ts.Check(err)
	votes, err := strconv.Atoi(args[4])
	ts.Check(err)
	j, err := journal.OpenReadOnly(filepath.Join(ts.MkAbs(args[1]), "journal.db"))
	ts.Check(err)
	defer j.Close()
	evs, err := j.Events(journal.KindPolicy)
	ts.Check(err)
	var state []byte
	for _, e := range evs {
		var rec struct {
			State  []byte `json:"state"`
			Failed string `json:"failed"`
		}
		if strings.HasPrefix(e.Key, "critic_training/"+args[2]+"/") && !strings.HasSuffix(e.Key, "/reserve") && json.Unmarshal(e.Data, &rec) == nil && rec.Failed == "" {
			state = rec.State
		}
	}
	if state == nil {
		ts.Fatalf("run %s made no update of critic training %s", args[1], args[2])
	}
	trained, err := model.LoadCritic(state)
	ts.Check(err)
	before, n := criticAccuracy(ts, ps, args[3], votes, nil)
	after, _ := criticAccuracy(ts, ps, args[3], votes, trained)
	fmt.Fprintf(ts.Stdout(), "%d %s pairs: untrained accuracy %.3f, trained %.3f\n", n, args[3], before, after)
	if n == 0 || after <= before {
		ts.Fatalf("the trained critic's accuracy %.3f is not above the untrained one's %.3f on %d pairs", after, before, n)
	}
}

// criticAccuracy is the share of split's pairs whose majority verdict's
// direction is the pair's 3-way label; of tied directions the first of
// improve, tie, lose is the verdict.
func criticAccuracy(ts *testscript.TestScript, ps []pairs.Pair, split string, votes int, st *model.CriticState) (float64, int) {
	right, n := 0, 0
	for i, p := range ps {
		if p.Split != split {
			continue
		}
		n++
		req := runtime.PairRequest(&p, payload.Labels3)
		count := map[string]int{}
		for v := 0; v < votes; v++ {
			resp, err := model.CritiqueState(req, 0.7, int64(1000*i+v), st)
			ts.Check(err)
			count[critic.Direction(resp.Label)]++
		}
		best, top := critic.Tie, 0
		for _, l := range []string{critic.Improve, critic.Tie, critic.Lose} {
			if count[l] > top {
				best, top = l, count[l]
			}
		}
		if best == p.Label3 {
			right++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(right) / float64(n), n
}
