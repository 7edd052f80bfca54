package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/assay-lang/assay/base/gitrepo"
	release "github.com/assay-lang/assay/base/version"
	"github.com/assay-lang/assay/compiler"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/load"
	"github.com/assay-lang/assay/lang/spec"
)

// Exit codes, documented in docs/cli.md and the root help.
const (
	exitOK          = 0
	exitUser        = 1  // invalid spec, broken cap, failed run
	exitCap         = 4  // assay run and resume: the run ended, but a budget cap cut a phase (state stopped_at_cap)
	exitPhaseFailed = 5  // assay run and resume: a phase measured nothing and ended the run (state phase_failed)
	exitUsage       = 64 // bad command line (sysexits EX_USAGE), distinct from diff's 2 = changed
)

// version is set at link time (-ldflags "-X main.version=..."); otherwise
// it comes from the module's build information.
var version = ""

// started is set once cobra has parsed flags and arguments and is about to
// run a command, so run can tell usage errors from command failures.
var started bool

// noColor is the --no-color flag.
var noColor bool

// rootCmd is the assay command. Every subcommand adds itself in its own
// file: func init() { rootCmd.AddCommand(newXCmd()) }.
var rootCmd = &cobra.Command{
	Use:   "assay",
	Short: "Assay: validate, plan, price and run AutoResearch experiment specs",
	Long: `Assay reads an experiment spec (HCL, CUE, or JSON or YAML, which CUE
reads), checks it, lowers it to an execution plan, prices it and runs it
with trainer, LLM and benchmark plugins.

Exit codes:
  0  success
  1  the spec is invalid, a budget cap is broken, or a run failed
  2  assay diff only: the specs differ (3: a --fail-above limit was crossed)
  4  assay run and resume only: the run ended, but a budget cap stopped or
     shrank one of its phases (state stopped_at_cap; status says which)
  5  assay run and resume only: a phase measured nothing and ended the run:
     every build failed, every call of a role was unparsed, or no candidate
     got a real run (state phase_failed; status says which and why)
  64 usage error: unknown command or flag, wrong arguments

Flags written with one dash (-var, -var-file, -json, -check, -diff,
-format, -upgrade, -out) mean the same as with two.`,
	Version:       buildVersion(),
	SilenceUsage:  true,
	SilenceErrors: true,
	PersistentPreRun: func(*cobra.Command, []string) {
		started = true
	},
}

func init() {
	// Run the root's pre-run hook even when a subcommand defines its own.
	cobra.EnableTraverseRunHooks = true
	rootCmd.PersistentFlags().BoolVar(&noColor, "no-color", false, "do not colour output (also when NO_COLOR is set or output is not a terminal)")
	rootCmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("%v\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return release.Build()
}

// exitError ends the process with code after printing msg (when not empty)
// to standard error.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// userErrorf is a failure caused by the user's input: exit code 1.
func userErrorf(format string, args ...any) error {
	return &exitError{code: exitUser, msg: fmt.Sprintf(format, args...)}
}

// silentFailure exits 1 without a message, for commands that already
// printed what went wrong (diagnostics).
func silentFailure() error { return &exitError{code: exitUser} }

// usageArgs checks the argument count: between lo and hi (hi < 0: any).
func usageArgs(lo, hi int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < lo || (hi >= 0 && len(args) > hi) {
			want := fmt.Sprintf("%d", lo)
			switch {
			case hi < 0:
				want = fmt.Sprintf("at least %d", lo)
			case hi != lo:
				want = fmt.Sprintf("%d to %d", lo, hi)
			}
			return &exitError{code: exitUsage, msg: fmt.Sprintf("%s takes %s argument(s), got %d\nUsage: %s", c.CommandPath(), want, len(args), c.UseLine())}
		}
		return nil
	}
}

// longFlags may be written with one dash, as in -var name=value.
var longFlags = []string{"var", "var-file", "set", "json", "check", "diff", "format", "no-color", "upgrade", "upgrade-prompts", "out"}

// normalizeArgs rewrites -name and -name=value to --name forms for the
// flags in longFlags; pflag reads a single dash as shorthand letters.
func normalizeArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			name, _, _ := strings.Cut(a[1:], "=")
			for _, f := range longFlags {
				if name == f {
					a = "-" + a
					break
				}
			}
		}
		out = append(out, a)
	}
	return out
}

// specFlags are -var and -var-file, shared by every command that reads a
// spec, and --set where the command compiles it (addSetFlag).
type specFlags struct {
	vars     []string
	varFiles []string
	sets     []string
}

