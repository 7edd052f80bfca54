package runtime

import (
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// An in-process answer's Output is taken as it is when it has the type
// asked for; otherwise, or without one, the payload is decoded (strictly).
func TestDecodeAnswer(t *testing.T) {
	// Output of the type asked for: taken, the payload not read.
	var got payload.CritiqueResponse
	resp := &plugins.CompleteResponse{Payload: []byte(`not json`), Output: payload.CritiqueResponse{Label: "tie"}}
	if err := decodeAnswer(resp, &got); err != nil || got.Label != "tie" {
		t.Errorf("Output of the type asked for: %+v, %v", got, err)
	}
	// Output of another type: the payload decides.
	var pr payload.PredictResponse
	resp = &plugins.CompleteResponse{Payload: []byte(`{"predicted_gain":2,"confidence":0.5}`), Output: payload.CritiqueResponse{Label: "tie"}}
	if err := decodeAnswer(resp, &pr); err != nil || pr.PredictedGain != 2 {
		t.Errorf("Output of another type: %+v, %v", pr, err)
	}
	// A pointer Output is not the value type asked for: decoded.
	got = payload.CritiqueResponse{}
	resp = &plugins.CompleteResponse{Payload: []byte(`{"label":"lose"}`), Output: &payload.CritiqueResponse{Label: "tie"}}
	if err := decodeAnswer(resp, &got); err != nil || got.Label != "lose" {
		t.Errorf("pointer Output: %+v, %v", got, err)
	}
	// No Output: decoded, unknown fields refused as before.
	resp = &plugins.CompleteResponse{Payload: []byte(`{"label":"lose","extra":1}`)}
	if err := decodeAnswer(resp, &got); err == nil {
		t.Errorf("an unknown field was accepted: %+v", got)
	}
}
