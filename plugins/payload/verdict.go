package payload

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// MaxVerdictPattern bounds a verdict pattern's length (the compiler
// refuses a longer one).
const MaxVerdictPattern = 512

var verdicts sync.Map // pattern -> *regexp.Regexp

// VerdictRule is one label of a verdict read by named groups: the answer
// is Label when each named group in Groups reads its value.
type VerdictRule struct {
	Label  string            `json:"label"`
	Groups map[string]string `json:"groups"`
}

// ParseVerdict reads a critic's label from free text: the first group of
// pattern's first match, matched case-insensitively against the label
// space's labels and returned as the space spells it. RE2 matches in time
// linear in the text, whatever the pattern.
func ParseVerdict(pattern, space, text string) (string, error) {
	return ParseVerdictGroups(pattern, nil, space, text)
}

// ParseVerdictGroups is ParseVerdict, except that with rules the label is
// the one rule whose named groups all read their values (trimmed,
// case-insensitively) in pattern's first match: a verdict written in two
// tags ([IMPROVEMENT] improve ... [WINTIER] big) that one group cannot
// read. No rule matching, or several, is an error: the answer is unread.
func ParseVerdictGroups(pattern string, rules []VerdictRule, space, text string) (string, error) {
	re, err := verdictRegexp(pattern)
	if err != nil {
		return "", err
	}
	m := re.FindStringSubmatch(text)
	if m == nil {
		return "", fmt.Errorf("no verdict matches %q", pattern)
	}
	got := strings.TrimSpace(m[1])
	if len(rules) > 0 {
		if got, err = ruleLabel(re, m, rules); err != nil {
			return "", err
		}
	}
	for _, l := range LabelSet(space) {
		if strings.EqualFold(l, got) {
			return l, nil
		}
	}
	return "", fmt.Errorf("the verdict %q is not one of %s", got, strings.Join(LabelSet(space), ", "))
}

// verdictRegexp is pattern compiled once, refused when it is over its
// bound or has no group.
func verdictRegexp(pattern string) (*regexp.Regexp, error) {
	if len(pattern) > MaxVerdictPattern {
		return nil, fmt.Errorf("the verdict pattern is over %d bytes", MaxVerdictPattern)
	}
	if re, ok := verdicts.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	c, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("the verdict pattern does not compile: %v", err)
	}
	if c.NumSubexp() < 1 {
		return nil, fmt.Errorf("the verdict pattern %q has no group", pattern)
	}
	re, _ := verdicts.LoadOrStore(pattern, c)
	return re.(*regexp.Regexp), nil
}

// ruleLabel is the label of the one rule that match m's named groups.
func ruleLabel(re *regexp.Regexp, m []string, rules []VerdictRule) (string, error) {
	read := map[string]string{}
	for i, n := range re.SubexpNames() {
		if n != "" && read[n] == "" {
			read[n] = strings.TrimSpace(m[i])
		}
	}
	var hits []string
	for _, r := range rules {
		ok := len(r.Groups) > 0
		for g, v := range r.Groups {
			got, named := read[g]
			ok = ok && named && strings.EqualFold(got, strings.TrimSpace(v))
		}
		if ok {
			hits = append(hits, r.Label)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("no verdict reads the groups %s", groupsText(re, read))
	}
	return "", fmt.Errorf("the groups %s read as %s at once", groupsText(re, read), strings.Join(hits, " and "))
}

// groupsText is what the named groups read, in the pattern's order.
func groupsText(re *regexp.Regexp, read map[string]string) string {
	var parts []string
	for _, n := range re.SubexpNames() {
		if v, ok := read[n]; ok && n != "" {
			if len(v) > 40 {
				v = v[:40] + "..."
			}
			parts = append(parts, fmt.Sprintf("%s=%q", n, v))
			delete(read, n)
		}
	}
	return strings.Join(parts, " ")
}
