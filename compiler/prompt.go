package compiler

import (
	"fmt"
	"regexp"
	"regexp/syntax"

	"github.com/assay-lang/assay/base/prompt"
	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/lang/diag"
	"github.com/assay-lang/assay/lang/spec"
)

// maxAnswerPattern bounds a verdict pattern's length; maxReasks how often
// one call may be asked again.
const (
	maxAnswerPattern = 512
	maxReasks        = 8
)

// rolePrompt checks a role's prompt and answer blocks: each template is
// inline or a file, not both; it parses and reads only its role kind's
// variables; a verdict pattern compiles (RE2) with a capture group.
func (k *checker) rolePrompt(r *spec.Role) {
	if p := r.Prompt; p != nil {
		for _, m := range []struct {
			name         string
			inline, file spec.Val[string]
			text, path   string
		}{{"system", p.System, p.SystemFile, p.SystemText, p.SystemPath}, {"user", p.User, p.UserFile, p.UserText, p.UserPath}} {
			if m.inline.Set && m.file.Set {
				k.add(diag.Errorf(CodeConflict, m.file.Range, "role %q: prompt sets both %s and %s_file", r.Name, m.name, m.name).
					WithDetail("Write the template inline or in a file, not both."))
				continue
			}
			switch {
			case m.inline.Set:
				k.template(r, m.name, m.inline.V, m.inline.Range, false)
			case m.file.Set && !p.Read:
				k.add(diag.Errorf(CodeMissing, m.file.Range, "role %q: prompt file %s was not read", r.Name, m.file.V).
					WithDetail("Prompt files are read when the spec is loaded from disk (lang/load); load the spec with its files, or write the template inline."))
			case m.file.Set && m.path != "":
				rng := diag.Range{Filename: m.path, Start: diag.Pos{Line: 1, Column: 1}}
				k.template(r, m.name, prompt.TrimTemplate(m.text), rng, true)
			}
		}
	}
	if p := r.Prompt; p != nil {
		switch {
		case p.Criteria.Set && p.CriteriaFile.Set:
			k.add(diag.Errorf(CodeConflict, p.CriteriaFile.Range, "role %q: prompt sets both criteria and criteria_file", r.Name).
				WithDetail("Write the criteria inline or in a file, not both."))
		case (p.Criteria.Set || p.CriteriaFile.Set) && r.Kind.V != prompt.KindCritic:
			at := p.Criteria.Range
			if p.CriteriaFile.Set {
				at = p.CriteriaFile.Range
			}
			k.add(diag.Errorf(CodeNotApplicable, at, "role %q: criteria are a critic's, but the role is a %s", r.Name, r.Kind.V).
				WithDetail("Remove criteria, or set them on a critic role."))
		case p.CriteriaFile.Set && !p.Read:
			k.add(diag.Errorf(CodeMissing, p.CriteriaFile.Range, "role %q: criteria file %s was not read", r.Name, p.CriteriaFile.V).
				WithDetail("Prompt files are read when the spec is loaded from disk (lang/load); load the spec with its files, or write the criteria inline."))
		}
		k.criteriaDir(r)
		k.criteriaRole(r)
	}
	k.roleAnswer(r)
}

// roleAnswer checks a role's answer block: a format the role's kind can
// answer in, a pattern where (and only where) the format reads one, and
// reasks in range.
func (k *checker) roleAnswer(r *spec.Role) {
	if a := r.Answer; a != nil {
		at := k.at(a.Range, r.NameRange)
		if f := a.Format.V; (f == "text" || f == "list") && r.Kind.V != prompt.KindPropose {
			k.add(diag.Errorf(CodeNotApplicable, a.Format.Range, "role %q: answer format %q reads a proposer's ideas, but the role is a %s", r.Name, f, r.Kind.V).
				WithDetail("Only a proposer's answer is read as free-text ideas; remove format, or use it on a proposer role."))
		}
		if a.Format.V == "pattern" {
			switch {
			case r.Kind.V != prompt.KindCritic:
				k.add(diag.Errorf(CodeNotApplicable, a.Format.Range, "role %q: answer format \"pattern\" reads a critic's verdict, but the role is a %s", r.Name, r.Kind.V).
					WithDetail("Only a critic's answer can be read by a pattern; remove format, or use it on a critic role."))
			case !a.Pattern.Set:
				k.add(diag.Errorf(CodeMissing, at, "role %q: answer format \"pattern\" needs a pattern", r.Name).
					WithDetail(`pattern = "Final verdict:\\s*(\\w+)" (its first group is the label)`))
			}
		} else if a.Pattern.Set {
			k.add(diag.Errorf(CodeNotApplicable, a.Pattern.Range, "role %q: answer pattern is set, but format is not \"pattern\"", r.Name).
				WithDetail(`Set format = "pattern", or remove pattern.`))
		}
		if a.Pattern.Set {
			k.answerPattern(r, a.Pattern)
		}
		k.answerVerdicts(r, a)
		if a.Reasks.Set && (a.Reasks.V < 0 || a.Reasks.V > maxReasks) {
			k.add(diag.Errorf(CodeRange, a.Reasks.Range, "answer reasks must lie in [0, %d], got %d", maxReasks, a.Reasks.V))
		}
	}
}

// proposerUse is a block that samples a proposer, and its builder.
type proposerUse struct {
	what              string
	proposer, builder spec.Ref
}

