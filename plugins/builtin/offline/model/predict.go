package model

import (
	"maps"
	"math"
	"slices"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// The world model predicts a proposal's gain by kernel regression over the
// records in its context, shrunk towards its own prior:
//
//	g_hat = (sum_i k_i g_i + lambda * prior) / (sum_i k_i + lambda) + noise
//
// where k_i = task_i * exp(-gamma * |edits(a) xor edits(r_i)|) compares the
// proposal's edits with record i's (task_i = 1 for the same task, 0.5 for
// the same environment, 0.2 otherwise). The prior is a fixed idiosyncratic
// guess per edit, the way a model has opinions about changes it has never
// seen measured; it knows nothing true about the trainer. The noise has
// standard deviation sigma * temperature / sqrt(1 + sum k_i): more relevant
// records make the model both more accurate and more certain.
const (
	rwmGamma       = 1.0
	rwmLambda      = 0.5
	rwmPriorScale  = 0.05
	rwmNoise       = 0.03
	infeasibleGain = 0 // infeasible records count as no gain
)

// editSet is a proposal's edits as "knob=value" strings.
func editSet(p plugins.Proposal) map[string]bool {
	s := make(map[string]bool, len(p.Edits))
	for k, v := range p.Edits {
		s[k+"="+v] = true
	}
	return s
}

func symDiff(a, b map[string]bool) int {
	n := 0
	for x := range a {
		if !b[x] {
			n++
		}
	}
	for x := range b {
		if !a[x] {
			n++
		}
	}
	return n
}

// priorGain is the untrained guess for a proposal: the sum of a fixed
// opinion about each edit.
func priorGain(p plugins.Proposal) float64 {
	// Summed in key order: a map's order would move the sum's last bit
	// from call to call, and a resumed critic would not learn exactly as
	// an uninterrupted one.
	g := 0.0
	for _, k := range slices.Sorted(maps.Keys(p.Edits)) {
		g += rwmPriorScale * unitHash("gain:"+k+"="+p.Edits[k])
	}
	return g
}

// estimate is the noise-free prediction and the total kernel weight of the
// records behind it.
func estimate(task, env string, records []payload.Record, prop plugins.Proposal) (gain, weight float64) {
	ps := editSet(prop)
	num, den := 0.0, 0.0
	for _, r := range records {
		t := 0.2
		switch {
		case r.Task == task:
			t = 1
		case env != "" && r.Env == env:
			t = 0.5
		}
		k := t * math.Exp(-rwmGamma*float64(symDiff(ps, editSet(r.Proposal))))
		g := r.Gain
		if r.Infeasible {
			g = infeasibleGain
		}
		num += k * g
		den += k
	}
	return (num + rwmLambda*priorGain(prop)) / (den + rwmLambda), den
}

// Predict answers the rwm role.
func Predict(req *payload.PredictRequest, temperature float64, seed int64) *payload.PredictResponse {
	g, w := estimate(req.Task, req.Env, req.Records, req.Proposal)
	r := newRNG(seed, "predict:"+req.Task)
	g += r.normal() * rwmNoise * temperature / math.Sqrt(1+w)
	return &payload.PredictResponse{PredictedGain: g, Confidence: w / (w + rwmLambda)}
}
