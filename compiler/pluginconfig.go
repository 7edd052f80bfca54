package compiler

import (
	"fmt"
	"strings"

	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// checkPluginConfigs checks the config of every plugin whose source is
// "builtin:NAME" against that built-in's schema, so a typo or a missing
// key is found at validate rather than when the plugin first runs. Other
// sources are the user's own executables; their config is theirs and
// passes unchecked.
func checkPluginConfigs(c *compilation) {
	for _, v := range c.variants {
		for _, p := range v.spec.Plugins {
			checkPluginConfig(c, p, suiteCommand(v.spec, p.Name))
		}
		checkPassEnv(c, v.spec)
		checkSuiteTrainers(c, v.spec)
		checkSourceTrainers(c, v.spec)
	}
	checkSupply(c)
}

// checkPassEnv refuses a command trainer that would hand an LLM plugin's
// API key to its jobs: pass_env or env naming the variable an openai
// plugin reads its key from (api_key_env, default OPENAI_API_KEY).
func checkPassEnv(c *compilation, s *spec.Spec) {
	keyDefault, _ := pluginconfig.OpenAI.Field("api_key_env").Default.(string)
	secrets := map[string]string{keyDefault: "the default API key variable of builtin:openai"}
	for _, p := range s.Plugins {
		if p.Source.V != "builtin:openai" {
			continue
		}
		if k, ok := p.Config.V["api_key_env"].(string); ok {
			secrets[k] = fmt.Sprintf("the API key variable of plugin %q", p.Name)
		} else {
			secrets[keyDefault] = fmt.Sprintf("the API key variable of plugin %q", p.Name)
		}
	}
	for _, p := range s.Plugins {
		if p.Source.V != "builtin:command" {
			continue
		}
		l, _ := p.Config.V["pass_env"].([]any)
		for i, x := range l {
			name, _ := x.(string)
			if why, ok := secrets[name]; ok {
				c.add(diag.Errorf(CodePluginConfig, configRange(c, p), "plugin %q (builtin:command): config.pass_env[%d]: %s is %s; a job never receives an LLM plugin's secret", p.Name, i, name, why).
					WithDetail("remove it from pass_env; the training command needs no LLM key"))
			}
		}
		env, _ := p.Config.V["env"].(map[string]any)
		for _, name := range sortedKeys(env) {
			if why, ok := secrets[name]; ok {
				c.add(diag.Errorf(CodePluginConfig, configRange(c, p), "plugin %q (builtin:command): config.env.%s: %s is %s; a job never receives an LLM plugin's secret", p.Name, name, name, why).
					WithDetail("remove it from env; the training command needs no LLM key"))
			}
		}
	}
}

// configRange is where a plugin's config problems point: the config, or
// the block when config is absent.
func configRange(c *compilation, p *spec.Plugin) diag.Range {
	for _, r := range []diag.Range{p.Config.Range, p.NameRange, p.Source.Range, c.spec.Range} {
		if r.Valid() {
			return r
		}
	}
	return p.Config.Range
}

// checkPluginConfig checks p's config as the plugin receives it: for the
// trainer of a task suite's environment, with a suite task's evaluation
// command as task_command, which the runtime sets on each run of the task.
func checkPluginConfig(c *compilation, p *spec.Plugin, suite []string) {
	if !p.Source.Set {
		return
	}
	s, ok := pluginconfig.Lookup(p.Source.V)
	if !ok {
		return
	}
	cfg := p.Config.V
	if suite != nil && p.Source.V == "builtin:command" {
		cfg = make(map[string]any, len(p.Config.V)+2)
		for k, v := range p.Config.V {
			cfg[k] = v
		}
		words := make([]any, len(suite))
		for i, w := range suite {
			words[i] = w
		}
		cfg["task_command"], cfg["task_dir"] = words, "."
	}
	// The spec keeps one range for the whole config, none per key; a
	// problem points at config, or at the block when config is absent.
	at := configRange(c, p)
	for _, pr := range s.Check(cfg) {
		c.add(pluginConfigDiag(p, s, pr, at))
	}
}

func pluginConfigDiag(p *spec.Plugin, s *pluginconfig.Schema, pr pluginconfig.Problem, at diag.Range) *diag.Diagnostic {
	where := fmt.Sprintf("plugin %q (builtin:%s): config.%s", p.Name, s.Builtin, pr.Path)
	switch pr.Kind {
	case pluginconfig.Missing:
		return diag.Errorf(CodeMissing, at, "%s is missing", where).WithDetail("%s", strings.TrimPrefix(pr.Msg, "missing; "))
	case pluginconfig.EnumErr:
		d := diag.Errorf(CodeEnum, at, "%s: %s", where, pr.Msg)
		if h := diag.DidYouMean(pr.Got, pr.Known); h != "" {
			d.WithDetail("%s", h)
		}
		return d
	case pluginconfig.Unknown:
		d := diag.Errorf(CodePluginConfig, at, "%s is not a setting of builtin:%s", where, s.Builtin)
		if len(pr.Known) == 0 {
			return d.WithDetail("builtin:%s takes no config; remove it", s.Builtin)
		}
		if h := diag.DidYouMean(pr.Got, pr.Known); h != "" {
			return d.WithDetail("%s Known settings: %s", h, strings.Join(pr.Known, ", "))
		}
		return d.WithDetail("known settings: %s", strings.Join(pr.Known, ", "))
	}
	return diag.Errorf(CodePluginConfig, at, "%s: %s", where, pr.Msg)
}

// callAttempts is how many requests one call through the named plugin may
// send, each of which a provider may bill: the built-in's retries key plus
// one, or 1 for a plugin that declares no retries (a plugin outside Assay
// reports the usage of every request it sends, and the runtime stops the
// run if that breaks what it held).
func callAttempts(s *spec.Spec, plugin string) int {
	for _, p := range s.Plugins {
		if p.Name != plugin {
			continue
		}
		sch, ok := pluginconfig.Lookup(p.Source.V)
		if !ok || sch.RetriesKey == "" {
			return 1
		}
		v, err := sch.Decode(p.Config.V)
		if err != nil {
			return 1 // the config pass reports it
		}
		return v.Int(sch.RetriesKey) + 1
	}
	return 1
}

// suiteCommand is the evaluation command of the first suite task of an
// environment that plugin trains, or nil when it trains none.
func suiteCommand(s *spec.Spec, plugin string) []string {
	for _, e := range s.Environments {
		if e.Trainer.Name != plugin {
			continue
		}
		for _, t := range e.TaskList {
			if t.Suite != nil && len(t.Suite.Command) > 0 {
				return t.Suite.Command
			}
		}
		for _, t := range e.TaskList {
			if t.Suite.Has("evaluate") {
				// Every command is a placeholder, which a run refuses
				// (Unready): the config is checked as a run would get it,
				// with a command in its place.
				return []string{"evaluate"}
			}
		}
	}
	return nil
}

// checkSuiteTrainers refuses a task suite whose environment's trainer
// cannot run its evaluation commands: only builtin:command takes a task's
// command (task_command), so any other would train without them.
func checkSuiteTrainers(c *compilation, s *spec.Spec) {
	for _, e := range s.Environments {
		if !e.Suite.Set || !e.Trainer.Set {
			continue
		}
		for _, p := range s.Plugins {
			if p.Name == e.Trainer.Name && p.Source.V != "builtin:command" {
				c.add(diag.Errorf(CodeSuiteTrainer, e.Suite.Range, "environment %q runs a task suite, whose tasks are evaluated by their own commands, but its trainer %q is %s", e.Name, p.Name, p.Source.V).
					WithDetail("make the trainer a plugin with source = \"builtin:command\": it runs each suite task's evaluation command in the task's scaffold"))
			}
		}
	}
}

// checkSourceTrainers refuses, on the trainer of every environment in
// source mode (its own source block or a task's), what would put more
// than the candidate's commit into a run or take no effect there: knobs,
// a command placeholder of a proposal's content, knob mode's settings
// (pluginconfig.SourceModeProblems). The command trainer refuses the
// same when it runs, so validate refuses what run would.
func checkSourceTrainers(c *compilation, s *spec.Spec) {
	done := map[string]bool{}
	for _, e := range s.Environments {
		if !e.Trainer.Set || !sourceMode(e) {
			continue
		}
		for _, p := range s.Plugins {
			if p.Name != e.Trainer.Name || p.Source.V != "builtin:command" || done[p.Name] {
				continue
			}
			done[p.Name] = true
			for _, pr := range pluginconfig.SourceModeProblems(p.Config.V) {
				c.add(diag.Errorf(CodeSourceKnobs, configRange(c, p), "plugin %q (builtin:command) trains environment %q, which is in source mode: config.%s: %s", p.Name, e.Name, pr.Path, pr.Msg).
					WithDetail("%s; an environment in knob mode needs a trainer plugin of its own", pluginconfig.SourceModeWhy))
			}
		}
	}
}

// sourceMode reports whether environment e is in source mode: its own
// source block, or one of a task it lists.
func sourceMode(e *spec.Environment) bool {
	if e.Source != nil {
		return true
	}
	for _, t := range e.TaskList {
		if t.Source != nil {
			return true
		}
	}
	return false
}
