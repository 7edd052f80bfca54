package pluginconfig

import (
	"strings"

	"github.com/assay-lang/assay/base/valuetype"
)

// Prefix starts the source of a built-in plugin: source = "builtin:NAME".
const Prefix = "builtin:"

// All lists the built-in plugins' schemas, by name.
var All = []*Schema{Command, Offline, OpenAI, TinyLM}

// Lookup returns the schema of a plugin source, when it is a built-in one.
func Lookup(source string) (*Schema, bool) {
	name, ok := strings.CutPrefix(source, Prefix)
	if !ok {
		return nil, false
	}
	for _, s := range All {
		if s.Builtin == name {
			return s, true
		}
	}
	return nil, false
}

func num(f float64) *float64 { return &f }

// secondsField is a positive number of seconds up to a day, which keeps it
// inside a time.Duration.
func secondsField(name string, def float64, doc string) *Field {
	return &Field{Name: name, Type: Number, Default: def, Min: num(0), MinExclusive: true, Max: num(86400), Doc: doc}
}

// OpenAI is builtin:openai, an LLM client for servers that speak the
// OpenAI chat-completions API.
var OpenAI = &Schema{
	Builtin:        "openai",
	Kind:           "llm",
	ServesAdapters: true,
	RetriesKey:     "max_retries",
	Doc: "LLM client for any server that speaks the OpenAI chat-completions API (hosted APIs, vLLM, Ollama, llama.cpp). " +
		"Requests go only to base_url: there is no default endpoint. The API key is read from the environment variable api_key_env names, never from the spec. " +
		"Before any phase a run checks the endpoint once, with one GET of base_url/models (at most 10 seconds, no retry): one that does not answer, or refuses the key, stops the run with an error naming the URL and the cause. " +
		"A prompt is counted before it is sent, as one token per byte of every message plus 8 per message and 8 for the reply (an upper bound for byte-level tokenizers), and one over the role's high tokens.in is refused, not truncated. " +
		"A call reports the usage of every attempt that may be billed: an answered one at what the server reports (a negative figure at its bound), one that timed out at its prompt count and max_tokens, and none the server refused with an error status.",
	Fields: []*Field{
		{Name: "base_url", Type: URL, Required: true,
			Doc: "API root every request goes to, e.g. \"http://127.0.0.1:8000/v1\" for a local server or your provider's API root; there is no default, and it may carry neither user:password@ nor a query string (?api-key=...)"},
		{Name: "model", Type: String, NonBlank: true, Doc: "model id for roles that set none"},
		{Name: "api_key_env", Type: String, NonBlank: true, Default: "OPENAI_API_KEY",
			Doc: "environment variable holding the API key; when it is unset or empty no key is sent"},
		{Name: "requests_per_second", Type: Number, Default: 0.0, Min: num(0), Doc: "rate limit; 0 means none"},
		{Name: "max_concurrency", Type: Int, Default: 8.0, Min: num(1), Max: num(1e6), Doc: "requests in flight at once"},
		{Name: "max_retries", Type: Int, Default: 5.0, Min: num(0), Max: num(1e6), Doc: "retries after the first attempt of a request that failed transiently (429, 5xx, timeouts); each attempt may be billed, so the dollar cap holds a call for max_retries + 1 attempts at the role's high tokens"},
		secondsField("timeout_seconds", 120, "time limit of one attempt, in seconds"),
		secondsField("backoff_seconds", 1, "delay before the first retry, in seconds; it doubles each retry"),
		secondsField("max_backoff_seconds", 60, "cap on the retry delay, in seconds"),
		{Name: "json_mode", Type: Bool, Default: true, Doc: "send response_format json_object, asking the server for a JSON answer, on calls whose answer is read as a JSON object (not a critic read by a pattern, a proposer read as free text, or a source-mode builder, whose change may be a diff or SEARCH/REPLACE blocks)"},
	},
	Forbidden: forbidKeys("an API key is never read from the spec; export it in an environment variable and name that with api_key_env (default OPENAI_API_KEY)",
		"api_key", "key", "token", "api_token", "authorization"),
}

