package compiler

import (
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/formula"
	"github.com/assay-lang/assay/lang/spec"
)

// Options tune a compilation.
type Options struct {
	// MaxVariants caps how many variants a sweep may expand to; 0 means
	// DefaultMaxVariants. A grid grows multiplicatively, and a typo in a
	// value list should not become a million-variant plan.
	MaxVariants int
	// Learned replaces assumptions of the spec with figures a run
	// measured, by assumption name (as plan.Assumption names them, e.g.
	// "critic.screen.routed_share"); a name the plan does not assume is
	// ignored.
	Learned map[string]Learned
	// Set are --set PATH=VALUE settings, applied to the spec before any
	// pass reads it and recorded in the plan (plan.Plan.Overrides).
	Set []Setting
	// CheckRepository checks that dir is a git repository in which rev
	// names a commit, for a source block (see source.go); nil skips the
	// check. The compiler runs nothing itself: the command line passes
	// base/gitrepo's check, so validate refuses what run would.
	CheckRepository func(dir, rev string) error
	// CheckImport checks that dir, less the exclude globs and with the
	// overlay directory laid over it, can be imported as a source's seed
	// program; nil skips the check (base/gitrepo's CheckImport is run's).
	CheckImport func(dir string, exclude []string, overlay string) error
}

// Learned is a figure a run measured, standing in for an assumption.
type Learned struct {
	Value plan.Count
	// From says where it was measured, e.g. "run 20261130-101500-ab12".
	From string
	// Missing, when set, says why the run has no figure (e.g. it routed no
	// candidate): the spec's value stays, and the assumption says why.
	Missing string
}

// DefaultMaxVariants is the sweep size limit when Options.MaxVariants is 0.
const DefaultMaxVariants = 1000

// pass is one named stage of compilation.
type pass struct {
	name string
	fn   func(*compilation)
	// needsClean passes run only when no error has been found so far: they
	// assume a sound spec.
	needsClean bool
}

// passes run in this order; each comment says why it comes where it does.
var passes = []pass{
	// set comes first: a --set acts as if the spec said it, so presets,
	// defaults and every check see the value.
	{name: "set", fn: applySettings},
	// presets come first so that every later pass sees the merged spec, and
	// a preset's values are checked exactly like the user's.
	{name: "presets", fn: applyPresets},
	// defaults come before resolve so that role kinds filled from role names
	// are known when references are checked against kinds.
	{name: "defaults", fn: applyDefaults},
	// resolve checks every reference once, on the unswept spec: references
	// cannot be swept, so every variant shares the result.
	{name: "resolve", fn: resolve},
	// bind settles which role, critic and reward every block calls, once,
	// before sweep copies the spec, so every variant shares the bindings.
	{name: "bind", fn: bind},
	// purpose needs only the block lists; a spec that does nothing is
	// reported once, whatever else it lacks.
	{name: "purpose", fn: purpose},
	// sweep expansion comes before check and domain so that every variant's
	// values are checked, and a bad swept value is reported at the axis.
	{name: "sweep", fn: expandSweep},
	// check: required fields, enums and plain ranges, per variant.
	{name: "check", fn: check},
	// plugin configs are checked against the built-ins' schemas per
	// variant, like every other field.
	{name: "pluginconfig", fn: checkPluginConfigs},
	// limits come before domain: domain counts tasks and multiplies counts,
	// which only means something within the limits; a variant past them
	// skips domain.
	{name: "limits", fn: limits},
	// domain checks need sound fields and resolved references.
	{name: "domain", fn: domain},
	// formulas need defaults (the route formula) and run per variant since
	// a formula's variables depend on nothing swept; dedup removes repeats.
	{name: "formulas", fn: checkFormulas},
	// applies refuses fields set where nothing reads them; it asks which
	// names formulas read, so it follows the formulas pass.
	{name: "applies", fn: applies},
	// ignored follows every per-variant check: a field that takes no
	// effect is an error only when no variant of the sweep reads it.
	{name: "ignored", fn: settleIgnored},
	// canonical sorts the blocks whose order means nothing, just before
	// lower, so that every earlier diagnostic keeps the declaration order
	// and the plan does not depend on it.
	{name: "canonical", fn: canonical, needsClean: true},
	// lower builds the plan; it assumes a spec without errors.
	{name: "lower", fn: lower, needsClean: true},
	// hash is last: it covers the whole lowered plan.
	{name: "hash", fn: hashPlan, needsClean: true},
}

