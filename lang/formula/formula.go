package formula

import (
	"reflect"
	"sort"
)

// Type is the type of a formula value.
type Type int

const (
	// Number is a float64.
	Number Type = iota
	// Bool is true or false.
	Bool
)

func (t Type) String() string {
	if t == Bool {
		return "bool"
	}
	return "number"
}

// Value is a typed formula value. Only the field that matches T is meaningful.
type Value struct {
	T    Type
	Num  float64
	Bool bool
}

// Num returns a Number value.
func Num(x float64) Value { return Value{T: Number, Num: x} }

// BoolV returns a Bool value.
func BoolV(b bool) Value { return Value{T: Bool, Bool: b} }

func (v Value) String() string {
	if v.T == Bool {
		if v.Bool {
			return "true"
		}
		return "false"
	}
	return formatNum(v.Num)
}

// Env binds names to values for Eval.
type Env map[string]Value

// Name tables: which names a formula may use, by the field that holds it.
// The compiler checks each formula against its table; the runtime binds
// every name of the table before evaluating, through the table's
// environment struct (RewardEnv, ...), from which the table is read (see
// env.go). VarDocs documents each name.
var (
	// RewardVars are the names of reward.value.
	RewardVars = tableOf(reflect.TypeFor[RewardEnv]())
	// InfeasibleVars are the names of reward.infeasible.
	InfeasibleVars = tableOf(reflect.TypeFor[InfeasibleEnv]())
	// RepeatVars are the names of a repeat-penalty formula.
	RepeatVars = tableOf(reflect.TypeFor[RepeatEnv]())
	// RouteVars are the names of critic.route.
	RouteVars = tableOf(reflect.TypeFor[RouteEnv]())
)

// VarDocs says what each name of the name tables means. A name means the
// same thing in every table that has it.
var VarDocs = map[string]string{
	"predicted_gain":  "gain g_hat predicted by the reward's predictor (the research world model), in the task's metric units, positive = better than baseline",
	"gain":            "the gain the reward is based on: predicted_gain when reward.source = predicted, real_gain when it is real",
	"real_gain":       "gain measured by a real run (baseline minus the metric for a lower-is-better metric); 0 when the proposal was not run",
	"scale":           "the task's scale tau_e, which normalises gains across tasks (1 when the task declares none)",
	"baseline":        "the task's baseline metric b_e",
	"c":               "the reward's clip value c (rewards are clipped to [-c, c])",
	"diversity_bonus": "the proposal's diversity bonus; it shrinks as more proposals of its group share its mechanism direction (0 without a diversity block)",
	"label_score":     "the critic's verdict as a score: +1 for an improvement label, -1 otherwise (reward.source = critic)",
	"min_valid":       "the lowest reward among the valid proposals of the same group",
	"delta":           "the reward's repeat penalty delta",
	"uncertainty":     "u = 1 - the largest share of votes given to one label, in [0, 1)",
	"threshold":       "the critic's uncertainty threshold T",
	"votes":           "k, the number of critic samples per candidate",
	"agreement":       "the largest share of votes given to one label, 1 - uncertainty",
	"mean_rank":       "the mean rank of the voted labels (0 = best label, e.g. BigWin or Improve)",
	"improve_share":   "the share of votes whose label is an improvement",
}

// Table is a documented name table, for the language reference.
type Table struct {
	Name  string // Go name, e.g. "RewardVars"
	Field string // the spec field that uses it
	Vars  map[string]Type
}

// Tables lists the name tables in documentation order.
func Tables() []Table {
	return []Table{
		{"RewardVars", "reward.value", RewardVars},
		{"InfeasibleVars", "reward.infeasible", InfeasibleVars},
		{"RepeatVars", "repeat-penalty formulas", RepeatVars},
		{"RouteVars", "critic.route", RouteVars},
	}
}

// SortedNames returns the names of a table in sorted order.
func SortedNames(vars map[string]Type) []string {
	out := make([]string, 0, len(vars))
	for n := range vars {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
