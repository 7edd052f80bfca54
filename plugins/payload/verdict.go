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

// ParseVerdict reads a critic's label from free text: the first group of
// pattern's first match, matched case-insensitively against the label
// space's labels and returned as the space spells it. RE2 matches in time
// linear in the text, whatever the pattern.
func ParseVerdict(pattern, space, text string) (string, error) {
	if len(pattern) > MaxVerdictPattern {
		return "", fmt.Errorf("the verdict pattern is over %d bytes", MaxVerdictPattern)
	}
	re, ok := verdicts.Load(pattern)
	if !ok {
		c, err := regexp.Compile(pattern)
		if err != nil {
			return "", fmt.Errorf("the verdict pattern does not compile: %v", err)
		}
		if c.NumSubexp() < 1 {
			return "", fmt.Errorf("the verdict pattern %q has no group", pattern)
		}
		re, _ = verdicts.LoadOrStore(pattern, c)
	}
	m := re.(*regexp.Regexp).FindStringSubmatch(text)
	if m == nil {
		return "", fmt.Errorf("no verdict matches %q", pattern)
	}
	got := strings.TrimSpace(m[1])
	for _, l := range LabelSet(space) {
		if strings.EqualFold(l, got) {
			return l, nil
		}
	}
	return "", fmt.Errorf("the verdict %q is not one of %s", got, strings.Join(LabelSet(space), ", "))
}
