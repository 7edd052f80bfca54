package archtest

// A home is a top-level directory of the module. Every package lies in one
// (TestEveryPackageHasAHome), so a new directory cannot escape the rules.
var homes = []struct{ dir, holds string }{
	{"base", "leaves: small packages any layer may import; they import nothing of Assay"},
	{"lang", "front ends (hcl, cue, load) and the syntax-neutral spec model, diagnostics and formulas"},
	{"stdlib", "the spec functions and the built-in plugin config schemas"},
	{"compiler", "passes from spec to plan, the plan (compiler/plan) and its estimate"},
	{"runtime", "the interpreter of a compiled plan, its journal and reports"},
	{"plugins", "the plugin protocol, its host, SDK and the built-in plugins"},
	{"lsp", "the language server"},
	{"features", "product features that join several layers (compile, run, estimate); only the command line uses them"},
	{"cmd", "the assay command: the only package that wires every layer together"},
	{"internal", "the repository's own tools and checks (gendocs, reproduce, archtest, contract); nothing imports them"},
	{"examples", "plugins and trainers written as a user outside the repository would"},
}

// everything, as a forbidden prefix, stands for every package of Assay.
const everything = "*"

// A rule forbids packages under from (the package itself or below, except
// the packages under except) to reach anything under the forbid prefixes,
// unless it is under an allowed prefix. Reach is transitive: importing a
// package that is allowed but itself reaches a forbidden one breaks the
// rule at the import that leaves from.
type rule struct {
	from    string
	except  []string
	forbid  []string
	allowed []string
	why     string
}

var rules = []rule{
	{from: "base", forbid: []string{everything},
		why: "base holds leaves: the standard library and third-party modules only, so any layer can import them"},
	{from: "lang", forbid: []string{"compiler", "runtime", "plugins", "cmd"},
		why: "front ends and the spec model come before the compiler, runtime and plugins"},
	{from: "lang/hcl", forbid: []string{"lang/cue"}, why: "front ends never import each other; they meet in lang/spec"},
	{from: "lang/cue", forbid: []string{"lang/hcl"}, why: "front ends never import each other; they meet in lang/spec"},
	{from: "compiler", forbid: []string{"runtime", "plugins", "cmd", "lang/load", "lang/hcl", "lang/cue"},
		why: "the compiler works on the syntax-neutral spec and never runs anything"},
	{from: "plugins", forbid: []string{everything}, allowed: []string{"plugins", "stdlib/pluginconfig", "base"},
		why: "plugins see only the plugin protocol, their config schemas and leaves; never the compiler or runtime, not even through another package"},
	{from: "examples", forbid: []string{everything}, allowed: []string{"plugins", "stdlib/pluginconfig", "base"},
		why: "examples are written as a plugin outside the repository would be: the plugin protocol only"},
	{from: "runtime", forbid: []string{"lang/hcl", "lang/cue", "lang/load", "lang/spec", "compiler", "cmd"}, allowed: []string{"compiler/plan"},
		why: "the runtime executes a compiled plan; it never reads specs or the spec model"},
	{from: "runtime", forbid: pluginInsides,
		why: "the runtime uses plugins through the interface of package plugins (and its payloads) only; the command line hands it plugins started by the host"},
	{from: "stdlib", forbid: []string{"compiler", "runtime", "plugins", "cmd", "lang/hcl", "lang/cue", "lang/load"},
		why: "stdlib is imported by front ends and the compiler"},
	{from: "lsp", forbid: []string{"runtime", "plugins", "cmd"},
		why: "the language server reads specs and compiles them; it never runs anything"},
	{from: "lang", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "compiler", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "runtime", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "plugins", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "stdlib", forbid: []string{"lsp"}, why: "only the command line serves the language server"},
	{from: "stdlib/pluginconfig", forbid: []string{"lang", "stdlib", "compiler", "runtime", "plugins", "cmd"},
		why: "plugins import the built-in config schemas, and plugins see only the plugin protocol"},
	{from: "features", forbid: []string{"cmd", "lsp"},
		why: "features sit below the command line, which wires them in"},
}

// pluginInsides are the packages behind the plugin interface: the host
// that starts plugin processes, its wire (proto, grpcshim), the serving
// side (sdk), and the plugins themselves (built-in and simulated).
var pluginInsides = []string{"plugins/host", "plugins/builtin", "plugins/grpcshim", "plugins/proto", "plugins/sdk", "plugins/sim"}

// An owner limits who may import the packages under pkg: only packages
// under by, and packages under pkg itself. The most specific owner of a
// package holds, so a package can be given its own owner. Tests are not read, so a test may
// import what its package may not.
type owner struct {
	pkg string
	by  []string
	why string
}

var owners = []owner{
	{pkg: "features", by: []string{"cmd", "internal"},
		why: "features join the compiler and the runtime; only the command line (and the repository's tools) use them"},
	{pkg: "internal", why: "internal holds the repository's tools and checks; nothing imports them"},
	{pkg: "cmd", why: "commands are the top of the house; nothing imports them"},
}
