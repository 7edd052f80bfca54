package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/payload"
)

// messageLLM answers as the offline model and keeps the messages each
// role kind was sent.
type messageLLM struct {
	mu   sync.Mutex
	sent map[string][]plugins.Message
}

func (l *messageLLM) Trainer() plugins.Trainer     { return nil }
func (l *messageLLM) Benchmark() plugins.Benchmark { return nil }
func (l *messageLLM) Close() error                 { return nil }
func (l *messageLLM) LLM() plugins.LLM             { return l }
func (l *messageLLM) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return offline.Model{}.Update(ctx, req)
}
func (l *messageLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	l.mu.Lock()
	if _, ok := l.sent[req.Role]; !ok {
		l.sent[req.Role] = req.Messages
	}
	l.mu.Unlock()
	return offline.Model{}.Complete(ctx, req)
}

// TestCallsSendThePlansPrompt: a call is sent its role's templates from
// the plan rendered over its request, with the payload still attached; a
// role without templates in the plan is sent Assay's default chat.
func TestCallsSendThePlansPrompt(t *testing.T) {
	p := lm2lmPlan()
	var proposer string
	for _, r := range p.Variants[0].Roles {
		if r.Kind == plugins.RolePropose {
			r.Prompt = &plan.Prompt{System: "You are {{.Role}}.", User: "Task {{.Task.Name}}: {{.N}} idea(s) over {{len .Knobs}} knobs."}
			proposer = r.Name
		}
	}
	llm := &messageLLM{sent: map[string][]plugins.Message{}}
	loader := LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
		if pl.Kind == plugins.KindLLM {
			return llm, nil
		}
		return &inst{t: newFakeTrainer()}, nil
	})
	if _, err := Run(context.Background(), p, Options{ID: "prompt", Dir: t.TempDir(), Plugins: loader}); err != nil {
		t.Fatal(err)
	}
	got := llm.sent[plugins.RolePropose]
	if len(got) != 2 || got[0] != (plugins.Message{Role: "system", Content: "You are " + proposer + "."}) ||
		!strings.HasPrefix(got[1].Content, "Task ") || !strings.Contains(got[1].Content, " idea(s) over ") {
		t.Errorf("the proposer was sent %q", got)
	}
	rwm := llm.sent[plugins.RolePredict]
	if len(rwm) != 2 || !strings.Contains(rwm[0].Content, "predicted_gain") || !strings.HasPrefix(rwm[1].Content, "Input:\n{") {
		t.Errorf("the world model was sent %q, not the default chat", rwm)
	}
}

// BenchmarkRenderChat renders a world model's default chat over a context
// of 300 records, what each such call now costs the runtime before it is
// sent.
func BenchmarkRenderChat(b *testing.B) {
	role := &plan.Role{Name: "rwm", Kind: plugins.RolePredict}
	recs := make([]payload.Record, 300)
	for i := range recs {
		recs[i] = payload.Record{Task: "train-01", Proposal: plugins.Proposal{ID: fmt.Sprint(i), Text: "set lr to 3e-4", Mechanism: "optimizer", Edits: map[string]string{"lr": "3e-4"}}, Gain: 0.01}
	}
	in := payload.PredictRequest{Task: "train-01", Records: recs, Proposal: recs[0].Proposal}
	body, err := payload.Encode(in)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RenderChat(role, in, body); err != nil {
			b.Fatal(err)
		}
	}
}
