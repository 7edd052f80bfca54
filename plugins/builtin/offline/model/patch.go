package model

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/assay-lang/assay/base/textdiff"
	"github.com/assay-lang/assay/plugins/payload"
)

// staleRate is how often a first patch is written against context that
// is not in the file (a line the model misremembers), as a model's first
// patch sometimes is: git refuses it, and a repair, told why, writes it
// against the file as shown.
const staleRate = 0.3

// numericAssign finds an assignment of a numeric literal on one line:
// "x = 0.5", "const rate = 3", "lr: 1e-3", "n := 8".
var numericAssign = regexp.MustCompile(`^(\s*(?:const\s+|var\s+|let\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*(?::=|=|:)\s*)(-?[0-9]+(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?)(\s*(?:[;,#/].*)?)$`)

// settingName is the name an assignment's left side sets.
var settingName = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*)\s*(?::=|=|:)\s*$`)

// factors scale the literal a patch changes.
var factors = []float64{0.5, 0.8, 1.25, 2}

// implementPatch answers a builder in source mode: a unified diff that
// changes one numeric literal of an assignment in the editable files it
// was shown: a setting the idea names if there is one, the line and the
// factor chosen by the seeded generator from the idea. With no such line
// the build is infeasible.
func implementPatch(req *payload.ImplementRequest, seed int64) *payload.ImplementResponse {
	prop := req.Proposal
	r := newRNG(seed, "patch:"+prop.ID+"\x00"+prop.Text)
	type site struct {
		file, line int
		m          []string
	}
	var sites []site
	for fi, f := range req.Source.Files {
		if f.Truncated {
			continue // a patch of a file not wholly seen may not apply
		}
		for li, line := range strings.Split(f.Content, "\n") {
			if m := numericAssign.FindStringSubmatch(line); m != nil {
				sites = append(sites, site{fi, li, m})
			}
		}
	}
	if len(sites) == 0 {
		return &payload.ImplementResponse{Proposal: prop, Infeasible: true, Reason: "no numeric setting in the editable files to change"}
	}
	// A setting the idea names is the one it means to change.
	var named []site
	for _, st := range sites {
		if n := settingName.FindStringSubmatch(st.m[1]); n != nil && strings.Contains(prop.Text, n[1]) {
			named = append(named, st)
		}
	}
	if len(named) > 0 {
		sites = named
	}
	s := sites[r.next()%uint64(len(sites))]
	f := req.Source.Files[s.file]
	lines := strings.Split(f.Content, "\n")
	lines[s.line] = s.m[1] + scaled(s.m[2], factors[r.next()%uint64(len(factors))]) + s.m[3]
	after := strings.Join(lines, "\n")
	before := f.Content
	if req.Repair == 0 && r.float() < staleRate {
		// The model remembers the line as it was in an older version.
		lines := strings.Split(before, "\n")
		lines[s.line] += " // was"
		before = strings.Join(lines, "\n")
	}
	patch := textdiff.Unified("a/"+f.Path, "b/"+f.Path, before, after)
	out := prop
	out.Patch = patch
	return &payload.ImplementResponse{Proposal: out, Patch: patch}
}

// scaled writes lit times k in lit's style: an integer stays a whole
// number (and changes by at least one), a decimal keeps a decimal point.
func scaled(lit string, k float64) string {
	if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
		m := int64(math.Round(float64(n) * k))
		if m == n {
			m = n + 1
		}
		return strconv.FormatInt(m, 10)
	}
	x, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return lit
	}
	s := strconv.FormatFloat(x*k, 'g', 6, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return fmt.Sprint(s)
}