// compilation is the state the passes share.
type compilation struct {
	opts     Options
	spec     *spec.Spec
	idx      *index
	variants []*variant
	plan     *plan.Plan
	diags    diag.Diagnostics
	// checked holds every formula the formulas pass parsed and checked
	// clean, by its text, for lowering to carry into the plan.
	checked map[string]*formula.Expr
	// overrides are the --set values applied, by path, for the plan.
	overrides map[string]any
	// ignored holds the per-variant refusals of fields that take no
	// effect, by field, in the order first seen, until settleIgnored.
	ignored      map[ignoredKey]*ignoredSet
	ignoredOrder []ignoredKey
	// repos caches CheckRepository's answer by directory and revision,
	// so a sweep checks each repository once.
	repos map[string]error
}

// variant is one point of a sweep: a deep copy of the spec with the axis
// values set.
type variant struct {
	name      string
	overrides map[string]any
	spec      *spec.Spec
	idx       *index
	// tooLarge marks a variant the limits pass refused.
	tooLarge bool
}

func (c *compilation) add(items ...any) { c.diags = c.diags.Append(items...) }

// Compile checks s and lowers it to a plan. It never modifies s. All
// diagnostics are returned at once, sorted by position and deduplicated. The
// plan is nil when any error was found.
func Compile(s *spec.Spec, opts Options) (*plan.Plan, diag.Diagnostics) {
	p, ds := CompilePartial(s, opts)
	if ds.HasErrors() {
		return nil, ds
	}
	return p, ds
}

// CompilePartial is Compile, except that it also returns what compiled when
// errors were found, as Terraform returns an errored plan: when every error
// leaves the spec sound (see soundErrors: a budget the fixed runs exceed, a
// field set where it takes no effect), the spec is still lowered, and the
// plan shows its phases and counts beside the errors, for validate, plan
// and editors to show. Such a plan has no hash and must not run: a caller
// that runs plans uses Compile. The diagnostics are Compile's, exactly; the
// plan is nil when an error found before lowering leaves the spec unsound.
func CompilePartial(s *spec.Spec, opts Options) (*plan.Plan, diag.Diagnostics) {
	if s == nil {
		return nil, diag.Diagnostics{diag.Errorf("E_INTERNAL", diag.Range{}, "no spec to compile")}
	}
	if s.Extends.Set {
		// Only lang/load can read the base; compiling the extending file
		// alone would report every inherited field as missing.
		return nil, diag.Diagnostics{diag.Errorf(CodeExtendsUnloaded, s.Extends.Range, "the spec extends %q, but its base was not merged in", s.Extends.V).
			WithDetail("Load specs with lang/load (every assay command does): it reads the base and merges this spec over it.")}
	}
	if opts.MaxVariants <= 0 {
		opts.MaxVariants = DefaultMaxVariants
	}
	c := &compilation{opts: opts, spec: cloneSpec(s)}
	for i, p := range passes {
		if p.needsClean && c.diags.HasErrors() {
			c.lowerPartial(passes[i:])
			break
		}
		p.fn(c)
	}
	ds := c.diags.Dedup()
	ds.Sort()
	return c.plan, ds
}

// lowerPartial runs the passes rest that build the plan (not the hash) on a
// spec with errors, when every error leaves it sound. What they report is
// dropped: the diagnostics stay Compile's, and an errored spec's budget
// would only be reported twice.
func (c *compilation) lowerPartial(rest []pass) {
	for _, d := range c.diags {
		if d.Severity == diag.Error && !soundErrors[d.Code] {
			return
		}
	}
	kept := c.diags
	defer func() {
		// Lowering assumes a spec without errors; should one of these
		// errors break that after all, the spec has no partial plan
		// rather than crash the editor or command that asked for one.
		if recover() != nil {
			c.plan = nil
		}
		c.diags = kept
	}()
	for _, p := range rest {
		if p.name == "hash" {
			break
		}
		p.fn(c)
	}
}

// PassNames lists the passes in order, for docs and tests.
func PassNames() []string {
	out := make([]string, len(passes))
	for i, p := range passes {
		out[i] = p.name
	}
	return out
}

// hashPlan hashes the plan. Its lists are in canonical order already: the
// canonical pass sorted the spec, and lowering keeps the spec's order.
func hashPlan(c *compilation) {
	c.plan.ComputeHash()
}
