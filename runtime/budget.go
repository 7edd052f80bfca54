package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"assay/compiler/plan"
)

// ErrBudget is returned when a reservation would exceed a hard cap.
var ErrBudget = errors.New("budget exhausted")

// Budget tracks what a run has reserved against its hard caps. A real run
// reserves its planned cost before it starts; the reservation is never
// released, so retries and crashes can only make the accounting more
// conservative, never exceed a cap.
type Budget struct {
	mu   sync.Mutex
	caps plan.Budget
	used Spent
	// Dollars are summed in integer nanodollars so the total does not
	// depend on the order of concurrent charges (a resumed run must end
	// with exactly the same figures).
	usdNano, llmNano int64
	gpuNano          int64
	// heldNano is the worst-case dollars of LLM calls in flight: reserved
	// before a call is made, settled when it returns, so calls in flight
	// together can never spend past the dollar cap.
	heldNano int64
	// broken says how reported usage broke what a call held: every
	// reservation after it fails, so the run stops at the cap.
	broken string
	// settled wakes reservations waiting for holds to settle.
	settled *sync.Cond
}

func nano(x float64) int64 { return int64(math.Round(x * 1e9)) }

// Spent is what a run has reserved or spent.
type Spent struct {
	RealRuns int     `json:"real_runs"`
	GPUHours float64 `json:"gpu_hours"`
	// USD is real-run dollars plus LLM dollars.
	USD    float64 `json:"usd"`
	LLMUSD float64 `json:"llm_usd"`
}

// NewBudget returns a budget with the plan's caps (zero: not capped).
func NewBudget(caps plan.Budget) *Budget { return &Budget{caps: caps} }

// Reserve atomically reserves one real run of the given cost, or returns an
// error wrapping ErrBudget and reserves nothing.
func (b *Budget) Reserve(gpuHours, usd float64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.caps
	switch {
	case b.broken != "":
		return fmt.Errorf("%w: %s", ErrBudget, b.broken)
	case c.RealRuns > 0 && b.used.RealRuns+1 > c.RealRuns:
		return fmt.Errorf("%w: real runs %d of %d", ErrBudget, b.used.RealRuns, c.RealRuns)
	case c.GPUHours > 0 && b.gpuNano+nano(gpuHours) > nano(c.GPUHours):
		return fmt.Errorf("%w: GPU-hours %g held + %g > %g", ErrBudget, float64(b.gpuNano)/1e9, gpuHours, c.GPUHours)
	case c.USD > 0 && b.usdNano+b.heldNano+nano(usd) > nano(c.USD):
		return fmt.Errorf("%w: dollars %s + %s > %s", ErrBudget, dollars(float64(b.usdNano+b.heldNano)/1e9), dollars(usd), dollars(c.USD))
	}
	b.add(gpuHours, usd)
	return nil
}

// ReserveUpdate atomically reserves one policy update of the given cost
// against the GPU-hour and dollar caps (an update is no real run), or
// returns an error wrapping ErrBudget and reserves nothing.
func (b *Budget) ReserveUpdate(gpuHours, usd float64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.caps
	switch {
	case b.broken != "":
		return fmt.Errorf("%w: %s", ErrBudget, b.broken)
	case c.GPUHours > 0 && b.gpuNano+nano(gpuHours) > nano(c.GPUHours):
		return fmt.Errorf("%w: GPU-hours %g held + %g for a policy update > %g", ErrBudget, float64(b.gpuNano)/1e9, gpuHours, c.GPUHours)
	case c.USD > 0 && b.usdNano+b.heldNano+nano(usd) > nano(c.USD):
		return fmt.Errorf("%w: dollars %s + %s for a policy update > %s", ErrBudget, dollars(float64(b.usdNano+b.heldNano)/1e9), dollars(usd), dollars(c.USD))
	}
	b.addUpdate(gpuHours, usd)
	return nil
}

// restoreUpdate counts a policy update's reservation read back from the
// journal.
func (b *Budget) restoreUpdate(gpuHours, usd float64) {
	b.mu.Lock()
	b.addUpdate(gpuHours, usd)
	b.mu.Unlock()
}

func (b *Budget) addUpdate(gpuHours, usd float64) {
	b.gpuNano += nano(gpuHours)
	b.usdNano += nano(usd)
	b.sync()
}

