package trainer

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/assay-lang/assay/plugins"
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

var configKeys = []string{"command", "update_command", "apply", "overrides_file", "overrides_format", "repo", "revision",
	"metric_file", "metric_field", "metric_regex", "time_limit", "infeasible_exit_codes",
	"infeasible_patterns", "timeout_infeasible", "run_dir", "env", "pass_env", "knobs"}

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

// ParseConfig reads the plugin block's config. Every error names the field.
func ParseConfig(m map[string]any) (*Config, error) {
	c := &Config{Apply: ApplyOverrides, RunDir: "assay-runs"}
	var err error
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		v := m[k]
		switch k {
		case "command":
			c.Command, err = str(v)
		case "update_command":
			c.UpdateCommand, err = str(v)
		case "apply":
			c.Apply, err = str(v)
		case "overrides_file":
			c.OverridesFile, err = str(v)
		case "overrides_format":
			c.OverridesFormat, err = str(v)
		case "repo":
			c.Repo, err = str(v)
		case "revision":
			c.Revision, err = str(v)
		case "metric_file":
			c.MetricFile, err = str(v)
		case "metric_field":
			c.MetricField, err = str(v)
		case "metric_regex":
			var s string
			if s, err = str(v); err == nil {
				c.MetricRegex, err = regexp.Compile(s)
				if err == nil && c.MetricRegex.NumSubexp() == 0 {
					err = fmt.Errorf("%q has no capture group; put the number in one, e.g. \"val_bpb=([0-9.eE+-]+)\"", s)
				}
			}
		case "time_limit":
			c.TimeLimit, err = duration(v)
		case "infeasible_exit_codes":
			c.InfeasibleExitCodes, err = ints(v)
		case "infeasible_patterns":
			var ps []string
			if ps, err = strs(v); err == nil {
				for i, p := range ps {
					re, rerr := regexp.Compile(p)
					if rerr != nil {
						err = fmt.Errorf("element %d: %v", i, rerr)
						break
					}
					c.InfeasiblePatterns = append(c.InfeasiblePatterns, re)
				}
			}
		case "timeout_infeasible":
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("want true or false, got %T", v)
			}
			c.TimeoutInfeasible = b
		case "run_dir":
			c.RunDir, err = str(v)
		case "env":
			c.Env, err = strMap(v)
		case "pass_env":
			c.PassEnv, err = strs(v)
		case "knobs":
			c.Knobs, err = knobs(v)
		default:
			return nil, fmt.Errorf("config.%s: unknown setting of the command trainer%s; known: %s",
				k, suggest(k, configKeys), strings.Join(configKeys, ", "))
		}
		if err != nil {
			return nil, fmt.Errorf("config.%s: %v", k, err)
		}
	}
	hasCommand := strings.TrimSpace(c.Command) != ""
	if !hasCommand && strings.TrimSpace(c.UpdateCommand) == "" {
		return nil, fmt.Errorf("config.command: missing; the command trainer needs the command that trains, e.g. command = \"python train.py --config {{config}}\", or update_command for a policy updater")
	}
	if hasCommand {
		if c.command, err = compileCommand(c.Command); err != nil {
			return nil, fmt.Errorf("config.command: %w", err)
		}
	}
	if strings.TrimSpace(c.UpdateCommand) != "" {
		if c.update, err = compileCommand(c.UpdateCommand); err != nil {
			return nil, fmt.Errorf("config.update_command: %w", err)
		}
	}
	for k := range c.Env {
		if !identRE.MatchString(k) {
			return nil, fmt.Errorf("config.env: %q is not a variable name (letters, digits and _, not starting with a digit)", k)
		}
	}
	for _, k := range c.PassEnv {
		if !identRE.MatchString(k) {
			return nil, fmt.Errorf("config.pass_env: %q is not a variable name (letters, digits and _, not starting with a digit)", k)
		}
	}
	switch c.Apply {
	case ApplyOverrides:
	case ApplyPatch:
		if c.Repo == "" {
			return nil, fmt.Errorf("config.repo: apply = \"patch\" needs the repository to check out and patch")
		}
		if c.Revision == "" {
			return nil, fmt.Errorf("config.revision: apply = \"patch\" needs a pinned revision (a commit), so every run starts from the same code")
		}
	default:
		return nil, fmt.Errorf("config.apply: %q is not a way to apply a proposal; use \"overrides\" or \"patch\"", c.Apply)
	}
	if c.Revision != "" && c.Repo == "" {
		return nil, fmt.Errorf("config.revision: set without config.repo")
	}
	if c.OverridesFile == "" {
		c.OverridesFile = "overrides.json"
	}
	if c.OverridesFormat == "" {
		switch {
		case strings.HasSuffix(c.OverridesFile, ".yaml"), strings.HasSuffix(c.OverridesFile, ".yml"):
			c.OverridesFormat = "yaml"
		case strings.HasSuffix(c.OverridesFile, ".json"):
			c.OverridesFormat = "json"
		default:
			c.OverridesFormat = "env"
		}
	}
	if c.OverridesFormat != "json" && c.OverridesFormat != "yaml" && c.OverridesFormat != "env" {
		return nil, fmt.Errorf("config.overrides_format: %q is not json, yaml or env", c.OverridesFormat)
	}
	if c.OverridesFormat == "env" {
		for _, k := range c.Knobs {
			if !identRE.MatchString(k.Name) {
				return nil, fmt.Errorf("config.knobs: %q cannot be a line of the KEY=VALUE overrides file %s, which a shell may source; name the knob with letters, digits and _, or use a .json or .yaml overrides file", k.Name, c.OverridesFile)
			}
		}
	}
	switch {
	case !hasCommand:
		// A policy updater alone reports no metric.
	case c.MetricFile == "" && c.MetricRegex == nil:
		return nil, fmt.Errorf("config.metric_file: missing; say where the metric is: metric_file (+ metric_field) for a JSON file the command writes, or metric_regex for a line of its stdout")
	case c.MetricFile != "" && c.MetricRegex != nil:
		return nil, fmt.Errorf("config.metric_regex: set together with metric_file; use one")
	case c.MetricField != "" && c.MetricFile == "":
		return nil, fmt.Errorf("config.metric_field: set without metric_file")
	case c.MetricFile != "" && c.MetricField == "":
		return nil, fmt.Errorf("config.metric_field: missing; name the JSON field of %s that holds the metric, e.g. \"eval.val_bpb\"", c.MetricFile)
	}
	return c, nil
}