func addSpecFlags(c *cobra.Command) *specFlags {
	f := &specFlags{}
	c.Flags().StringArrayVar(&f.vars, "var", nil, "set a variable: name=value (repeatable)")
	c.Flags().StringArrayVar(&f.varFiles, "var-file", nil, "read variables from an HCL file of name = value lines (repeatable)")
	return f
}

// setHelp is the --set flag's help, shared by every command that has it.
const setHelp = "set a field or map entry: PATH=VALUE, e.g. critic.screen.votes=9, 'calibration.after_steps=[8, 16]'; PATH=V1,V2,... sweeps it (repeatable; recorded in the plan; see assay plan --help)"

// addSetFlag adds --set PATH=VALUE to a command that compiles a spec read
// through f; compileSpec and compileOptions apply it.
func addSetFlag(c *cobra.Command, f *specFlags) {
	c.Flags().StringArrayVar(&f.sets, "set", nil, setHelp)
	// Shell completion offers the settable paths of the spec named on the
	// command line (its labelled blocks included), or of the schema alone.
	_ = c.RegisterFlagCompletionFunc("set", func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		var s *spec.Spec
		if len(args) > 0 {
			s, _, _ = load.Load(args[len(args)-1], f.options())
		}
		paths := spec.SettablePaths(s)
		for i := range paths {
			paths[i] += "="
		}
		return paths, cobra.ShellCompDirectiveNoSpace
	})
}

func (f *specFlags) options() load.Options {
	return load.Options{Vars: f.vars, VarFiles: f.varFiles}
}

// compileOptions turns --set into compiler options. Its diagnostics point
// into the pseudo-file compiler.SetSource, which it adds to src for
// snippets.
func (f *specFlags) compileOptions(src load.Sources) (compiler.Options, diag.Diagnostics) {
	if len(f.sets) == 0 {
		return compiler.Options{}, nil
	}
	if src != nil {
		src[compiler.SetSource] = compiler.SetSourceText(f.sets)
	}
	sets, ds := compiler.ParseSettings(f.sets)
	return compiler.Options{Set: sets}, ds
}

// compileSpec loads and compiles the spec at path. It returns the plan,
// every diagnostic and the sources read, for rendering.
func compileSpec(path string, f *specFlags) (*plan.Plan, diag.Diagnostics, load.Sources) {
	return compileSpecWith(path, f, compiler.Options{})
}

// compileSpecWith compiles the spec at path with compiler options (the
// figures a run measured, for estimate --from-run).
func compileSpecWith(path string, f *specFlags, opts compiler.Options) (*plan.Plan, diag.Diagnostics, load.Sources) {
	if f == nil {
		f = &specFlags{}
	}
	s, src, diags := load.Load(path, f.options())
	co, sds := f.compileOptions(src)
	co.Learned = opts.Learned
	// A source's repository is checked with real git, as run reads it.
	co.CheckRepository = gitrepo.Check
	co.CheckImport = checkImport
	opts = co
	if diags.HasErrors() || s == nil {
		return nil, diags.Append(sds), src
	}
	p, cdiags := compiler.Compile(s, opts)
	diags = diags.Append(sds, cdiags)
	diags.Sort()
	if diags.HasErrors() {
		p = nil
	}
	return p, diags, src
}

// checkImport is the compiler's check of a directory a source imports:
// base/gitrepo's, as run imports it.
func checkImport(dir string, exclude []string, overlay string) error {
	return gitrepo.CheckImport(gitrepo.ImportSource{Dir: dir, Exclude: exclude, Overlay: overlay})
}

// mustCompile compiles the spec at path, prints its diagnostics to standard
// error, and fails (exit 1) when there are errors.
func mustCompile(c *cobra.Command, path string, f *specFlags) (*plan.Plan, load.Sources, error) {
	p, diags, src := compileSpec(path, f)
	printDiags(c.ErrOrStderr(), diags, src)
	if diags.HasErrors() || p == nil {
		return nil, src, silentFailure()
	}
	return p, src, nil
}

// printDiags renders diagnostics with their source snippets.
func printDiags(w io.Writer, diags diag.Diagnostics, src load.Sources) {
	if len(diags) == 0 {
		return
	}
	diags.Annotate(src)
	out := escapeControls(diags.Format(0))
	if useColor(w) {
		out = strings.ReplaceAll(out, "error[", "\x1b[1;31merror\x1b[0m[")
		out = strings.ReplaceAll(out, "warning[", "\x1b[1;33mwarning\x1b[0m[")
	}
	fmt.Fprint(w, out)
}

// useColor reports whether w is a terminal and colour is allowed.
func useColor(w io.Writer) bool {
	if noColor || os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