// dollars prints an amount as the estimate does (estimate.FormatUSD, which
// the runtime may not import): cents, or three significant digits below a
// cent, so a $0.001 cap does not read "$0.00".
func dollars(x float64) string {
	if a := math.Abs(x); a > 0 && a < 0.01 {
		return "$" + strconv.FormatFloat(x, 'g', 3, 64)
	}
	return fmt.Sprintf("$%.2f", x)
}

// ReserveLLM holds the worst-case dollars of one LLM call of role before
// it is made, or returns an error wrapping ErrBudget and holds nothing.
// While other calls' holds are out, a hold that does not fit waits for
// them to settle (each settles at most at its hold, usually far below):
// the cap refuses a call only when what was spent leaves no room for it.
func (b *Budget) ReserveLLM(usd float64, role *plan.Role) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if b.broken != "" {
			return fmt.Errorf("%w: %s", ErrBudget, b.broken)
		}
		c := b.caps.USD
		if c <= 0 || b.usdNano+b.heldNano+nano(usd) <= nano(c) {
			break
		}
		if b.heldNano <= 0 || b.usdNano+nano(usd) > nano(c) {
			return fmt.Errorf("%w: dollars %s spent or held + %s for a %s call (%d attempts at its high tokens) > %s", ErrBudget,
				dollars(float64(b.usdNano+b.heldNano)/1e9), dollars(usd), role.Name, max(role.Attempts, 1), dollars(c))
		}
		if b.settled == nil {
			b.settled = sync.NewCond(&b.mu)
		}
		b.settled.Wait()
	}
	b.heldNano += nano(usd)
	return nil
}

// SettleLLM releases a call's reservation and charges what it cost.
func (b *Budget) SettleLLM(reserved, spent float64) {
	b.mu.Lock()
	b.heldNano -= nano(reserved)
	b.usdNano += nano(spent)
	b.llmNano += nano(spent)
	b.sync()
	if b.settled != nil {
		b.settled.Broadcast()
	}
	b.mu.Unlock()
}

// restore counts a reservation read back from the journal.
func (b *Budget) restore(gpuHours, usd float64) {
	b.mu.Lock()
	b.add(gpuHours, usd)
	b.mu.Unlock()
}

func (b *Budget) add(gpuHours, usd float64) {
	b.used.RealRuns++
	b.gpuNano += nano(gpuHours)
	b.usdNano += nano(usd)
	b.sync()
}

func (b *Budget) sync() {
	b.used.GPUHours = float64(b.gpuNano) / 1e9
	b.used.USD = float64(b.usdNano) / 1e9
	b.used.LLMUSD = float64(b.llmNano) / 1e9
}

// ChargeLLM counts the dollars of an LLM call.
func (b *Budget) ChargeLLM(usd float64) {
	b.mu.Lock()
	b.usdNano += nano(usd)
	b.llmNano += nano(usd)
	b.sync()
	b.mu.Unlock()
}

// breach records how reported usage broke a call's hold (the first
// reason stays): from now on every reservation fails. It reports whether
// this was the first.
func (b *Budget) breach(reason string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	first := b.broken == ""
	if first {
		b.broken = reason
	}
	if b.settled != nil {
		b.settled.Broadcast()
	}
	return first
}

// CheckLLM returns an error wrapping ErrBudget when the dollar cap is spent.
func (b *Budget) CheckLLM() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken != "" {
		return fmt.Errorf("%w: %s", ErrBudget, b.broken)
	}
	if b.caps.USD > 0 && b.usdNano+b.heldNano >= nano(b.caps.USD) {
		return fmt.Errorf("%w: dollars %s of %s", ErrBudget, dollars(float64(b.usdNano)/1e9), dollars(b.caps.USD))
	}
	return nil
}

// RunsLeft is how many more real runs the real-run cap allows (-1: no cap).
func (b *Budget) RunsLeft() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.caps.RealRuns <= 0 {
		return -1
	}
	return b.caps.RealRuns - b.used.RealRuns
}

// Spent returns a snapshot.
func (b *Budget) Spent() Spent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Caps returns the caps.
func (b *Budget) Caps() plan.Budget { return b.caps }
