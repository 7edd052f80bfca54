package compiler

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/assay-lang/assay/base/critic"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// maxVerdictValue bounds a value a verdict's group reads.
const maxVerdictValue = 64

// answerVerdicts checks a pattern answer's verdict blocks: each names a
// label of every label space the role is judged in and groups the pattern
// names, every label of those spaces has a block, and no block's groups
// read whenever another's do (an answer would then always read as both).
func (k *checker) answerVerdicts(r *spec.Role, a *spec.Answer) {
	if len(a.Verdicts) == 0 {
		return
	}
	if a.Format.V != "pattern" {
		k.add(diag.Errorf(CodeNotApplicable, k.at(a.Verdicts[0].NameRange, a.Range), "role %q: answer verdict blocks read a pattern's named groups, but format is not \"pattern\"", r.Name).
			WithDetail(`Set format = "pattern" and a pattern with named groups, or remove the verdict blocks.`))
		return
	}
	re, err := regexp.Compile(a.Pattern.V)
	if err != nil {
		return // refused by answerPattern
	}
	named := namedGroups(re)
	if len(named) == 0 {
		k.add(diag.Errorf(CodeAnswerPattern, k.at(a.Pattern.Range, a.Range), "role %q: the answer has verdict blocks, but its pattern has no named group", r.Name).
			WithDetail(`Name the groups the verdicts read: "\\[IMPROVEMENT\\]\\s*(?P<improvement>\\w+)(?s:.*?)\\[WINTIER\\]\\s*(?P<tier>\\w+)".`))
		return
	}
	spaces := k.roleSpaces(r.Name)
	seen := map[string]*spec.Verdict{}
	for _, v := range a.Verdicts {
		at := k.at(v.NameRange, v.Range, a.Range)
		if prev := seen[strings.ToLower(v.Name)]; prev != nil {
			k.add(diag.Errorf(CodeDuplicate, at, "role %q: answer verdict %q is given twice", r.Name, v.Name))
			continue
		}
		seen[strings.ToLower(v.Name)] = v
		for _, sp := range spaces {
			if spelled(sp, v.Name) == "" {
				k.add(diag.Errorf(CodeEnum, at, "role %q: answer verdict %q is not a label of the %s label space its critic %s judges in", r.Name, v.Name, sp, k.criticOf(r.Name, sp)).
					WithDetail("The %s labels are %s.", sp, strings.Join(critic.Labels(sp), ", ")))
			}
		}
		k.verdictGroups(r, v, named)
	}
	for _, sp := range spaces {
		for _, l := range critic.Labels(sp) {
			if seen[strings.ToLower(l)] == nil {
				k.add(diag.Errorf(CodeMissing, k.at(a.Range, r.NameRange), "role %q: no answer verdict reads label %s of the %s label space its critic %s judges in", r.Name, l, sp, k.criticOf(r.Name, sp)).
					WithDetail(`Add verdict "%s" { groups = { NAME = "VALUE" } }: the values the pattern's named groups read for it.`, l))
			}
		}
	}
	k.verdictsDistinct(r, a.Verdicts)
}

// verdictGroups checks one verdict's groups: at least one, each a named
// group of the pattern reading a plain string.
func (k *checker) verdictGroups(r *spec.Role, v *spec.Verdict, named []string) {
	at := k.at(v.Groups.Range, v.NameRange, v.Range)
	if len(v.Groups.V) == 0 {
		k.add(diag.Errorf(CodeMissing, at, "role %q: answer verdict %q names no group", r.Name, v.Name).
			WithDetail("groups = { %s = \"VALUE\" }: the pattern's named groups are %s.", named[0], strings.Join(named, ", ")))
		return
	}
	for _, g := range slices.Sorted(maps.Keys(v.Groups.V)) {
		s, ok := v.Groups.V[g].(string)
		switch {
		case !slices.Contains(named, g):
			k.add(diag.Errorf(CodeUnknownRef, at, "role %q: answer verdict %q reads group %q, which the pattern does not name", r.Name, v.Name, g).
				WithDetail("The pattern's named groups are %s.", strings.Join(named, ", ")))
		case !ok || strings.TrimSpace(s) == "":
			k.add(diag.Errorf(CodeEnum, at, "role %q: answer verdict %q: group %s must read a non-empty string", r.Name, v.Name, g))
		case len(s) > maxVerdictValue:
			k.add(diag.Errorf(CodeRange, at, "role %q: answer verdict %q: group %s's value is %d bytes, over %d", r.Name, v.Name, g, len(s), maxVerdictValue))
		}
	}
}

// verdictsDistinct refuses a verdict whose groups another's include: an
// answer that reads the other reads it too, so the other could never be
// read alone.
func (k *checker) verdictsDistinct(r *spec.Role, vs []*spec.Verdict) {
	for i, a := range vs {
		for j, b := range vs {
			if i == j || len(a.Groups.V) == 0 || len(a.Groups.V) > len(b.Groups.V) || (len(a.Groups.V) == len(b.Groups.V) && i > j) {
				continue
			}
			if includes(b.Groups.V, a.Groups.V) {
				k.add(diag.Errorf(CodeConflict, k.at(b.Groups.Range, b.NameRange), "role %q: every answer that reads verdict %q also reads %q, so it could never be read alone", r.Name, b.Name, a.Name).
					WithDetail("Give the two verdicts a group that reads a different value in each."))
			}
		}
	}
}

// includes: every group of sub reads the same value (case-insensitively) in m.
func includes(m, sub map[string]any) bool {
	for g, v := range sub {
		s, _ := v.(string)
		t, ok := m[g].(string)
		if !ok || !strings.EqualFold(strings.TrimSpace(s), strings.TrimSpace(t)) {
			return false
		}
	}
	return true
}

// roleSpaces are the label spaces of the critic blocks that sample role,
// each once, in block order.
func (k *checker) roleSpaces(role string) []string {
	var out []string
	for _, c := range k.s.Critics {
		if c.Role.Name != role {
			continue
		}
		sp := c.Labels.V
		if sp == "" {
			sp = critic.Space3
		}
		if critic.Labels(sp) != nil && !slices.Contains(out, sp) {
			out = append(out, sp)
		}
	}
	return out
}

// criticOf names the first critic block that samples role in space.
func (k *checker) criticOf(role, space string) string {
	for _, c := range k.s.Critics {
		if c.Role.Name == role && (c.Labels.V == space || (c.Labels.V == "" && space == critic.Space3)) {
			return fmt.Sprintf("%q", c.Name)
		}
	}
	return ""
}

// spelled is label as space spells it, or "" when it is not the space's.
func spelled(space, label string) string {
	for _, l := range critic.Labels(space) {
		if strings.EqualFold(l, label) {
			return l
		}
	}
	return ""
}

// namedGroups are a pattern's named groups, in order.
func namedGroups(re *regexp.Regexp) []string {
	var out []string
	for _, n := range re.SubexpNames() {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// lowerVerdicts are an answer's verdict blocks in block order, each
// label as written (the reader spells it as the call's label space does),
// its groups sorted by name.
func lowerVerdicts(a *spec.Answer) []plan.Verdict {
	var out []plan.Verdict
	for _, v := range a.Verdicts {
		pv := plan.Verdict{Label: v.Name}
		for _, g := range slices.Sorted(maps.Keys(v.Groups.V)) {
			s, _ := v.Groups.V[g].(string)
			pv.Groups = append(pv.Groups, plan.GroupValue{Group: g, Value: strings.TrimSpace(s)})
		}
		out = append(out, pv)
	}
	return out
}
