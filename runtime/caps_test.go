package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assay-lang/assay/compiler/plan"
	"github.com/assay-lang/assay/plugins"
	offline "github.com/assay-lang/assay/plugins/builtin/offline/model"
	"github.com/assay-lang/assay/plugins/builtin/openai"
)

// hostileLLM answers like the offline model but reports the usage, or
// fails with the error, that report gives for its n-th call.
type hostileLLM struct {
	report   func(n int64) (plugins.Usage, error)
	calls    atomic.Int64
	inFlight atomic.Int64
	most     atomic.Int64
}

func (h *hostileLLM) Trainer() plugins.Trainer     { return nil }
func (h *hostileLLM) Benchmark() plugins.Benchmark { return nil }
func (h *hostileLLM) Close() error                 { return nil }
func (h *hostileLLM) LLM() plugins.LLM             { return h }
func (h *hostileLLM) Update(ctx context.Context, req *plugins.UpdateRequest) (*plugins.UpdateResponse, error) {
	return offline.Model{}.Update(ctx, req)
}
func (h *hostileLLM) Complete(ctx context.Context, req *plugins.CompleteRequest) (*plugins.CompleteResponse, error) {
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	u, err := h.report(h.calls.Add(1))
	if err != nil {
		return nil, plugins.WithUsage(err, u)
	}
	resp, err := offline.Model{}.Complete(ctx, req)
	if resp != nil {
		resp.Usage = u
	}
	return resp, err
}

// capPlan is lm2lmPlan where only LLM calls cost: each role declares 1,000
// tokens in and 100 out at $10 and $100 per million, $0.02 a call, held
// for attempts attempts; the cap is $0.50.
func capPlan(attempts int) *plan.Plan {
	p := lm2lmPlan()
	v := p.Variants[0]
	v.Prices = map[string]float64{"CPU": 0}
	for _, r := range v.Roles {
		r.Concurrency, r.TokensIn, r.TokensOut, r.PriceIn, r.PriceOut, r.Attempts = 4, plan.Exact(1000), plan.Exact(100), 10, 100, attempts
	}
	v.Budget = plan.Budget{USD: 0.5}
	return p
}

// The dollar cap holds whatever a plugin reports, with calls in flight
// together: usage above what a call can cost is charged at its hold and
// stops the run, negative or overflowing usage is bounded, and every
// attempt a plugin reports, failed ones too, is charged.
func TestDollarCapHoldsAgainstReportedUsage(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		report   func(n int64) (plugins.Usage, error)
		breach   bool
		// check looks at the totals beyond the cap.
		check func(t *testing.T, usd float64, calls int64)
	}{
		{name: "more tokens than declared", attempts: 1, breach: true,
			report: func(int64) (plugins.Usage, error) { return plugins.Usage{In: 3000, Out: 100}, nil }},
		{name: "negative usage", attempts: 1,
			report: func(int64) (plugins.Usage, error) { return plugins.Usage{In: -1e9, Out: -1e9}, nil },
			check: func(t *testing.T, usd float64, calls int64) {
				// Counted at the plan's figures: the cap pays for 25 calls.
				if calls != 25 || math.Abs(usd-0.5) > 1e-9 {
					t.Errorf("%d calls cost $%g; want 25 at $0.02", calls, usd)
				}
			}},
		{name: "1e15 tokens", attempts: 1, breach: true,
			report: func(int64) (plugins.Usage, error) { return plugins.Usage{In: 1e15, Out: 1e15}, nil }},
		{name: "failed attempts are charged", attempts: 2,
			report: func(n int64) (plugins.Usage, error) {
				if n%2 == 1 {
					return plugins.Usage{In: 1000, Out: 100}, errors.New("the answer was cut off")
				}
				return plugins.Usage{In: 1000, Out: 100}, nil
			},
			check: func(t *testing.T, usd float64, calls int64) {
				if math.Abs(usd-float64(calls)*0.02) > 1e-9 {
					t.Errorf("%d plugin calls, each billed $0.02, were charged $%g", calls, usd)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			llm := &hostileLLM{report: tt.report}
			loader := LoaderFunc(func(ctx context.Context, p *plan.Plugin) (Instance, error) {
				if p.Kind == plugins.KindLLM {
					return llm, nil
				}
				return &inst{t: newFakeTrainer()}, nil
			})
			dir := t.TempDir()
			res, err := Run(context.Background(), capPlan(tt.attempts), Options{ID: "usd", Dir: dir, Plugins: loader})
			if err != nil && !errors.Is(err, ErrBudget) {
				t.Fatalf("run: %v", err)
			}
			if tt.breach {
				// A resume reads the breaking report back from the journal
				// and stops at the same place, spending nothing more.
				calls := llm.calls.Load()
				again, err := Run(context.Background(), nil, Options{ID: "usd", Dir: dir, Resume: true, Plugins: loader})
				if err != nil && !errors.Is(err, ErrBudget) {
					t.Fatalf("resume: %v", err)
				}
				if again.Totals.USD != res.Totals.USD || llm.calls.Load() != calls || !strings.Contains(again.Reason, "reported to use") {
					t.Errorf("resume: $%g after %d more calls, reason %q; want $%g, none, the same reason",
						again.Totals.USD, llm.calls.Load()-calls, again.Reason, res.Totals.USD)
				}
			}
			usd := res.Totals.USD
			if !(usd >= 0 && usd <= 0.5+1e-9) {
				t.Errorf("spent $%v; the cap is $0.50 (%d calls)", usd, llm.calls.Load())
			}
			if !strings.Contains(res.Reason, "budget cap") {
				t.Errorf("reason %q does not say the cap stopped the run", res.Reason)
			}
			if got := strings.Contains(res.Reason, "reported to use"); got != tt.breach {
				t.Errorf("reason %q: says the report broke the hold: %v, want %v", res.Reason, got, tt.breach)
			}
			if tt.check != nil {
				tt.check(t, usd, llm.calls.Load())
			}
		})
	}
}

