package model

import (
	"fmt"
	"regexp"
	"slices"
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

// factors scale a setting an idea names without a value or direction.
var factors = []float64{0.5, 0.8, 1.25, 2}

// Words of an idea that say which way a setting it names without a value
// should go.
var (
	upWords   = []string{"increase", "raise", "larger", "higher", "more", "bigger", "longer", "wider", "faster", "deeper", "double"}
	downWords = []string{"decrease", "lower", "reduce", "smaller", "less", "fewer", "shorter", "narrower", "slower", "shallower", "halve"}
)

// change is one edit of a setting a patch makes.
type change struct {
	at setting
	to string
}

// implementPatch answers a builder in source mode: a unified diff that
// changes what the idea names in the editable files it was shown. The
// idea's settings are its edits (name to value), else "NAME = VALUE" or
// "NAME to VALUE" in its text, else a setting its text names ("a smaller
// learning rate"), moved the way its words say. Each names the numeric
// setting whose name holds it, case and separators aside (l2 is
// defaultL2, init_scale InitScale), in any of the usual formats (see
// settingsOf), and is set to the value the idea gives; an idea that names
// no such setting, or one that changes nothing, is infeasible, with the
// reason, never a patch of something else.
func implementPatch(req *payload.ImplementRequest, seed int64) *payload.ImplementResponse {
	prop := req.Proposal
	r := newRNG(seed, "patch:"+prop.ID+"\x00"+prop.Text)
	infeasible := func(format string, args ...any) *payload.ImplementResponse {
		return &payload.ImplementResponse{Proposal: prop, Infeasible: true, Reason: fmt.Sprintf(format, args...)}
	}
	sites := settingsOf(req.Source)
	if len(sites) == 0 {
		return infeasible("no numeric setting in the editable files to change")
	}
	changes, reason := namedChanges(prop.Edits, prop.Text, sites, r)
	if reason != "" {
		return infeasible("%s", reason)
	}
	patch := writePatch(req.Source, changes, req.Repair == 0 && r.float() < staleRate)
	out := prop
	out.Patch = patch
	return &payload.ImplementResponse{Proposal: out, Patch: patch}
}

// namedChanges are the changes an idea names among sites, or why there
// are none.
func namedChanges(edits map[string]string, text string, sites []setting, r *rng) ([]change, string) {
	pairs := ideaPairs(edits, text)
	if len(pairs) == 0 {
		return textChanges(text, sites, r)
	}
	var out []change
	var already []string
	for _, p := range pairs {
		s, ok := findSetting(sites, p[0])
		if !ok {
			return nil, fmt.Sprintf("the idea sets %s = %s, but no numeric setting of the editable files is named like %s (their settings: %s)", p[0], p[1], p[0], settingNames(sites))
		}
		if _, err := strconv.ParseFloat(p[1], 64); err != nil {
			return nil, fmt.Sprintf("the idea sets %s to %q, which is not a number; %s in %s is a numeric setting", p[0], p[1], s.name, s.path)
		}
		if sameNumber(s.value, p[1]) {
			already = append(already, fmt.Sprintf("%s is %s in %s", s.name, s.value, s.path))
			continue
		}
		if !slices.ContainsFunc(out, func(c change) bool { return c.at.file == s.file && c.at.line == s.line && c.at.lo == s.lo }) {
			out = append(out, change{s, p[1]})
		}
	}
	if len(out) == 0 {
		return nil, "the idea changes nothing: " + strings.Join(already, ", ")
	}
	return out, ""
}

// ideaPattern reads "NAME = VALUE", "NAME: VALUE" and "NAME to VALUE" in
// an idea's text.
var ideaPattern = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.]*)\s*(?:=|:|\bto\b)\s*(-?[0-9][0-9.eE+-]*|[A-Za-z_][A-Za-z0-9_.+-]*)`)

// ideaPairs are the settings an idea sets, name and value, in a fixed
// order: its edits, else what its text writes as assignments.
func ideaPairs(edits map[string]string, text string) [][2]string {
	var out [][2]string
	for _, k := range sortedKeys(edits) {
		out = append(out, [2]string{k, edits[k]})
	}
	if len(out) > 0 {
		return out
	}
	for _, m := range ideaPattern.FindAllStringSubmatch(text, -1) {
		v := strings.TrimRight(m[2], ".,;")
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			out = append(out, [2]string{m[1], v})
		}
	}
	return out
}

// findSetting is the setting named like name: one whose name equals it
// (case and separators aside), else the shortest that holds it, the first
// in file order among equals.
func findSetting(sites []setting, name string) (setting, bool) {
	key := nameKey(name)
	if key == "" {
		return setting{}, false
	}
	best := -1
	for i, s := range sites {
		k := nameKey(s.name)
		switch {
		case k == key:
			return s, true
		case strings.Contains(k, key) && (best < 0 || len(k) < len(nameKey(sites[best].name))):
			best = i
		}
	}
	if best < 0 {
		return setting{}, false
	}
	return sites[best], true
}

// textChanges are the changes of an idea that names settings in words
// but gives no value ("a smaller learning rate"): each setting whose name
// (or its words past "default") the text holds as consecutive words,
// moved the way the text says (halved, doubled), else by a sampled
// factor.
func textChanges(text string, sites []setting, r *rng) ([]change, string) {
	words := nameWords(text)
	held := map[string]bool{}
	for i := range words {
		k := ""
		for j := i; j < len(words) && j < i+3; j++ {
			k += words[j]
			held[k] = true
		}
	}
	factor := factors[r.next()%uint64(len(factors))]
	switch {
	case slices.ContainsFunc(words, func(w string) bool { return slices.Contains(upWords, w) }):
		factor = 2
	case slices.ContainsFunc(words, func(w string) bool { return slices.Contains(downWords, w) }):
		factor = 0.5
	}
	var out []change
	for _, s := range sites {
		sw := nameWords(s.name)
		if len(sw) > 1 && sw[0] == "default" {
			sw = sw[1:]
		}
		if !held[nameKey(s.name)] && !held[strings.Join(sw, "")] {
			continue
		}
		x, _ := strconv.ParseFloat(s.value, 64)
		to := formatLike(s.value, x*factor)
		if to == "" || sameNumber(to, s.value) {
			to = formatLike(s.value, x+1)
		}
		if to != "" {
			out = append(out, change{s, to})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("the idea names no numeric setting of the editable files, and gives none as NAME = VALUE (their settings: %s)", settingNames(sites))
	}
	return out, ""
}

// settingNames lists the names of sites, at most 12, for a reason.
func settingNames(sites []setting) string {
	var names []string
	for _, s := range sites {
		if !slices.Contains(names, s.name) {
			names = append(names, s.name)
		}
	}
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}

// writePatch is the unified diff of changes, one file after another in the
// order shown. stale writes the first change's line as the model
// misremembers it, so the patch does not apply.
func writePatch(src *payload.SourceContext, changes []change, stale bool) string {
	var b strings.Builder
	for fi, f := range src.Files {
		lines := strings.Split(f.Content, "\n")
		before := slices.Clone(lines)
		// Right to left within a line, so earlier spans stay put.
		var mine []change
		for _, c := range changes {
			if c.at.file == fi {
				mine = append(mine, c)
			}
		}
		if len(mine) == 0 {
			continue
		}
		slices.SortFunc(mine, func(a, b change) int {
			if a.at.line != b.at.line {
				return a.at.line - b.at.line
			}
			return b.at.lo - a.at.lo
		})
		for _, c := range mine {
			l := lines[c.at.line]
			lines[c.at.line] = l[:c.at.lo] + c.to + l[c.at.hi:]
		}
		if stale {
			before[mine[0].at.line] += " // was"
			stale = false
		}
		b.WriteString(textdiff.Unified("a/"+f.Path, "b/"+f.Path, strings.Join(before, "\n"), strings.Join(lines, "\n")))
	}
	return b.String()
}
