package diff

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Threshold is a limit on how far an estimate figure may move, written
// METRIC=LIMIT: "usd=+10%" (a rise of more than 10%), "real_runs=+50" (a
// rise of more than 50 runs), "loops.policy.steps=-20%" (a fall of more than
// 20%), "gpu_hours=1000" (a move of more than 1,000 either way). METRIC is a
// total (real_runs, gpu_hours, usd, usd_gpu, usd_llm, llm_calls, llm_tokens,
// wall_hours), roles.NAME.calls or loops.NAME.steps. Limits apply to the
// expected value.
type Threshold struct {
	Raw      string
	Metric   string
	Limit    float64 // magnitude, absolute or a fraction when Relative
	Relative bool
	Sign     int // +1 rises only, -1 falls only, 0 either way
}

// ParseThreshold reads METRIC=LIMIT.
func ParseThreshold(s string) (Threshold, error) {
	metric, limit, ok := strings.Cut(s, "=")
	metric, limit = strings.TrimSpace(metric), strings.TrimSpace(limit)
	if !ok || metric == "" || limit == "" {
		return Threshold{}, fmt.Errorf("threshold %q is not METRIC=LIMIT, e.g. usd=+10%% or real_runs=+50", s)
	}
	if !knownMetric(metric) {
		return Threshold{}, fmt.Errorf("threshold %q: unknown metric %q; use one of %s, roles.NAME.calls or loops.NAME.steps", s, metric, strings.Join(TotalMetrics, ", "))
	}
	t := Threshold{Raw: s, Metric: metric}
	switch limit[0] {
	case '+':
		t.Sign, limit = 1, limit[1:]
	case '-':
		t.Sign, limit = -1, limit[1:]
	}
	if p, ok := strings.CutSuffix(limit, "%"); ok {
		t.Relative, limit = true, p
	}
	limit = strings.ReplaceAll(strings.TrimPrefix(limit, "$"), ",", "")
	n, err := strconv.ParseFloat(limit, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return Threshold{}, fmt.Errorf("threshold %q: limit must be a number or a percentage, e.g. +10%% or +50", s)
	}
	if t.Relative {
		n /= 100
	}
	t.Limit = n
	return t, nil
}

func knownMetric(m string) bool {
	if slices.Contains(TotalMetrics, m) {
		return true
	}
	parts := strings.Split(m, ".")
	return len(parts) == 3 && parts[1] != "" && ((parts[0] == "roles" && parts[2] == "calls") || (parts[0] == "loops" && parts[2] == "steps"))
}

// crosses reports whether d moved beyond t. A relative limit on a figure
// that was zero and is no longer counts as crossed.
func (t Threshold) crosses(d Delta) bool {
	move := d.Delta
	if t.Relative {
		if d.Relative == nil {
			if d.Delta == 0 {
				return false
			}
			move = math.Inf(1)
			if d.Delta < 0 {
				move = math.Inf(-1)
			}
		} else {
			move = *d.Relative
		}
	}
	switch t.Sign {
	case 1:
		return move > t.Limit
	case -1:
		return -move > t.Limit
	}
	return math.Abs(move) > t.Limit
}

// cross lists the deltas beyond each threshold. A threshold on a role or
// loop that neither side has is never crossed.
func cross(ts []Threshold, ds []Delta) []Crossing {
	var out []Crossing
	for _, t := range ts {
		for _, d := range ds {
			if d.Metric == t.Metric && t.crosses(d) {
				out = append(out, Crossing{Threshold: t.Raw, Metric: d.Metric, Delta: d.Delta, Relative: d.Relative})
			}
		}
	}
	return out
}
