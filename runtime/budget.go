package runtime

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/assay-lang/assay/compiler/plan"
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
	// hold is what the current phase leaves unspent for the phases after
	// it (the plan's hold_back): its reservations stop short of it.
	hold plan.HoldBack
	// broken says how reported usage broke what a call held: every
	// reservation after it fails, so the run stops at the cap.
	broken string
	// settled wakes reservations waiting for holds to settle.
	settled *sync.Cond
}

// SetHoldBack sets what reservations leave unspent from now on, for the
// phases after the current one (the plan phase's HoldBack).
func (b *Budget) SetHoldBack(h plan.HoldBack) {
	b.mu.Lock()
	b.hold = h
	b.mu.Unlock()
}

// heldFor says what of a cap is held back for later phases, for an error.
func heldFor(x string) string {
	if x == "" {
		return ""
	}
	return " (" + x + " of it held back for later phases)"
}

// gpuRoom and usdRoom are the GPU-hours and dollars (nano) this phase may
// still reserve under each cap, and what is held back of it.
func (b *Budget) gpuRoom() (room int64, held string) {
	room = nano(b.caps.GPUHours) - b.gpuNano
	if h := b.hold.GPUHours; h > 0 {
		room -= nano(h)
		held = hours(h)
	}
	return room, held
}

func (b *Budget) usdRoom() (room int64, held string) {
	room = nano(b.caps.USD) - b.usdNano - b.heldNano
	if h := b.hold.USD; h > 0 {
		room -= nano(h)
		held = dollars(h)
	}
	return room, held
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
	if err := b.check(gpuHours, usd, ""); err != nil {
		return err
	}
	if c := b.caps; c.RealRuns > 0 && b.used.RealRuns+1 > c.RealRuns {
		return fmt.Errorf("%w: the real-run cap of %d is spent", ErrBudget, c.RealRuns)
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
	if err := b.check(gpuHours, usd, " for a policy update"); err != nil {
		return err
	}
	b.addUpdate(gpuHours, usd)
	return nil
}

// Fits reports whether one more real run of the given cost fits the
// GPU-hour and dollar caps, less what is held back for later phases.
func (b *Budget) Fits(gpuHours, usd float64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.check(gpuHours, usd, "") == nil
}

// check returns an error wrapping ErrBudget when gpuHours and usd more do
// not fit the GPU-hour and dollar caps, less what is held back for later
// phases. Called with mu held.
func (b *Budget) check(gpuHours, usd float64, what string) error {
	if b.broken != "" {
		return fmt.Errorf("%w: %s", ErrBudget, b.broken)
	}
	c := b.caps
	if c.GPUHours > 0 {
		if room, held := b.gpuRoom(); nano(gpuHours) > room {
			return fmt.Errorf("%w: the GPU-hour cap of %s%s leaves no room for %s GPU-hours more%s (%s reserved)", ErrBudget, hours(c.GPUHours), heldFor(held), hours(gpuHours), what, hours(b.used.GPUHours))
		}
	}
	if c.USD > 0 {
		if room, held := b.usdRoom(); nano(usd) > room {
			return fmt.Errorf("%w: the dollar cap of %s%s leaves no room for %s more%s (%s spent or held)", ErrBudget, dollars(c.USD), heldFor(held), dollars(usd), what, dollars(b.used.USD+float64(b.heldNano)/1e9))
		}
	}
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
// the cap refuses a call only when what was spent, and what is held back
// for later phases, leave no room for it.
func (b *Budget) ReserveLLM(usd float64, role *plan.Role) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for {
		if b.broken != "" {
			return fmt.Errorf("%w: %s", ErrBudget, b.broken)
		}
		if b.caps.USD <= 0 {
			break
		}
		room, held := b.usdRoom()
		if nano(usd) <= room {
			break
		}
		if b.heldNano <= 0 || nano(usd) > room+b.heldNano {
			return fmt.Errorf("%w: the dollar cap of %s%s leaves no room for a %s call of up to %s (%d attempts at its high tokens; %s spent or held)", ErrBudget,
				dollars(b.caps.USD), heldFor(held), role.Name, dollars(usd), max(role.Attempts, 1), dollars(float64(b.usdNano+b.heldNano)/1e9))
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

// CheckLLM returns an error wrapping ErrBudget when the dollar cap is spent.
func (b *Budget) CheckLLM() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken != "" {
		return fmt.Errorf("%w: %s", ErrBudget, b.broken)
	}
	if b.caps.USD > 0 {
		if room, held := b.usdRoom(); room <= 0 {
			return fmt.Errorf("%w: the dollar cap of %s%s is spent (%s spent or held)", ErrBudget, dollars(b.caps.USD), heldFor(held), dollars(b.used.USD+float64(b.heldNano)/1e9))
		}
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

// hours prints GPU-hours to four significant digits.
func hours(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
