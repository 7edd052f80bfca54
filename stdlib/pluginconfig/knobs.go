package pluginconfig

import (
	"fmt"

	"github.com/assay-lang/assay/base/valuetype"
)

// KnobType is the type of a command knob's values, from its config entry
// (a knobs entry Decode accepted): its values, or its type with bounds and
// pattern; without either, the kind of its default as the spec wrote it
// (a number, a bool, a string). The trainer gives it to the runtime
// (plugins.Knob), which checks every value a proposal sets against it.
func KnobType(v Values) valuetype.Type {
	t := valuetype.Type{Kind: v.String("type"), Values: v.Scalars("values"), Pattern: v.String("pattern")}
	if v.Has("min") {
		t.Min = num(v.Float("min"))
	}
	if v.Has("max") {
		t.Max = num(v.Float("max"))
	}
	if t.Kind == "" && len(t.Values) == 0 {
		switch x := v["default"].(type) {
		case bool:
			t.Kind = valuetype.Bool
		case string:
			t.Kind = valuetype.String
		default:
			if _, ok := number(x); ok {
				t.Kind = valuetype.Number
			}
		}
	}
	return t
}

// checkKnobs checks each knob's type and that its default is of it: a
// default or -var a proposal could not set is refused where the config is.
func checkKnobs(cfg map[string]any) []Problem {
	var ps []Problem
	for _, e := range (Values(cfg)).Entries("knobs") {
		if len(checkObject(knobFields, "", e.Values, nil)) > 0 {
			continue // the schema reports it
		}
		path := "knobs." + e.Name
		t := KnobType(e.Values)
		if p := t.Problem(); p != "" {
			ps = append(ps, Problem{Path: path, Kind: ValueErr, Msg: p})
			continue
		}
		if !e.Has("default") {
			continue // missing, which the schema reports
		}
		if err := t.Check(e.Scalar("default")); err != nil {
			ps = append(ps, Problem{Path: path + ".default", Kind: ValueErr,
				Msg: fmt.Sprintf("%v: a knob's default is of its type, as every value a proposal sets is", err)})
		}
	}
	return ps
}