func forbidKeys(msg string, keys ...string) map[string]string {
	m := map[string]string{}
	for _, k := range keys {
		m[k] = msg
	}
	return m
}

// Offline is builtin:offline, the embedded LLM.
var Offline = &Schema{
	Builtin:      "offline",
	Kind:         "llm",
	Doc:          "embedded model for every LLM role, for experiments without network or API key",
	TrainsPolicy: true,
}

// TinyLM is builtin:tinylm, the CPU trainer of a tiny character-level
// language model.
var TinyLM = &Schema{
	Builtin: "tinylm",
	Kind:    "trainer",
	Doc:     "trains a tiny character-level language model on the CPU and reports validation bits per byte",
	Fields: []*Field{
		{Name: "steps", Type: Int, Default: 2000.0, Min: num(1), Max: num(1e9), Doc: "optimiser steps per run"},
		{Name: "eval_positions", Type: Int, Default: 4096.0, Min: num(1), Max: num(1e6),
			Doc: "validation positions the reported loss averages, evenly spaced (fewer: faster and noisier, as a training script's eval_iters)"},
		{Name: "corpus", Type: String, Enum: []string{"grammar", "opticks"},
			DefaultDoc: "the task's name when it names a corpus, else \"grammar\"", Doc: "text the model learns"},
	},
}

// knobFields declare a command knob: its default, its type and what the
// type admits (base/valuetype).
var knobFields = []*Field{
	{Name: "default", Type: Scalar, Required: true, Doc: "value of the unedited configuration, of the knob's type"},
	{Name: "mechanism", Type: String, Doc: "what the knob acts through, e.g. \"optimizer\""},
	{Name: "values", Type: ScalarList, Doc: "values a proposal may choose, and the only ones: each a number, true, false or a plain word (and of type, when set)"},
	{Name: "type", Type: String, Enum: valuetype.Kinds,
		DefaultDoc: "the default's own: \"number\" for a number, \"bool\" for true or false, \"string\" for a string",
		Doc:        "what a value is: \"number\" or \"integer\" (within min and max), \"bool\" (true or false), or \"string\" (matching pattern)"},
	{Name: "min", Type: Number, Doc: "least value of a number or integer knob"},
	{Name: "max", Type: Number, Doc: "greatest value of a number or integer knob"},
	{Name: "pattern", Type: Regex, DefaultDoc: "a plain word: `" + valuetype.WordPattern + "`",
		Doc: "regular expression a string knob's value matches whole; whatever it admits, a value holds only letters, digits and " + valuetype.Marks + ", at most 256 bytes"},
}

// JobBaseEnv names the variables every job of builtin:command inherits
// from the environment assay runs in: what programs need to run at all.
var JobBaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// DefaultOverridesFile is builtin:command's overrides_file when the config
// names none.
const DefaultOverridesFile = "overrides.json"

