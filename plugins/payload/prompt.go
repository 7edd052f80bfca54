package payload

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

	"github.com/assay-lang/assay/plugins"
)

// PromptVersion is the version of the default templates in prompts/. A
// change of their text bumps it, so a plan's From says which text it holds.
const PromptVersion = 1

// MaxPromptBytes bounds what one rendered message may hold: a template
// that ranges over a large input cannot grow without end.
const MaxPromptBytes = 4 << 20

//go:embed prompts/*.tmpl
var defaultPrompts embed.FS

// Templates are a role's prompt: Go text/template texts of its system and
// user messages, over the role kind's variables (VarsType).
type Templates struct {
	System string `json:"system"`
	User   string `json:"user"`
}

// DefaultTemplates are Assay's own templates for a role kind (an
// implementer shares the builder's).
func DefaultTemplates(kind string) (Templates, bool) {
	if kind == plugins.RoleImplement {
		kind = plugins.RoleBuild
	}
	sys, err1 := defaultPrompts.ReadFile("prompts/" + kind + ".system.tmpl")
	user, err2 := defaultPrompts.ReadFile("prompts/" + kind + ".user.tmpl")
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
	Parent       *plugins.Proposal
	History      []Record
	Records      []Record
	Inspirations []Record
	Knobs        []plugins.Knob
	N            int
	// Input is the whole request as indented JSON.
	Input string
}

// PredictVars are a world model's (rwm) template variables.
type PredictVars struct {
	Role     string
	Task     Task
	Records  []Record
	Parent   *plugins.Proposal
	Proposal plugins.Proposal
	Input    string
}

// CritiqueVars are a critic's template variables. Labels is the label set
// best first, LabelSpace its name (3way or 5way).
type CritiqueVars struct {
	Role       string
	Task       Task
	Parent     plugins.Proposal
	Child      plugins.Proposal
	Summary    string
	Labels     []string
	LabelSpace string
	Records    []Record
	Input      string
}

// SummarizeVars are a summarizer's template variables.
type SummarizeVars struct {
	Role     string
	Task     Task
	Proposal plugins.Proposal
	Input    string
}

// BuildVars are a builder's or implementer's template variables.
type BuildVars struct {
	Role     string
	Task     Task
	Proposal plugins.Proposal
	Knobs    []plugins.Knob
	Repair   int
	Failure  string
	Input    string
}

// VarsType is the type of a role kind's template variables; nil for an
// unknown kind.
func VarsType(kind string) reflect.Type {
	switch kind {
	case plugins.RolePropose:
		return reflect.TypeFor[ProposeVars]()
	case plugins.RolePredict:
		return reflect.TypeFor[PredictVars]()
	case plugins.RoleCritic:
		return reflect.TypeFor[CritiqueVars]()
	case plugins.RoleSummarize:
		return reflect.TypeFor[SummarizeVars]()
	case plugins.RoleBuild, plugins.RoleImplement:
		return reflect.TypeFor[BuildVars]()
	}
	return nil
}

// NewVars makes a role call's template variables from its request, a
// value or pointer of the role kind's request type, or nil to decode body.
// body is the request as JSON, which Input shows indented.
func NewVars(kind string, in any, body []byte) (any, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "", "  "); err != nil {
		return nil, fmt.Errorf("the %s payload is not JSON: %v", kind, err)
	}
	input := buf.String()
	if in == nil {
		req, err := requestFor(kind)
		if err != nil {
			return nil, err
		}
		// Leniently: a caller may send any JSON as the payload (a policy
		// update's state), which Input still shows whole.
		_ = json.Unmarshal(body, req)
		in = req
	}
	if v := reflect.ValueOf(in); v.Kind() == reflect.Pointer && !v.IsNil() {
		in = v.Elem().Interface()
	}
	switch r := in.(type) {
	case ProposeRequest:
		return &ProposeVars{Task: Task{r.Task, r.Env}, Parent: r.Parent, History: r.History, Records: r.Records,
			Inspirations: r.Inspirations, Knobs: r.Knobs, N: r.N, Input: input}, nil
	case PredictRequest:
		return &PredictVars{Task: Task{r.Task, r.Env}, Records: r.Records, Parent: r.Parent, Proposal: r.Proposal, Input: input}, nil
	case CritiqueRequest:
		labels := LabelSet(r.Labels)
		if labels == nil {
			return nil, fmt.Errorf("the critic payload's labels %q is not %q or %q", r.Labels, Labels3, Labels5)
		}
		return &CritiqueVars{Task: Task{r.Task, r.Env}, Parent: r.Parent, Child: r.Child, Summary: r.Summary,
			Labels: labels, LabelSpace: r.Labels, Records: r.Records, Input: input}, nil
	case SummarizeRequest:
		return &SummarizeVars{Task: Task{Name: r.Task}, Proposal: r.Proposal, Input: input}, nil
	case ImplementRequest:
		return &BuildVars{Task: Task{r.Task, r.Env}, Proposal: r.Proposal, Knobs: r.Knobs, Repair: r.Repair, Failure: r.Failure, Input: input}, nil
	}
	return nil, fmt.Errorf("no prompt variables for a %T of the %s role", in, kind)
}

func requestFor(kind string) (any, error) {
	switch kind {
	case plugins.RolePropose:
		return &ProposeRequest{}, nil
	case plugins.RolePredict:
		return &PredictRequest{}, nil
	case plugins.RoleCritic:
		return &CritiqueRequest{}, nil
	case plugins.RoleSummarize:
		return &SummarizeRequest{}, nil
	case plugins.RoleBuild, plugins.RoleImplement:
		return &ImplementRequest{}, nil
	}
	return nil, fmt.Errorf("no prompt for role kind %q", kind)
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

// ParseTemplate parses one template text as Assay renders it.
func ParseTemplate(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
}

// parsed caches parsed templates by text: a plan has a few, rendered on
// every call.
var parsed sync.Map // text -> *template.Template

func parseCached(name, text string) (*template.Template, error) {
	if t, ok := parsed.Load(text); ok {
		return t.(*template.Template), nil
	}
	t, err := ParseTemplate(name, text)
	if err != nil {
		return nil, err
	}
	parsed.Store(text, t)
	return t, nil
}

// Render renders a role call's messages: the system template, then the
// user template, over vars (NewVars). A message that renders empty is
// left out; one over MaxPromptBytes is an error.
func Render(roleName string, t Templates, vars any) ([]Message, error) {
	setRole(vars, roleName)
	var msgs []Message
	for _, m := range []struct{ role, text string }{{"system", t.System}, {"user", t.User}} {
		tt, err := parseCached(m.role, m.text)
		if err != nil {
			return nil, fmt.Errorf("the %s template: %v", m.role, err)
		}
		w := &capped{max: MaxPromptBytes}
		if err := tt.Execute(w, vars); err != nil {
			if errors.Is(err, errTooLong) {
				return nil, fmt.Errorf("the %s message renders to over %d bytes", m.role, MaxPromptBytes)
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
