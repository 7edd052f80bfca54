package rehearse

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/assay-lang/assay/compiler/plan"
)

// WriteTable renders a report for a terminal: per figure, the least,
// median and most over the rehearsals beside the estimate's low, expected
// and high, with "OUTSIDE" where a rehearsal left [low, high].
func WriteTable(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "Rehearsal of %s", r.Plan)
	if r.Variant != "" && r.Variant != "default" {
		fmt.Fprintf(w, " (variant %s)", r.Variant)
	}
	fmt.Fprintf(w, ": %d rehearsal(s)\n\n", len(r.Rehearsals))
	// Names are padded here so that they read left-aligned in a table
	// whose numbers align right.
	width := len("figure")
	for _, f := range r.Figures {
		width = max(width, len(f.Name))
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tmin\tmedian\tmax\t\test. low\texpected\thigh\t\t\n", width, "figure")
	for _, f := range r.Figures {
		mark := ""
		if f.Outside {
			mark = "OUTSIDE"
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t\t%s\t%s\t%s\t\t%s\n", width, f.Name, num(f.Min), num(f.Median), num(f.Max),
			num(f.Estimate.Low), num(f.Estimate.Expected), num(f.Estimate.High), mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, rh := range r.Rehearsals {
		line := fmt.Sprintf("world seed %d: %s", rh.Seed, rh.State)
		if rh.InterruptedAt > 0 {
			line += fmt.Sprintf(", interrupted at call or run %d and resumed", rh.InterruptedAt)
		}
		if rh.Reason != "" {
			line += " (" + rh.Reason + ")"
		}
		if len(rh.CapsBroken) > 0 {
			line += "; CAP EXCEEDED: " + strings.Join(rh.CapsBroken, ", ")
		}
		fmt.Fprintln(w, line)
	}
	out := r.Outside()
	switch {
	case !r.CapsHeld:
		fmt.Fprintln(w, "\nA cap was exceeded: a bug in the runtime.")
	case len(out) > 0:
		fmt.Fprintf(w, "\n%d figure(s) left the estimate's [low, high]: a bug in the runtime or the estimate, or a world file outside the spec's assumptions.\n", len(out))
	default:
		fmt.Fprintln(w, "\nEvery cap held and every figure stayed within the estimate's [low, high].")
	}
	return nil
}

func num(x float64) string {
	if x == float64(int64(x)) && x < 1e15 && x > -1e15 {
		return fmt.Sprintf("%d", int64(x))
	}
	return fmt.Sprintf("%.4g", x)
}

// WriteJSON renders a report with the figure names of `assay estimate
// --format json`, each as {low, expected, high} = the least, median and
// most over the rehearsals, plus rehearsals (the count), caps_held and
// outside (the figures some rehearsal put outside the estimate), and
// cap_stops when a cap stopped a phase in some rehearsal.
func WriteJSON(w io.Writer, r *Report) error {
	out := map[string]any{
		"plan":       r.Plan,
		"variant":    r.Variant,
		"rehearsals": len(r.Rehearsals),
		"caps_held":  r.CapsHeld,
		"outside":    []string{},
		"seeds":      []int64{},
	}
	var outside []string
	var seeds []int64
	for _, rh := range r.Rehearsals {
		seeds = append(seeds, rh.Seed)
	}
	var phases []map[string]any
	phaseAt := map[string]map[string]any{}
	for _, f := range r.Figures {
		if f.Outside {
			outside = append(outside, f.Name)
		}
		c := plan.Count{Low: f.Min, Expected: f.Median, High: f.Max}
		group, rest, _ := strings.Cut(f.Name, ".")
		i := strings.LastIndex(rest, ".")
		if i < 0 { // totals.NAME
			m, _ := out[group].(map[string]any)
			if m == nil {
				m = map[string]any{}
				out[group] = m
			}
			m[rest] = c
			continue
		}
		name, field := rest[:i], rest[i+1:]
		if group == "phases" {
			ph := phaseAt[name]
			if ph == nil {
				ph = map[string]any{"name": name}
				phaseAt[name] = ph
				phases = append(phases, ph)
			}
			ph[field] = c
			continue
		}
		m, _ := out[group].(map[string]any)
		if m == nil {
			m = map[string]any{}
			out[group] = m
		}
		e, _ := m[name].(map[string]any)
		if e == nil {
			e = map[string]any{}
			m[name] = e
		}
		e[field] = c
	}
	if phases != nil {
		out["phases"] = phases
	}
	if outside != nil {
		out["outside"] = outside
	}
	if seeds != nil {
		out["seeds"] = seeds
	}
	if r.CapStops != nil {
		out["cap_stops"] = r.CapStops
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