// Command is builtin:command, the trainer that runs the user's own
// training command once per real run. Where the command runs (locally or
// on Slurm) is the spec's executor block, not this config.
var Command = &Schema{
	Builtin:      "command",
	Kind:         "trainer",
	UpdateKey:    "update_command",
	Validate:     checkCommandTemplates,
	SpecValidate: checkSpecPlaceholders,
	Doc: "runs your own training command once per real run, in a working directory of its own, and reads the metric it reports; " +
		"with update_command it also runs your RL training command once per policy update of a loop whose update block names it. " +
		"Where the command runs (local or Slurm) is the spec's executor block",
	Fields: []*Field{
		{Name: "command", Type: String,
			Doc: "the command that trains: a bash template rendered once per run, e.g. \"python train.py --config {{config}} --seed {{seed}}\""},
		{Name: "update_command", Type: String,
			Doc: "the command that trains the proposer policy on one update's batch: a bash template rendered once per update, e.g. \"python grpo_step.py --batch {{batch}} --out {{adapter_dir}}\" (see docs/policy-training.md)"},
		{Name: "task_command", Type: StringList,
			Doc: "the command that trains, as argv: each word is passed as it is and no shell reads it; it replaces command. " +
				"Assay sets it on each run of a task-suite task to the task's evaluation command (docs/task-suites.md)"},
		{Name: "task_dir", Type: String,
			Doc: "directory task_command runs in: absolute, or relative to the run's directory (its checkout with repo); Assay sets it to a suite task's scaffold directory"},
		{Name: "apply", Type: String, Enum: []string{"overrides", "patch"}, Default: "overrides",
			Doc: "how a proposal reaches the command: \"overrides\" writes its edits to overrides_file; \"patch\" checks out repo at revision and applies its patch"},
		{Name: "overrides_file", Type: String, Default: DefaultOverridesFile, Doc: "file the edits are written to, in the run's directory ({{config}} in the command)"},
		{Name: "overrides_format", Type: String, Enum: []string{"json", "yaml", "env"},
			DefaultDoc: "from overrides_file's extension: .yaml or .yml gives yaml, .json json, anything else env", Doc: "format of overrides_file"},
		{Name: "repo", Type: String, Doc: "repository to check out for each run (a path or a URL git can clone)"},
		{Name: "revision", Type: String, Doc: "pinned revision (a commit) of repo, so every run starts from the same code"},
		{Name: "metric_file", Type: String, Doc: "JSON file the command writes the metric to (relative to the run's directory, or with {{workdir}})"},
		{Name: "metric_field", Type: String, Doc: "dotted path of the metric in metric_file, e.g. \"eval.val_bpb\""},
		{Name: "metric_regex", Type: Regex, Groups: 1, Doc: "regular expression whose first capture group is the metric in the command's stdout, e.g. \"val_bpb=([0-9.eE+-]+)\""},
		{Name: "time_limit", Type: Duration, DefaultDoc: "none, unless the run request sets one", Doc: "time limit of one run, e.g. \"2h\""},
		{Name: "infeasible_exit_codes", Type: IntList, Doc: "exit codes that mark a run infeasible (the proposal does not build or crashes) rather than an error, which a source-mode candidate's builder is asked to repair"},
		{Name: "infeasible_patterns", Type: RegexList, Doc: "regular expressions that, matched against stderr, mark a run infeasible"},
		{Name: "timeout_infeasible", Type: Bool, Default: false, Doc: "count a run past its time limit as infeasible rather than failed"},
		{Name: "run_dir", Type: String, Default: "assay-runs", Doc: "directory of the per-run directories when the run request names none"},
		{Name: "env", Type: ScalarMap, Doc: "environment variables exported to the command. The command inherits nothing else of the environment assay runs in but " +
			strings.Join(JobBaseEnv, ", ") + " (and the names in pass_env), so no API key of an LLM plugin reaches it"},
		{Name: "pass_env", Type: StringList, Doc: "names of variables the command inherits from the environment assay runs in, besides the base ones (e.g. [\"HF_HOME\", \"WANDB_API_KEY\"]); " +
			"on Slurm they travel with sbatch --export. An LLM plugin's API key variable (api_key_env) is refused"},
		{Name: "knobs", Type: ObjectMap, Doc: "what proposals may edit, by knob name; every knob has a type (values, or type with its bounds or pattern), and its default and every value a proposal sets are of it",
			Fields: knobFields},
	},
	Notes: commandNotes,
	Rules: []Rule{
		{AnyOf: []string{"command", "update_command", "task_command"},
			Why: "the command trainer needs the command that trains, e.g. command = \"python train.py --config {{config}}\", or update_command for a policy updater"},
		{If: "command", OneOf: []string{"metric_file", "metric_regex"},
			Why: "say where the metric is: metric_file (with metric_field) for a JSON file the command writes, or metric_regex for a line of its stdout"},
		{If: "task_command", OneOf: []string{"metric_file", "metric_regex"},
			Why: "say where the metric of a task's command is: metric_file (with metric_field) for a JSON file it writes, or metric_regex for a line of its stdout"},
		{If: "task_dir", Need: []string{"task_command"}, Why: "task_dir is where task_command runs"},
		{If: "metric_file", Need: []string{"metric_field"}, Why: "name the JSON field that holds the metric, e.g. \"eval.val_bpb\""},
		{If: "metric_field", Need: []string{"metric_file"}, Why: "metric_field is a field of metric_file"},
		{If: "apply", IfValue: "patch", Need: []string{"repo", "revision"}, Why: "a patch is applied to a checkout of repo at a pinned revision"},
		{If: "revision", Need: []string{"repo"}, Why: "revision is a revision of repo"},
	},
}

