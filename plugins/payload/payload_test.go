package payload

import (
	"testing"

	"github.com/assay-lang/assay/plugins"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	cases := []any{
		&ProposeRequest{Task: "t1", State: "t1/0", Knobs: []plugins.Knob{{Name: "width", Mechanism: "architecture", Default: "64", Values: []string{"32", "64"}}}, N: 8},
		&ProposeResponse{Proposals: []plugins.Proposal{{ID: "p1", Mechanism: "optimizer", Edits: map[string]string{"optimizer": "adam"}}}},
		&PredictRequest{Task: "t1", Records: []Record{{Task: "t1", Gain: 0.1}}, Proposal: plugins.Proposal{ID: "p"}},
		&PredictResponse{PredictedGain: 0.25, Confidence: 0.5},
		&CritiqueRequest{Task: "t", Labels: Labels5},
		&CritiqueResponse{Label: LabelBigWin},
		&SummarizeRequest{Task: "t"},
		&SummarizeResponse{Summary: "s"},
		&ImplementRequest{Task: "t"},
		&ImplementResponse{Infeasible: true, Reason: "r"},
	}
	for _, c := range cases {
		b, err := Encode(c)
		if err != nil {
			t.Fatal(err)
		}
		// A fresh value of the same type.
		got := newLike(c)
		if err := Decode(b, got); err != nil {
			t.Fatalf("%T: %v", c, err)
		}
		if d := cmp.Diff(c, got); d != "" {
			t.Errorf("%T round trip (-want +got):\n%s", c, d)
		}
	}
}

func newLike(v any) any {
	switch v.(type) {
	case *ProposeRequest:
		return new(ProposeRequest)
	case *ProposeResponse:
		return new(ProposeResponse)
	case *PredictRequest:
		return new(PredictRequest)
	case *PredictResponse:
		return new(PredictResponse)
	case *CritiqueRequest:
		return new(CritiqueRequest)
	case *CritiqueResponse:
		return new(CritiqueResponse)
	case *SummarizeRequest:
		return new(SummarizeRequest)
	case *SummarizeResponse:
		return new(SummarizeResponse)
	case *ImplementRequest:
		return new(ImplementRequest)
	case *ImplementResponse:
		return new(ImplementResponse)
	}
	panic("unknown")
}

func TestDecodeRejects(t *testing.T) {
	for _, in := range []string{
		`{"task":"t","predicted_gian":1}`,
		`{"task":"t"} {}`,
		`[`,
	} {
		var r PredictResponse
		if err := Decode([]byte(in), &r); err == nil {
			t.Errorf("Decode(%s) = nil error", in)
		}
	}
}

func TestLabels(t *testing.T) {
	if got := LabelRank(Labels5, LabelSmallWin); got != 2 {
		t.Errorf("rank SmallWin = %d", got)
	}
	if got := LabelRank(Labels3, LabelBigWin); got != -1 {
		t.Errorf("rank BigWin in 3way = %d", got)
	}
	if LabelSet("7way") != nil {
		t.Error("unknown space has labels")
	}
	if Tokens("abcdefgh") != 2 || Tokens("abc") != 1 {
		t.Error("Tokens")
	}
}