// freeTextProposers refuses a proposer that answers in free text where a
// block samples it without a builder: its ideas carry no knob edits or
// patch, so each would run as the program it started from.
func (k *checker) freeTextProposers() {
	var uses []proposerUse
	for _, l := range k.s.Loops {
		uses = append(uses, proposerUse{fmt.Sprintf("loop %q", l.Name), l.Proposer, l.Builder})
	}
	if r := k.s.Records; r != nil {
		uses = append(uses, proposerUse{"records", r.Proposer, r.Builder})
	}
	if ev := k.s.Evaluation; ev != nil {
		for _, arm := range []spec.Ref{ev.Proposer, ev.Base, ev.ICL} {
			uses = append(uses, proposerUse{"evaluation", arm, ev.Builder})
		}
	}
	for _, u := range uses {
		r := k.x.roles[u.proposer.Name]
		if !u.proposer.Set || u.builder.Set || r == nil || r.Answer == nil || (r.Answer.Format.V != "text" && r.Answer.Format.V != "list") {
			continue
		}
		k.add(diag.Errorf(CodeNotApplicable, r.Answer.Format.Range, "role %q answers in free text (format %q), whose ideas carry no knob edits or patch, but %s samples it without a builder", r.Name, r.Answer.Format.V, u.what).
			WithDetail("give %s a builder (builder = role.NAME, a role of kind \"builder\" or \"implementer\") that implements each idea, or answer with the JSON object (format = \"json\")", u.what))
	}
}

// template checks one template against its role kind's variables. A
// file's error is at its own line and column; an inline one's is counted
// from where the string starts.
func (k *checker) template(r *spec.Role, which, text string, at diag.Range, file bool) {
	if prompt.VarsType(r.Kind.V) == nil {
		return // an unknown kind is refused elsewhere
	}
	e := prompt.CheckTemplate(r.Kind.V, text)
	if e == nil {
		return
	}
	pos := at
	switch {
	case file:
		pos.Start = diag.Pos{Line: e.Line, Column: e.Col}
	case at.End.Line > at.Start.Line:
		// A heredoc: its text starts on the line after <<EOT. The column
		// is the template's own (<<- strips an indentation the range
		// does not tell).
		pos.Start = diag.Pos{Line: at.Start.Line + e.Line, Column: e.Col}
	case e.Line == 1:
		pos.Start.Column += e.Col
	default:
		pos.Start = diag.Pos{Line: at.Start.Line + e.Line - 1, Column: e.Col}
	}
	pos.End = pos.Start
	k.add(diag.Errorf(CodePrompt, pos, "role %q: the %s template: %s", r.Name, which, e.Msg).
		WithDetail("A %s role's templates read %s (see docs/prompts.md).", r.Kind.V, varNames(r.Kind.V)))
}

func varNames(kind string) string {
	t := prompt.VarsType(kind)
	out := ""
	for i := 0; i < t.NumField(); i++ {
		if i > 0 {
			out += ", "
		}
		out += "." + t.Field(i).Name
	}
	return out
}

func (k *checker) answerPattern(r *spec.Role, v spec.Val[string]) {
	if len(v.V) > maxAnswerPattern {
		k.add(diag.Errorf(CodeAnswerPattern, v.Range, "role %q: the answer pattern is %d bytes, over %d", r.Name, len(v.V), maxAnswerPattern))
		return
	}
	re, err := regexp.Compile(v.V)
	if err != nil {
		msg := err.Error()
		if se, ok := err.(*syntax.Error); ok {
			msg = fmt.Sprintf("%s: %q", se.Code, se.Expr)
		}
		k.add(diag.Errorf(CodeAnswerPattern, v.Range, "role %q: the answer pattern does not compile: %s", r.Name, msg).
			WithDetail("Patterns are RE2 regular expressions (Go's regexp): no backreferences or lookaround."))
		return
	}
	if re.NumSubexp() < 1 {
		k.add(diag.Errorf(CodeAnswerPattern, v.Range, "role %q: the answer pattern has no capture group", r.Name).
			WithDetail(`Put the label in a group: "Final verdict:\\s*(\\w+)".`))
	}
}

// lowerPrompt resolves a role's prompt: each template the spec's, else
// Assay's default for the role kind.
func lowerPrompt(r *spec.Role) *plan.Prompt {
	def, ok := prompt.Defaults(r.Kind.V)
	if !ok {
		return nil
	}
	from := fmt.Sprintf("default v%d", prompt.Version)
	out := &plan.Prompt{System: def.System, User: def.User, SystemFrom: from, UserFrom: from}
	if p := r.Prompt; p != nil {
		switch {
		case p.System.Set:
			out.System, out.SystemFrom = p.System.V, "inline"
		case p.SystemFile.Set:
			out.System, out.SystemFrom = prompt.TrimTemplate(p.SystemText), p.SystemFile.V
		}
		switch {
		case p.User.Set:
			out.User, out.UserFrom = p.User.V, "inline"
		case p.UserFile.Set:
			out.User, out.UserFrom = prompt.TrimTemplate(p.UserText), p.UserFile.V
		}
		switch {
		case p.Criteria.Set:
			out.Criteria, out.CriteriaFrom = p.Criteria.V, "inline"
		case p.CriteriaFile.Set:
			out.Criteria, out.CriteriaFrom = prompt.TrimTemplate(p.CriteriaText), p.CriteriaFile.V
		}
		out.TaskCriteria = taskCriteria(p)
		if p.CriteriaRole.Set && r.Kind.V == prompt.KindCritic {
			out.CriteriaRole = p.CriteriaRole.Name
		}
	}
	return out
}

// lowerAnswer is how a role's answer is read; nil when the spec says
// nothing (JSON, never asked again).
func lowerAnswer(r *spec.Role) *plan.Answer {
	a := r.Answer
	if a == nil {
		return nil
	}
	out := &plan.Answer{Format: "json", Reasks: a.Reasks.V}
	if a.Format.Set {
		out.Format = a.Format.V
	}
	if out.Format == "pattern" {
		out.Pattern = a.Pattern.V
		out.Verdicts = lowerVerdicts(a)
	}
	return out
}