// commandNotes say what builtin:command guarantees of the values it runs
// commands with, and where that stops.
var commandNotes = []string{
	"**Values are data.** Every knob has a type: one of its `values`, or its `type`: a number or an integer (within `min` and `max`), " +
		"a bool, or a string matching `pattern` (by default a plain word: letters, digits and `._+-`, not starting with `-`). " +
		"Whatever the type, a value holds only letters, digits and `" + valuetype.Marks + "`, at most 256 bytes: never a quote, a `$`, " +
		"a backquote, a backslash, a space, a newline or another control character. `assay validate` refuses a default outside its " +
		"knob's type (written in the spec or set with `-var`) at the plugin's config. A proposal or build whose edit is outside its knob's " +
		"type (or names no knob) is refused before anything runs: the candidate is infeasible, or its build goes back to the builder " +
		"while the loop's `repairs` allow, and `assay status --json` counts each refusal (`refused_edits`). When the config declares no " +
		"knobs, an edit (`{{index .edits \"name\"}}`) is a plain word.",
	"**Templates only quote.** In `command` and `update_command` each placeholder becomes a double-quoted reference to a variable " +
		"that `run.sh` defines single-quoted, so bash passes the value on as one word, or the tail or head of one (`--lr={{lr}}`, " +
		"`{{workdir}}/m.json`), and never parses it again. `assay validate` refuses a placeholder in a word that holds more than plain " +
		"text (letters, digits and `" + plainText + "`) beside it, such as the code of `bash -c \"train {{lr}}\"` or " +
		"`python3 -c \"print({{lr}})\"`: pass the value as an argument after the code (`bash -c 'train \"$1\"' _ {{lr}}`). It also " +
		"refuses, by bash's grammar alone, a placeholder where bash itself reads the word as a command, a name, a number or code: " +
		"the command's name (also after `exec`, `command`, `builtin`), arithmetic, `${...}`, `$'...'`, a here-document, `>&` and `<&`, " +
		"`[[ -eq ]]` and `[[ -v ]]`, the operands of `eval`, `trap`, `let`, `alias`, `read`, `unset`, `mapfile`, `getopts`, " +
		"`printf -v` and `test -v`, `declare` and `export` names, the script `.` or `source` runs (but `{{config}}` and `{{workdir}}`, " +
		"which the trainer makes), an assignment to `PATH` or to a variable bash runs or evaluates (`PS4`, `PROMPT_COMMAND`, " +
		"`BASH_ENV`, `RANDOM`, ..., or one declared `-i` or `-n`), and `{{if}}` and other template logic. A variable assigned a value " +
		"(`v={{x}}`, `read`, a function's `$1`) is checked wherever it is expanded.",
	"**Where it stops.** Assay keeps no table of programs: what a program does with its arguments is the program's, and each " +
		"value reaches it as data by its type, not by an analysis of the program. A program that evaluates its input (`bash -c {{x}}`, " +
		"`eval \"$X\"` in a script, Python's `exec` and `os.system`, awk's `system`, git's configuration through `git -c {{x}}`) " +
		"receives a value that can carry no argument, quote, substitution, redirection or second command; but a plain word can still " +
		"name a program that exists, which such a program would run without arguments; so can a program that runs the word after its " +
		"options as a command (`env A=1 {{x}}`, `timeout 60 {{x}}`, `xargs {{x}}`); and a pattern that admits `/` lets a value name " +
		"any file. A program of your own that evaluates its input is yours to keep safe: never hand it a value as code. The built-in " +
		"placeholders (`{{workdir}}`, `{{task}}`, `{{seed}}`, an update's `{{base_model}}`, ...) come from the plan, not from a " +
		"proposal, and are quoted the same way.",
}
