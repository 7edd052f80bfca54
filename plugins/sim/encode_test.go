package sim

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// encode writes what json.Marshal writes, byte for byte, for answers of
// every kind it writes itself (strings that need escaping, maps nil, empty
// and many-keyed, floats of every magnitude) and for the values it leaves
// to encoding/json.
func TestEncodeIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	strs := []string{"", "plain", "set knob03=0;knob10=4;", `quote " and \ back`, "<b>&amp;</b>", "R&D", "a>b", "tab\tnew\nline\x00", "naïve ✓", "\u2028\u2029", "bad \xff utf-8", "sim-1f3736eb"}
	str := func() string {
		if rng.IntN(4) == 0 {
			return strs[rng.IntN(len(strs))] + strs[rng.IntN(len(strs))]
		}
		return strs[rng.IntN(len(strs))]
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, 1.2345e22, -3e-300, math.SmallestNonzeroFloat64, math.MaxFloat64, 0.0028840703328296656, 123456789.125}
	float := func() float64 {
		if rng.IntN(3) == 0 {
			return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(60)-30))
		}
		return floats[rng.IntN(len(floats))]
	}
	proposal := func() plugins.Proposal {
		p := plugins.Proposal{ID: str(), Text: str(), Mechanism: str(), Patch: str()}
		if rng.IntN(3) == 0 {
			p.Commit = str()
		}
		switch rng.IntN(3) {
		case 0: // nil map
		case 1:
			p.Edits = map[string]string{}
		default:
			p.Edits = map[string]string{}
			for range 1 + rng.IntN(6) {
				p.Edits[str()] = str()
			}
		}
		return p
	}
	var values []any
	for range 2000 {
		var ps []plugins.Proposal
		if rng.IntN(5) > 0 {
			ps = []plugins.Proposal{}
			for range rng.IntN(4) {
				ps = append(ps, proposal())
			}
		}
		values = append(values,
			payload.ProposeResponse{Proposals: ps},
			payload.PredictResponse{PredictedGain: float(), Confidence: float()},
			payload.ImplementResponse{Proposal: proposal(), Infeasible: rng.IntN(2) == 0, Reason: str(), Patch: str()},
			payload.ImplementResponse{Patch: str(), Files: []payload.WholeFile{{Path: str(), Content: str()}}, Edits: []payload.SourceEdit{{Path: str(), Search: str(), Replace: str()}}},
			payload.SummarizeResponse{Summary: str()},
			payload.CritiqueResponse{Label: str(), Reason: str()},
		)
	}
	values = append(values, payload.PredictResponse{PredictedGain: math.NaN()}, payload.PredictResponse{Confidence: math.Inf(1)}, map[string]int{"b": 1, "a": 2}, &payload.CritiqueResponse{Label: "improve"})
	for _, v := range values {
		want, werr := json.Marshal(v)
		got, gerr := encode(v)
		if (werr == nil) != (gerr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("%#v:\nencode       %s (%v)\njson.Marshal %s (%v)", v, got, gerr, want, werr)
		}
	}
}

// The types encode writes field by field have the fields it writes: a
// field added to one must be added to encode too.
func TestEncodeKnowsEveryField(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{payload.ProposeResponse{}, `Proposals json:"proposals"`},
		{payload.PredictResponse{}, `PredictedGain json:"predicted_gain"; Confidence json:"confidence"`},
		{payload.ImplementResponse{}, `Proposal json:"proposal"; Infeasible json:"infeasible,omitempty"; Reason json:"reason,omitempty"; Patch json:"patch,omitempty"; Files json:"files,omitempty"; Edits json:"edits,omitempty"`},
		{payload.SummarizeResponse{}, `Summary json:"summary"`},
		{payload.CritiqueResponse{}, `Label json:"label"; Reason json:"reason,omitempty"`},
		{plugins.Proposal{}, `ID ; Text ; Mechanism ; Edits ; Patch ; Commit json:",omitempty"`},
	} {
		typ := reflect.TypeOf(c.v)
		var fields []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			fields = append(fields, f.Name+" "+string(f.Tag))
		}
		if got := strings.Join(fields, "; "); got != c.want {
			t.Errorf("%s has the fields %s; encode writes %s: write the new ones in encode.go", typ, got, c.want)
		}
	}
}