func suggest(k string, known []string) string {
	best, bestD := "", 3
	for _, c := range known {
		if d := levenshtein(k, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + best + "?"
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %T", v)
	}
	return s, nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// duration reads "90s", "2h", "1h30m" or a number of seconds.
func duration(v any) (time.Duration, error) {
	if n, ok := number(v); ok {
		if n < 0 {
			return 0, fmt.Errorf("negative duration %v", n)
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	s, ok := v.(string)
	if !ok {
		return 0, fmt.Errorf("want a duration such as \"2h\" or \"90s\", got %T", v)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"2h\" or \"90s\"", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	return d, nil
}

func list(v any) ([]any, error) {
	switch l := v.(type) {
	case []any:
		return l, nil
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, nil
	case []int:
		out := make([]any, len(l))
		for i, n := range l {
			out[i] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list, got %T", v)
}

func ints(v any) ([]int, error) {
	l, err := list(v)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(l))
	for i, x := range l {
		n, ok := number(x)
		if !ok || n != math.Trunc(n) {
			return nil, fmt.Errorf("element %d: want a whole number, got %v", i, x)
		}
		out[i] = int(n)
	}
	return out, nil
}

func strs(v any) ([]string, error) {
	l, err := list(v)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(l))
	for i, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("element %d: want a string, got %T", i, x)
		}
		out[i] = s
	}
	return out, nil
}

// scalar renders a string, number or bool as the string a command sees.
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	}
	if n, ok := number(v); ok {
		return strconv.FormatFloat(n, 'g', -1, 64), true
	}
	return "", false
}

func strMap(v any) (map[string]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if sm, ok := v.(map[string]string); ok {
			return sm, nil
		}
		return nil, fmt.Errorf("want a map of strings, got %T", v)
	}
	out := map[string]string{}
	for k, x := range m {
		s, ok := scalar(x)
		if !ok {
			return nil, fmt.Errorf("%s: want a string, got %T", k, x)
		}
		out[k] = s
	}
	return out, nil
}

// knobs reads knobs = { name = { default = "...", mechanism = "...", values = [...] } }.
func knobs(v any) ([]plugins.Knob, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("want a map from knob name to { default, mechanism, values }, got %T", v)
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []plugins.Knob
	for _, name := range names {
		km, ok := m[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want { default, mechanism, values }, got %T", name, m[name])
		}
		k := plugins.Knob{Name: name}
		for f, x := range km {
			var err error
			switch f {
			case "default":
				var ok bool
				if k.Default, ok = scalar(x); !ok {
					err = fmt.Errorf("want a string or number, got %T", x)
				}
			case "mechanism":
				k.Mechanism, err = str(x)
			case "values":
				var l []any
				if l, err = list(x); err == nil {
					for i, e := range l {
						s, ok := scalar(e)
						if !ok {
							err = fmt.Errorf("element %d: want a string or number, got %T", i, e)
							break
						}
						k.Values = append(k.Values, s)
					}
				}
			default:
				err = fmt.Errorf("unknown field; knobs have default, mechanism and values")
			}
			if err != nil {
				return nil, fmt.Errorf("%s.%s: %v", name, f, err)
			}
		}
		out = append(out, k)
	}
	return out, nil
}