// hostileServer is an OpenAI-compatible endpoint whose n-th request gets
// answer(n): a status and the usage it reports, or a status of 0 to hang
// until the client gives up.
type hostileServer struct {
	*httptest.Server
	mu       sync.Mutex
	answered []plugins.Usage // the usage of each 200 answer
	hung     int
	n        int
	inFlight int
	most     int
}

func newHostileServer(t *testing.T, answer func(n int) (int, float64, float64)) *hostileServer {
	h := &hostileServer{}
	release := make(chan struct{})
	// The first requests wait (a while at most) for a second one, so
	// that calls are in flight together however the machine schedules.
	two := make(chan struct{})
	var once sync.Once
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		n := h.n
		h.n++
		h.inFlight++
		h.most = max(h.most, h.inFlight)
		if h.inFlight >= 2 {
			once.Do(func() { close(two) })
		}
		h.mu.Unlock()
		if n < 2 {
			select {
			case <-two:
			case <-time.After(5 * time.Second):
			}
		}
		defer func() { h.mu.Lock(); h.inFlight--; h.mu.Unlock() }()
		status, in, out := answer(n)
		switch status {
		case 0:
			h.mu.Lock()
			h.hung++
			h.mu.Unlock()
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		case 200:
			h.mu.Lock()
			h.answered = append(h.answered, plugins.Usage{In: int(max(in, 0)), Out: int(max(out, 0))})
			h.mu.Unlock()
		default:
			w.WriteHeader(status)
			fmt.Fprint(w, "busy")
			return
		}
		body, _ := json.Marshal(map[string]any{
			"choices": []any{map[string]any{"message": map[string]any{"content": `{"predicted_gain": 0.01, "confidence": 1}`}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": in, "completion_tokens": out},
		})
		w.Write(body)
	}))
	t.Cleanup(h.Close)
	t.Cleanup(func() { close(release) })
	return h
}

