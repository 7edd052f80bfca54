package trainer

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/builtin/command/executor"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// Ways a proposal is applied.
const (
	ApplyOverrides = "overrides"
	ApplyPatch     = "patch"
)

// Config is the command trainer's parsed plugin config.
type Config struct {
	// Command is the command template (bash), rendered once per run.
	Command string
	// UpdateCommand is the policy-update command template (bash), rendered
	// once per policy update (plugins.PolicyJob); "" when this trainer
	// trains no policy.
	UpdateCommand string
	// TaskCommand, when set, is the command as argv (a task suite's
	// evaluation command); it replaces Command and runs in TaskDir.
	TaskCommand []string
	TaskDir     string
	// Apply is how a proposal reaches the command: ApplyOverrides writes its
	// edits to OverridesFile; ApplyPatch checks out Repo at Revision and
	// applies its patch.
	Apply           string
	OverridesFile   string
	OverridesFormat string // json | yaml | env
	Repo            string
	Revision        string
	// MetricFile and MetricField locate the metric in a JSON file the
	// command writes; MetricRegex finds it in stdout instead.
	MetricFile  string
	MetricField string
	MetricRegex *regexp.Regexp
	// TimeLimit bounds one run (0: none, unless the request sets one).
	TimeLimit time.Duration
	// InfeasibleExitCodes and InfeasiblePatterns (matched against stderr)
	// mark a run infeasible: the proposal does not build or crashes.
	InfeasibleExitCodes []int
	InfeasiblePatterns  []*regexp.Regexp
	// TimeoutInfeasible counts a run past its time limit as infeasible
	// rather than failed.
	TimeoutInfeasible bool
	// RunDir holds per-run directories when the request names none.
	RunDir string
	// Env is exported to the command.
	Env map[string]string
	// PassEnv names variables the command inherits from the environment
	// assay runs in, besides executor.BaseEnv; nothing else reaches it.
	PassEnv []string
	// Knobs are what proposals may edit, with defaults.
	Knobs []plugins.Knob

	// command is Command parsed, its placeholders replaced by references;
	// update is UpdateCommand parsed. Either is nil when not configured.
	command *commandTemplate
	update  *commandTemplate
}

// configError is a fault of the plugin block's config (plugins.ErrInvalidConfig):
// the runtime stops on it instead of retrying.
type configError struct{ err error }

func (e *configError) Error() string        { return e.err.Error() }
func (e *configError) Unwrap() error        { return e.err }
func (e *configError) Is(target error) bool { return target == plugins.ErrInvalidConfig }

// parseConfig is ParseConfig with its errors marked as the config's.
func parseConfig(m map[string]any) (*Config, error) {
	c, err := ParseConfig(m)
	if err != nil {
		return nil, &configError{err}
	}
	return c, nil
}

// ParseConfig reads the plugin block's config through its declaration,
// Schema (pluginconfig.Command), which `assay validate` checks too: every
// key, type, default and rule is stated there once, so a config validate
// accepts is one the trainer accepts. Every error names the field.
func ParseConfig(m map[string]any) (*Config, error) {
	v, err := Schema.Decode(m)
	if err != nil {
		return nil, err
	}
	c := &Config{Command: v.String("command"), UpdateCommand: v.String("update_command"), Apply: v.String("apply"),
		OverridesFile: v.String("overrides_file"), Repo: v.String("repo"), Revision: v.String("revision"),
		MetricFile: v.String("metric_file"), MetricField: v.String("metric_field"), TimeLimit: v.Duration("time_limit"),
		InfeasibleExitCodes: v.Ints("infeasible_exit_codes"), TimeoutInfeasible: v.Bool("timeout_infeasible"),
		RunDir: v.String("run_dir"), Env: v.ScalarMap("env"), PassEnv: v.Strings("pass_env")}
	c.OverridesFormat = pluginconfig.OverridesFormat(c.OverridesFile, v.String("overrides_format"))
	// The schema checked each expression; compiling it again cannot fail.
	if v.Has("metric_regex") {
		c.MetricRegex = regexp.MustCompile(v.String("metric_regex"))
	}
	for _, p := range v.Strings("infeasible_patterns") {
		c.InfeasiblePatterns = append(c.InfeasiblePatterns, regexp.MustCompile(p))
	}
	for _, k := range v.Entries("knobs") {
		t := pluginconfig.KnobType(k.Values)
		c.Knobs = append(c.Knobs, plugins.Knob{Name: k.Name, Default: k.Scalar("default"), Mechanism: k.String("mechanism"), Values: t.Values,
			Type: t.Kind, Min: t.Min, Max: t.Max, Pattern: t.Pattern})
	}
	// The schema compiled the templates too (its Validate); the trainer
	// keeps its own parse, which the runs render.
	if strings.TrimSpace(c.Command) != "" {
		if c.command, err = compileCommand(c.Command); err != nil {
			return nil, fmt.Errorf("config.command: %w", err)
		}
	}
	c.TaskCommand, c.TaskDir = v.Strings("task_command"), v.String("task_dir")
	if len(c.TaskCommand) > 0 {
		if c.command, err = argvCommand(c.TaskCommand); err != nil {
			return nil, fmt.Errorf("config.task_command: %w", err)
		}
	}
	if strings.TrimSpace(c.UpdateCommand) != "" {
		if c.update, err = compileCommand(c.UpdateCommand); err != nil {
			return nil, fmt.Errorf("config.update_command: %w", err)
		}
	}
	return c, nil
}

// argvCommand is argv as run.sh's command: each word single-quoted, so
// bash passes it as it is, and nothing of it is a placeholder.
func argvCommand(argv []string) (*commandTemplate, error) {
	words := make([]string, len(argv))
	for i, w := range argv {
		if strings.ContainsRune(w, 0) {
			return nil, fmt.Errorf("word %d holds a NUL byte, which no argument can carry", i)
		}
		words[i] = executor.Quote(w)
	}
	if strings.TrimSpace(argv[0]) == "" {
		return nil, fmt.Errorf("the program (word 0) is empty")
	}
	return &commandTemplate{Body: strings.Join(words, " ") + "\n"}, nil
}
