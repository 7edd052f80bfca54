package model

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// Summarize answers the summarizer role: a neutral description of the
// change, without the proposer's pitch: in source mode (a proposal with a
// patch) what the patch changes, else the edits. The seed picks one of a
// few phrasings, as a sampled model would.
func Summarize(req *payload.SummarizeRequest, seed int64) *payload.SummarizeResponse {
	if strings.TrimSpace(req.Proposal.Patch) != "" {
		return summarizePatch(req, seed)
	}
	keys := sortedKeys(req.Proposal.Edits)
	if len(keys) == 0 {
		return &payload.SummarizeResponse{Summary: "No concrete change: " + strings.TrimSpace(req.Proposal.Text)}
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " = " + req.Proposal.Edits[k]
	}
	forms := []string{"Sets %s.", "The change sets %s.", "Configuration with %s."}
	r := newRNG(seed, "summarize:"+req.Proposal.ID)
	s := fmt.Sprintf(forms[r.next()%uint64(len(forms))], strings.Join(parts, ", "))
	if req.Proposal.Mechanism != "" {
		s += " Mechanism: " + req.Proposal.Mechanism + "."
	}
	return &payload.SummarizeResponse{Summary: s}
}

// Implementation failure rates: a base rate per build plus a rate per
// extra edit, and more when the idea had to be parsed from its text.
const (
	buildFailBase     = 0.04
	buildFailPerEdit  = 0.03
	buildFailFromText = 0.05
)

var editPattern = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*(?:=|:|\bto\b)\s*([A-Za-z0-9_.+-]+)`)

// Implement answers the builder and implementer roles: it turns an idea
// into edits of the trainer's knobs. Edits given are checked; an idea with
// none is read from its text ("width = 64", "set width to 64"). A value off
// a numeric knob's list snaps to the nearest listed value, as an engineer
// would; an unknown knob, or bad luck (a rate that grows with the number of
// edits), is an infeasible build. In source mode (req.Source) it writes
// a unified diff instead (see implementPatch).
func Implement(req *payload.ImplementRequest, seed int64) *payload.ImplementResponse {
	if req.Source != nil {
		return implementPatch(req, seed)
	}
	prop := req.Proposal
	r := newRNG(seed, "implement:"+prop.ID)
	fail := buildFailBase
	edits := map[string]string{}
	for k, v := range prop.Edits {
		edits[k] = v
	}
	if len(edits) == 0 {
		fail += buildFailFromText
		for _, m := range editPattern.FindAllStringSubmatch(prop.Text, -1) {
			if knobByName(req.Knobs, m[1]) != nil {
				edits[m[1]] = strings.TrimRight(m[2], ".")
			}
		}
	}
	out := prop
	if len(edits) == 0 {
		return &payload.ImplementResponse{Proposal: out, Infeasible: true, Reason: "could not find a concrete change in the idea"}
	}
	fail += buildFailPerEdit * float64(len(edits)-1)
	fixed := map[string]string{}
	for _, k := range sortedKeys(edits) {
		kn := knobByName(req.Knobs, k)
		if kn == nil {
			return &payload.ImplementResponse{Proposal: out, Infeasible: true, Reason: fmt.Sprintf("the setup has no knob %q", k)}
		}
		v, ok := snap(kn, edits[k])
		if !ok {
			return &payload.ImplementResponse{Proposal: out, Infeasible: true, Reason: fmt.Sprintf("knob %s cannot take %q", k, edits[k])}
		}
		fixed[k] = v
	}
	out.Edits = fixed
	if r.float() < fail {
		return &payload.ImplementResponse{Proposal: out, Infeasible: true, Reason: "the implementation does not build"}
	}
	return &payload.ImplementResponse{Proposal: out}
}

func knobByName(knobs []plugins.Knob, name string) *plugins.Knob {
	for i := range knobs {
		if knobs[i].Name == name {
			return &knobs[i]
		}
	}
	return nil
}

// snap returns the listed value v names, or for a number the nearest
// listed number.
func snap(k *plugins.Knob, v string) (string, bool) {
	if len(k.Values) == 0 {
		return v, true
	}
	for _, x := range k.Values {
		if x == v {
			return x, true
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return "", false
	}
	best, bestD := "", 0.0
	for _, x := range k.Values {
		g, err := strconv.ParseFloat(x, 64)
		if err != nil {
			continue
		}
		d := g - f
		if d < 0 {
			d = -d
		}
		if best == "" || d < bestD {
			best, bestD = x, d
		}
	}
	return best, best != ""
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