// The same through the built-in openai plugin and a hostile local server,
// with world-model calls in flight together: the final dollars never
// exceed the cap, and the run stops at the cap with the reason.
func TestDollarCapHoldsAgainstAHostileServer(t *testing.T) {
	const normalIn, normalOut = 15000, 150 // $0.165 at $10 and $100 per million
	tests := []struct {
		name   string
		answer func(n int) (int, float64, float64)
		breach bool
	}{
		{"over-reporting", func(n int) (int, float64, float64) {
			if n < 3 {
				return 200, normalIn, normalOut
			}
			return 200, 100000, normalOut
		}, true},
		{"negative usage", func(int) (int, float64, float64) { return 200, -1e6, -1e6 }, false},
		{"1e15 tokens", func(n int) (int, float64, float64) { return 200, 1e15, 1e15 }, true},
		{"failing, hanging, then answering", func(n int) (int, float64, float64) {
			switch n % 3 {
			case 0:
				return 503, 0, 0
			case 1:
				return 0, 0, 0
			}
			return 200, normalIn, normalOut
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHostileServer(t, tt.answer)
			p := lm2lmPlan()
			v := p.Variants[0]
			v.Prices = map[string]float64{"CPU": 0}
			v.Plugins = append(v.Plugins, &plan.Plugin{Name: "remote", Kind: plugins.KindLLM, Source: "builtin:openai", Config: map[string]any{
				"base_url": srv.URL + "/v1", "model": "m", "api_key_env": "ASSAY_TEST_UNSET_KEY", "max_retries": 2.0,
				"timeout_seconds": 0.3, "backoff_seconds": 0.001, "max_backoff_seconds": 0.001}})
			var rwm *plan.Role
			for _, r := range v.Roles {
				r.PriceIn, r.PriceOut = 0, 0
				if r.Name == "rwm" {
					rwm = r
					r.Plugin, r.Concurrency, r.Attempts = "remote", 4, 3
					r.TokensIn, r.TokensOut = plan.Count{Low: 1000, Expected: normalIn, High: 20000}, plan.Count{Low: 10, Expected: normalOut, High: 200}
					r.PriceIn, r.PriceOut = 10, 100
				}
			}
			v.Budget = plan.Budget{USD: 2.5}
			remote := openai.New()
			loader := LoaderFunc(func(ctx context.Context, pl *plan.Plugin) (Instance, error) {
				switch pl.Name {
				case "remote":
					return &inst{l: remote}, nil
				case "llm":
					return &inst{l: offline.Model{}}, nil
				}
				return &inst{t: newFakeTrainer()}, nil
			})
			res, err := Run(context.Background(), p, Options{ID: "usd", Dir: t.TempDir(), Plugins: loader})
			if err != nil && !errors.Is(err, ErrBudget) {
				t.Fatalf("run: %v", err)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			usd := res.Totals.USD
			t.Logf("%d requests (at most %d at once), %d answered, %d hung: $%g of the $2.50 cap; rwm %+v", srv.n, srv.most, len(srv.answered), srv.hung, usd, *res.Totals.Measured.Roles["rwm"])
			if !(usd >= 0 && usd <= 2.5+1e-9) {
				t.Errorf("spent $%v; the cap is $2.50 (%d requests)", usd, srv.n)
			}
			if srv.most < 2 {
				t.Errorf("at most %d requests were in flight; the test needs concurrent calls", srv.most)
			}
			if !strings.Contains(res.Reason, "budget cap") {
				t.Errorf("reason %q does not say the cap stopped the run", res.Reason)
			}
			if got := strings.Contains(res.Reason, "reported to use"); got != tt.breach {
				t.Errorf("reason %q: says the report broke the hold: %v, want %v", res.Reason, got, tt.breach)
			}
			if tt.breach {
				return
			}
			// Every answer is charged (a negative count at its worst case:
			// all 200 tokens out), and every attempt that hung at least its
			// 200 tokens out.
			least := float64(srv.hung) * 200 * 100 / 1e6
			for _, u := range srv.answered {
				if u == (plugins.Usage{}) {
					least += 200 * 100 / 1e6
				} else {
					least += callUSD(rwm, u.In, u.Out)
				}
			}
			if usd < least-1e-9 {
				t.Errorf("charged $%g for %d answers and %d hung attempts that may be billed $%g or more", usd, len(srv.answered), srv.hung, least)
			}
		})
	}
}
