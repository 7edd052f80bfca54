package model

import (
	"context"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/plugins/payload"
)

// The offline model bills a call at the bounds the request carries (the
// role's high tokens in and out), however long or short its prompt and
// answer, and counts them where there are none.
func TestUsageIsTheRoleBounds(t *testing.T) {
	src := &payload.SourceContext{Files: []payload.SourceFile{{Path: "train.go", Content: strings.Repeat("// a long comment line\n", 200) + settingFormats[5].content}}}
	in, err := payload.Encode(payload.ProposeRequest{Task: "t", State: "s", N: 1, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	req := &plugins.CompleteRequest{Role: plugins.RolePropose, Payload: in, Temperature: 1, Seed: 1}
	open, err := Model{}.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if open.Usage.In <= 500 || open.Usage.Out <= 10 || open.Usage.Out >= 5000 {
		t.Fatalf("the unbounded call counts %+v: make its prompt longer than 500 tokens, its answer between 10 and 5000", open.Usage)
	}
	for _, b := range [][2]int{{500, 10}, {100000, 5000}} {
		req.MaxPromptTokens, req.MaxTokens = b[0], b[1]
		got, err := Model{}.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Usage.In != b[0] || got.Usage.Out != b[1] || string(got.Payload) != string(open.Payload) {
			t.Errorf("usage %+v under bounds %v (unbounded %+v); the answer must not change", got.Usage, b, open.Usage)
		}
	}
}
