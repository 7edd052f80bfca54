package prompt

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"text/template"
)

// Role kinds, as plugins names them (the compiler may not import plugins).
const (
	KindPropose   = "proposer"
	KindPredict   = "rwm"
	KindBuild     = "builder"
	KindImplement = "implementer"
	KindSummarize = "summarizer"
	KindCritic    = "critic"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Proposal, Record and Knob are what templates see of a proposal, a
// measured record and a trainer knob: the fields of Proposal,
// payload.Record and plugins.Knob, which package payload copies in.
type Proposal struct {
	ID        string
	Text      string
	Mechanism string
	Edits     map[string]string
	Patch     string
	Commit    string
}

// Record is a measured (or predicted) outcome of a proposal on a task.
type Record struct {
	Task       string
	Env        string
	Proposal   Proposal
	Gain       float64
	Infeasible bool
	Predicted  bool
}

// Knob is a setting a proposal may change, with its allowed values.
type Knob struct {
	Name      string
	Mechanism string
	Default   string
	Values    []string
	// Type says what a value may be, e.g. "a number ≥ 0" or "one of a, b".
	Type string
}

// Version is the version of the default templates in prompts/. A
// change of their text bumps it, so a plan's From says which text it holds.
const Version = 6

// MaxBytes bounds what one rendered message may hold: a template
// that ranges over a large input cannot grow without end.
const MaxBytes = 4 << 20

//go:embed prompts/*.tmpl
var defaults embed.FS

// Templates are a role's prompt: Go text/template texts of its system and
// user messages, over the role kind's variables (VarsType).
type Templates struct {
	System string `json:"system"`
	User   string `json:"user"`
}

// Defaults are Assay's own templates for a role kind (an
// implementer shares the builder's).
func Defaults(kind string) (Templates, bool) {
	if kind == KindImplement {
		kind = KindBuild
	}
	sys, err1 := defaults.ReadFile("prompts/" + kind + ".system.tmpl")
	user, err2 := defaults.ReadFile("prompts/" + kind + ".user.tmpl")
	if err1 != nil || err2 != nil {
		return Templates{}, false
	}
	return Templates{System: TrimTemplate(string(sys)), User: TrimTemplate(string(user))}, true
}

// TrimTemplate drops one final newline: a template file ends with one,
// which is no part of its message.
func TrimTemplate(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// Task is what a template knows of the task.
type Task struct {
	Name string
	Env  string
}

// ProposeVars are a proposer's template variables.
type ProposeVars struct {
	Role string
	Task Task
	// Parent is the current solution (nil: the task's baseline).
	Parent       *Proposal
	History      []Record
	Records      []Record
	Inspirations []Record
	Knobs        []Knob
	N            int
	// Source, in source mode, is the program the proposals change (the
	// parent's commit and its editable files); nil in knob mode.
	Source *Source
	// Answer is how the answer is read: Format "json", "text" or "list".
	Answer Answer
	// Input is the whole request as indented JSON.
	Input string
}

// Answer is how a role's answer is read, so that a template asks for
// that form: Format "json" (the role's JSON object), "pattern" (a
// critic's verdict, the first group of Pattern's first match in free
// text), "text" (a proposer's one idea in free text) or "list" (its ideas
// as a numbered or bulleted list).
type Answer struct {
	Format  string
	Pattern string
	// Verdicts, when set, are the labels Pattern's named groups read,
	// each with its groups' values, so that a template can say which
	// values make which label.
	Verdicts []Verdict
}

// Verdict is one label of a verdict read by named groups.
type Verdict struct {
	Label  string
	Groups []Group
}

// Group is a named group of a verdict pattern and the value it reads.
type Group struct {
	Name, Value string
}

// PredictVars are a world model's (rwm) template variables.
type PredictVars struct {
	Role     string
	Task     Task
	Records  []Record
	Parent   *Proposal
	Proposal Proposal
	Input    string
}

// CritiqueVars are a critic's template variables. Labels is the label set
// best first, LabelSpace its name (3way or 5way).
type CritiqueVars struct {
	Role       string
	Task       Task
	Parent     Proposal
	Child      Proposal
	Summary    string
	Labels     []string
	LabelSpace string
	Records    []Record
	// Criteria are the task understanding and criteria the spec gives
	// the critic (its prompt block's criteria), empty when it gives none.
	Criteria string
	// Answer is how the answer is read: Format "json" or "pattern".
	Answer Answer
	Input  string
}

// SummarizeVars are a summarizer's template variables.
type SummarizeVars struct {
	Role     string
	Task     Task
	Proposal Proposal
	Input    string
}

// BuildVars are a builder's or implementer's template variables. Source
// is set in source mode, where the builder writes a patch of the parent
// program instead of knob edits.
type BuildVars struct {
	Role     string
	Task     Task
	Proposal Proposal
	Knobs    []Knob
	Repair   int
	Failure  string
	Source   *Source
	Input    string
}

// Source is the parent program a builder changes: its commit, the paths a
// patch may change and the editable files' contents (each cut to a bound;
// Truncated marks one that was cut).
type Source struct {
	Commit   string
	Editable []string
	Files    []File
}

// File is one editable file of the parent program.
type File struct {
	Path      string
	Content   string
	Truncated bool
}

// VarsType is the type of a role kind's template variables; nil for an
// unknown kind.
func VarsType(kind string) reflect.Type {
	switch kind {
	case KindPropose:
		return reflect.TypeFor[ProposeVars]()
	case KindPredict:
		return reflect.TypeFor[PredictVars]()
	case KindCritic:
		return reflect.TypeFor[CritiqueVars]()
	case KindSummarize:
		return reflect.TypeFor[SummarizeVars]()
	case KindBuild, KindImplement:
		return reflect.TypeFor[BuildVars]()
	}
	return nil
}

// funcs are the functions a template may call besides text/template's
// builtins; none reads a file, the environment or runs a program.
var funcs = template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	"join": strings.Join,
}

// Parse parses one template text as Assay renders it.
func Parse(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
}

// parsed caches parsed templates by text: a plan has a few, rendered on
// every call.
var parsed sync.Map // text -> *template.Template

func parseCached(name, text string) (*template.Template, error) {
	if t, ok := parsed.Load(text); ok {
		return t.(*template.Template), nil
	}
	t, err := Parse(name, text)
	if err != nil {
		return nil, err
	}
	parsed.Store(text, t)
	return t, nil
}

// Render renders a role call's messages: the system template, then the
// user template, over vars (NewVars). A message that renders empty is
// left out; one over MaxBytes is an error.
func Render(roleName string, t Templates, vars any) ([]Message, error) {
	setRole(vars, roleName)
	var msgs []Message
	for _, m := range []struct{ role, text string }{{"system", t.System}, {"user", t.User}} {
		tt, err := parseCached(m.role, m.text)
		if err != nil {
			return nil, fmt.Errorf("the %s template: %v", m.role, err)
		}
		w := &capped{max: MaxBytes}
		if err := tt.Execute(w, vars); err != nil {
			if errors.Is(err, errTooLong) {
				return nil, fmt.Errorf("the %s message renders to over %d bytes", m.role, MaxBytes)
			}
			return nil, fmt.Errorf("rendering the %s template: %v", m.role, err)
		}
		if w.Len() > 0 {
			msgs = append(msgs, Message{Role: m.role, Content: w.String()})
		}
	}
	if len(msgs) == 0 {
		return nil, errors.New("both templates render empty")
	}
	return msgs, nil
}

func setRole(vars any, name string) {
	v := reflect.ValueOf(vars)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if f := v.Elem().FieldByName("Role"); f.IsValid() && f.CanSet() && f.Kind() == reflect.String {
			f.SetString(name)
		}
	}
}

var errTooLong = errors.New("message too long")

// capped is a buffer that refuses to grow past max bytes.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if c.Len()+len(p) > c.max {
		return 0, errTooLong
	}
	return c.Buffer.Write(p)
}
