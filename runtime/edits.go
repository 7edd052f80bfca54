package runtime

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assay-lang/assay/base/valuetype"
	"github.com/assay-lang/assay/plugins"
)

// refusedEdits says why a proposal's edits are not all of their knobs'
// types, "" when they are: every edit names a knob the trainer described
// and sets a value of its type (base/valuetype). With no knobs described,
// an edit's value is a plain word. A proposal so refused never reaches a
// trainer: its value cannot become code in whatever program reads it.
func refusedEdits(knobs []plugins.Knob, edits map[string]string) string {
	// A proposal edits a few of a trainer's dozen knobs, once per
	// candidate: a linear look-up, without a map built per call.
	for _, name := range slices.Sorted(maps.Keys(edits)) {
		var k plugins.Knob
		ok := false
		for _, kn := range knobs {
			if kn.Name == name {
				k, ok = kn, true // the last of a name, as a map of them kept
			}
		}
		switch {
		case !ok && len(knobs) > 0:
			names := make([]string, len(knobs))
			for i, k := range knobs {
				names[i] = k.Name
			}
			return fmt.Sprintf("the edit %s names no knob of the trainer; its knobs are %s", valuetype.Quote(name), strings.Join(names, ", "))
		case !ok:
			k = plugins.Knob{Name: name, Type: valuetype.String}
		}
		if err := k.Check(edits[name]); err != nil {
			return fmt.Sprintf("the edit %s = %v", name, err)
		}
	}
	return ""
}

// editsOutsideTypes checks proposal p's edits against knobs and, when one
// is refused, counts it in m and logs it: the candidate is then
// infeasible, or its build is repaired, as a failed build is. at names
// the answer in the log: "builder call KEY" or "proposal KEY".
func editsOutsideTypes(knobs []plugins.Knob, p plugins.Proposal, m *measured, log *progress, at string) string {
	why := refusedEdits(knobs, p.Edits)
	if why != "" {
		m.refusedEdits()
		log.logf("%s: %s; refused before any run", at, why)
	}
	return why
}
