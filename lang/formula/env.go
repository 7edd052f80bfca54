package formula

import (
	"fmt"
	"reflect"
)

// The name tables and the runtime's bindings come from one declaration: a
// struct type per table, whose fields, tagged with their formula names, are
// what the runtime fills, and from whose fields the table the compiler
// checks against is read. So the runtime cannot bind a name the checker
// does not know, nor leave one of the table unbound. A float64 field is a
// Number, a bool field a Bool.

// RewardEnv binds the names of reward.value (RewardVars).
type RewardEnv struct {
	PredictedGain  float64 `formula:"predicted_gain"`
	Gain           float64 `formula:"gain"`
	RealGain       float64 `formula:"real_gain"`
	Scale          float64 `formula:"scale"`
	Baseline       float64 `formula:"baseline"`
	C              float64 `formula:"c"`
	DiversityBonus float64 `formula:"diversity_bonus"`
	LabelScore     float64 `formula:"label_score"`
}

// InfeasibleEnv binds the names of reward.infeasible (InfeasibleVars).
type InfeasibleEnv struct {
	C        float64 `formula:"c"`
	MinValid float64 `formula:"min_valid"`
	Delta    float64 `formula:"delta"`
}

// RepeatEnv binds the names of a repeat-penalty formula (RepeatVars).
type RepeatEnv struct {
	MinValid float64 `formula:"min_valid"`
	Delta    float64 `formula:"delta"`
	C        float64 `formula:"c"`
}

// RouteEnv binds the names of critic.route (RouteVars).
type RouteEnv struct {
	Uncertainty  float64 `formula:"uncertainty"`
	Threshold    float64 `formula:"threshold"`
	Votes        float64 `formula:"votes"`
	Agreement    float64 `formula:"agreement"`
	MeanRank     float64 `formula:"mean_rank"`
	ImproveShare float64 `formula:"improve_share"`
}

// Env binds every name of RewardVars.
func (e RewardEnv) Env() Env { return envOf(reflect.ValueOf(e)) }

// Env binds every name of InfeasibleVars.
func (e InfeasibleEnv) Env() Env { return envOf(reflect.ValueOf(e)) }

// Env binds every name of RepeatVars.
func (e RepeatEnv) Env() Env { return envOf(reflect.ValueOf(e)) }

// Env binds every name of RouteVars.
func (e RouteEnv) Env() Env { return envOf(reflect.ValueOf(e)) }

// tableOf reads the name table of an environment struct.
func tableOf(t reflect.Type) map[string]Type {
	out := make(map[string]Type, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		out[f.Tag.Get("formula")] = typeOf(f.Type)
	}
	return out
}

// envOf binds every field of an environment struct to its name.
func envOf(v reflect.Value) Env {
	t := v.Type()
	env := make(Env, t.NumField())
	for i := range t.NumField() {
		name, f := t.Field(i).Tag.Get("formula"), v.Field(i)
		if typeOf(f.Type()) == Bool {
			env[name] = BoolV(f.Bool())
		} else {
			env[name] = Num(f.Float())
		}
	}
	return env
}

// typeOf is the formula type of an environment field's Go type.
func typeOf(t reflect.Type) Type {
	switch t.Kind() {
	case reflect.Float64:
		return Number
	case reflect.Bool:
		return Bool
	}
	panic(fmt.Sprintf("formula: an environment field of type %s; use float64 or bool", t))
}
