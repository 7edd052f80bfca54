package runtime

import (
	"context"
	"encoding/json"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// Codes of the diagnostics PromptDiags makes.
const (
	CodePromptTokens      = "E_PROMPT_TOKENS"
	CodePromptTokensGuess = "W_PROMPT_TOKENS"
)

// Codes are the codes this package emits in diagnostics.
var Codes = []diag.Code{
	{Code: CodePromptTokens, Meaning: "a role's first prompt, rendered with the spec's files as a run renders it, counts more tokens than its tokens.in high, and its plugin refuses such a prompt: the run would stop at its first call"},
	{Code: CodePromptTokensGuess, Meaning: "warning: a role's first prompt counts more tokens than its tokens.in high by one token per byte, and its plugin counts its own way: its calls may be refused"},
}

// PromptDiags counts the prompt of every role's first call on every task
// of every variant, rendered as FirstCall renders it (the seed program's
// files, the task's baseline as the parent), against the role's tokens.in
// high, and says the largest over it once per role: an error where count
// is exact (the role's plugin refuses such a prompt, so the run would stop
// at its first call), else a warning. l starts each environment's trainer
// to describe its knobs, as a run does; with l nil the prompts are
// rendered without knobs, which only makes them shorter, so what is over
// stays over. Later calls add history and records to a prompt: assay
// check counts those.
func PromptDiags(ctx context.Context, p *plan.Plan, l Loader, count PromptCounter) diag.Diagnostics {
	var ds diag.Diagnostics
	seen := map[string]bool{}
	described := map[string][]plugins.Knob{} // by trainer and config: the variants of a sweep share most
	for _, v := range p.Variants {
		knobs := map[string][]plugins.Knob{}
		for _, e := range v.Envs {
			if l == nil {
				continue
			}
			id := describeID(v, e)
			if _, ok := described[id]; !ok {
				described[id], _ = describeKnobs(ctx, v, e, l) // a trainer that cannot describe itself shows none
			}
			knobs[e.Name] = described[id]
		}
		for _, ro := range v.Roles {
			pl := pluginOf(v, ro.Plugin)
			if pl == nil || responseOf(ro.Kind) == nil {
				continue
			}
			var worst promptCount
			for _, e := range v.Envs {
				for _, t := range e.Tasks {
					if pc, ok := firstPromptCount(ctx, v, ro, pl, e, t, knobs[e.Name], count); ok && pc.n > worst.n {
						worst = pc
					}
				}
			}
			if d := worst.diag(v, ro, pl); d != nil && !seen[d.Summary] {
				seen[d.Summary] = true
				ds = ds.Append(d)
			}
		}
	}
	return ds
}

// describeID names what an environment's trainer is asked to describe
// itself with: the plugin and the config describeKnobs sends it.
func describeID(v *plan.Variant, e *plan.Environment) string {
	parts := []string{e.Trainer}
	if pl := pluginOf(v, e.Trainer); pl != nil {
		b, _ := json.Marshal(pl.Config)
		parts = append(parts, pl.Source, string(b))
	}
	for _, t := range e.Tasks {
		if len(t.Command) > 0 {
			parts = append(parts, t.Command...)
			break
		}
	}
	return digest(parts...)
}

// promptCount is a role's first prompt on a task, counted.
type promptCount struct {
	task  string
	n     int
	exact bool
}

// firstPromptCount counts role ro's first prompt on task t; ok is false
// when its plugin is sent no prompt, or it cannot be rendered (the
// compiler checked the templates, and a source it cannot read is the
// compiler's to refuse).
func firstPromptCount(ctx context.Context, v *plan.Variant, ro *plan.Role, pl *plan.Plugin, e *plan.Environment, t *plan.Task, knobs []plugins.Knob, count PromptCounter) (promptCount, bool) {
	var src *payload.SourceContext
	if t.Source != nil && (ro.Kind == plugins.RolePropose || ro.Kind == plugins.RoleBuild || ro.Kind == plugins.RoleImplement) {
		var err error
		if src, err = firstSource(ctx, t.Source); err != nil {
			return promptCount{}, false
		}
	}
	in, err := firstInput(v, ro, e.Name, t, knobs, src, exampleProposal(knobs))
	if err != nil {
		return promptCount{}, false
	}
	body, err := payload.Encode(in)
	if err != nil {
		return promptCount{}, false
	}
	criteria := t.Criteria
	if ph := criteriaPlaceholder(ro, t); ph != "" {
		criteria = ph
	}
	msgs, err := renderChat(ro, in, body, criteria)
	if err != nil {
		return promptCount{}, false
	}
	n, exact, ok := count(pl, msgs)
	return promptCount{task: t.Name, n: n, exact: exact}, ok
}

// diag is PromptDiags' diagnostic of role ro's largest first prompt pc,
// nil when it fits.
func (pc promptCount) diag(v *plan.Variant, ro *plan.Role, pl *plan.Plugin) *diag.Diagnostic {
	limit := tokenBound(ro.TokensIn.High)
	if pc.n <= limit {
		return nil
	}
	rng := tokensInSource(v, ro)
	if !pc.exact {
		return diag.Warnf(CodePromptTokensGuess, rng, "role %s's first prompt on task %s counts %d tokens by one token per byte, over its tokens.in high of %d",
			ro.Name, pc.task, pc.n, limit).WithDetail("plugin %s counts its own way and may refuse it; raise the role's tokens.in high, or shorten what its prompt shows (assay prompt shows it)", pl.Name)
	}
	return diag.Errorf(CodePromptTokens, rng, "role %s's first prompt on task %s counts %d tokens, over its tokens.in high of %d: plugin %s refuses it, and the run would stop at its first call",
		ro.Name, pc.task, pc.n, limit, pl.Name).WithDetail("raise the role's tokens.in high to %d at least (later calls add history: assay check counts a later round's prompt), or shorten what its prompt shows (assay prompt shows it)", pc.n)
}
