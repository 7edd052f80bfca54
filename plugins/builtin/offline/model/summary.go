package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assay-lang/assay/plugins/payload"
)

// summarizePatch describes what a proposal's patch changes, read from the
// patch alone: each numeric setting it changes, in which file, from what
// to what ("defaultLR in train.go from 0.03 to 0.06"), and how many other
// lines of which files it changes; the mechanism is read off the
// settings' names. The idea's text and edits play no part, so the summary
// is of the change that is measured.
func summarizePatch(req *payload.SummarizeRequest, seed int64) *payload.SummarizeResponse {
	sets, other := patchChanges(req.Proposal.Patch)
	var parts, mechs []string
	for _, c := range sets {
		parts = append(parts, fmt.Sprintf("%s in %s from %s to %s", c.name, c.file, c.from, c.to))
		if m := mechanismOf(c.name); !slices.Contains(mechs, m) {
			mechs = append(mechs, m)
		}
	}
	for _, f := range other {
		parts = append(parts, fmt.Sprintf("%d other line(s) of %s", f.lines, f.file))
	}
	if len(parts) == 0 {
		return &payload.SummarizeResponse{Summary: "The patch changes no line."}
	}
	forms := []string{"Changes %s.", "The patch changes %s.", "A code change: %s."}
	r := newRNG(seed, "summarize:"+req.Proposal.ID)
	s := fmt.Sprintf(forms[r.next()%uint64(len(forms))], strings.Join(parts, "; "))
	if len(mechs) > 0 {
		s += " Mechanism: " + strings.Join(mechs, ", ") + "."
	}
	return &payload.SummarizeResponse{Summary: s}
}

// settingChange is one setting a patch changes.
type settingChange struct{ file, name, from, to string }

// fileLines counts the changed lines of a file that change no setting.
type fileLines struct {
	file  string
	lines int
}

// patchChanges reads a unified diff: the settings it changes (a removed
// and an added line that set the same name to different numbers), and per
// file the other lines it adds or removes.
func patchChanges(patch string) (sets []settingChange, other []fileLines) {
	file := ""
	var minus, plus []string
	count := map[string]int{}
	var order []string
	flush := func() {
		used := map[int]bool{}
		for _, m := range minus {
			matched := false
			for _, ms := range lineSettings(0, 0, file, m, true) {
				for j, p := range plus {
					if used[j] {
						continue
					}
					for _, ps := range lineSettings(0, 0, file, p, true) {
						if ps.name == ms.name && !sameNumber(ps.value, ms.value) {
							sets = append(sets, settingChange{file, ms.name, ms.value, ps.value})
							used[j], matched = true, true
						}
					}
					if matched {
						break
					}
				}
			}
			if !matched {
				count[file]++
			}
		}
		for j := range plus {
			if !used[j] {
				count[file]++
			}
		}
		minus, plus = nil, nil
	}
	for _, line := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(line, "+++ "):
			flush()
			file = strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(line, "+++ ")), "b/")
			if !slices.Contains(order, file) {
				order = append(order, file)
			}
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "diff "), strings.HasPrefix(line, "index "):
			flush()
		case strings.HasPrefix(line, "-"):
			if len(plus) > 0 {
				flush()
			}
			minus = append(minus, line[1:])
		case strings.HasPrefix(line, "+"):
			plus = append(plus, line[1:])
		default:
			flush()
		}
	}
	flush()
	for _, f := range order {
		if count[f] > 0 {
			other = append(other, fileLines{f, count[f]})
		}
	}
	return sets, other
}
