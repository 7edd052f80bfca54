// Package formula is Assay's small typed expression language for reward,
// penalty and routing formulas, such as
//
//	clip(predicted_gain / scale, -c, c) + diversity_bonus
//	uncertainty >= threshold
//
// It owns parsing (Parse), type checking against a name table (Expr.Check),
// evaluation (Expr.Eval) and canonical rendering (Expr.String). The name
// tables (RewardVars, InfeasibleVars, RepeatVars, RouteVars) are the contract
// between the compiler, which type-checks every formula of a spec against the
// table of the field that holds it, and the runtime, which binds exactly
// those names when it evaluates the formula. Each table is read from one
// struct (RewardEnv, InfeasibleEnv, RepeatEnv, RouteEnv) whose fields the
// runtime fills, so it cannot bind a name the checker does not know.
//
// Literals are numbers and the booleans true and false.
//
// Formulas are parsed once and evaluated many times: Eval walks a compact
// tree and does not allocate on success.
//
// Next phase: the compiler (package compiler) checks formulas while lowering
// a spec; the plan keeps their source text and the runtime re-parses it.
package formula
