package rehearse

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/assay-lang/assay/runtime"
)

// CapStop is how often a cap stopped or shrank a phase over the
// rehearsals.
type CapStop struct {
	// Cap is real_runs, gpu_hours, usd or wall_hours; "any" counts the
	// rehearsals that ended in state stopped_at_cap whatever the cap.
	Cap        string  `json:"cap"`
	Rehearsals int     `json:"rehearsals"`
	Share      float64 `json:"share"`
}

// capOf names the cap a cut's reason speaks of (the runtime's ErrBudget
// messages).
func capOf(reason string) string {
	for _, c := range []struct{ says, name string }{
		{"real-run cap", "real_runs"}, {"GPU-hour cap", "gpu_hours"}, {"dollar cap", "usd"}, {"wall", "wall_hours"},
	} {
		if strings.Contains(reason, c.says) {
			return c.name
		}
	}
	return "other"
}

// capStops counts, per cap, the rehearsals in which it cut a phase; nil
// when none did.
func capStops(rs []Rehearsal) []CapStop {
	count := map[string]int{}
	for _, rh := range rs {
		seen := map[string]bool{}
		if rh.State == runtime.StateStoppedAtCap || len(rh.Cuts) > 0 {
			seen["any"] = true
		}
		for _, c := range rh.Cuts {
			seen[capOf(c.Reason)] = true
		}
		for c := range seen {
			count[c]++
		}
	}
	if len(count) == 0 {
		return nil
	}
	var out []CapStop
	for _, c := range []string{"any", "real_runs", "gpu_hours", "usd", "wall_hours", "other"} {
		if n := count[c]; n > 0 {
			out = append(out, CapStop{Cap: c, Rehearsals: n, Share: float64(n) / float64(len(rs))})
		}
	}
	return out
}

// histBins is how many bins a figure's histogram has.
const histBins = 10

// histogram counts xs in histBins equal bins over [lo, hi]; all values in
// the first bin when lo == hi.
func histogram(xs []float64, lo, hi float64) []int {
	bins := make([]int, histBins)
	for _, x := range xs {
		i := 0
		if hi > lo {
			i = min(int((x-lo)/(hi-lo)*histBins), histBins-1)
		}
		bins[max(i, 0)]++
	}
	return bins
}

// sparkline draws bins as block characters, the tallest bin full height.
func sparkline(bins []int) string {
	const blocks = " ▁▂▃▄▅▆▇█"
	levels := []rune(blocks)
	top := slices.Max(bins)
	var b strings.Builder
	for _, n := range bins {
		l := 0
		if top > 0 && n > 0 {
			l = max(1, n*(len(levels)-1)/top)
		}
		b.WriteRune(levels[l])
	}
	return b.String()
}

// WriteSpread renders, for more than one rehearsal, each figure's spread
// as a histogram over [min, max] and the share of rehearsals each cap
// stopped.
func WriteSpread(w io.Writer, r *Report) {
	if len(r.Rehearsals) < 2 {
		return
	}
	width := 0
	for _, f := range r.Figures {
		width = max(width, len(f.Name))
	}
	fmt.Fprintf(w, "\nSpread over %d rehearsals (%d bins from min to max):\n", len(r.Rehearsals), histBins)
	for _, f := range r.Figures {
		fmt.Fprintf(w, "  %-*s  %s  [%s, %s]\n", width, f.Name, sparkline(histogram(f.Values, f.Min, f.Max)), num(f.Min), num(f.Max))
	}
	writeCapStops(w, r)
}

func writeCapStops(w io.Writer, r *Report) {
	if len(r.CapStops) == 0 {
		fmt.Fprintf(w, "\nNo cap stopped a phase in any of the %d rehearsals.\n", len(r.Rehearsals))
		return
	}
	fmt.Fprintln(w, "\nRehearsals in which a cap stopped or shrank a phase:")
	for _, c := range r.CapStops {
		fmt.Fprintf(w, "  %-10s  %d of %d (%.0f%%)\n", c.Cap, c.Rehearsals, len(r.Rehearsals), 100*c.Share)
	}
}
