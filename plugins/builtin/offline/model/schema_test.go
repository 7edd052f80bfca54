package model

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
)

// TestConfigRefused: the offline model takes no config (its schema,
// pluginconfig.Offline, declares none), so a key is a config error rather
// than a silent no-op.
func TestConfigRefused(t *testing.T) {
	req := &plugins.CompleteRequest{Role: plugins.RoleSummarize, Config: map[string]any{"model": "gpt"}}
	_, err := Model{}.Complete(context.Background(), req)
	if !errors.Is(err, errConfig) || !strings.Contains(err.Error(), "config.model") {
		t.Errorf("err = %v, want the config error naming config.model", err)
	}
	_, err = Model{}.Update(context.Background(), &plugins.UpdateRequest{Config: map[string]any{"lr": 1.0}})
	if !errors.Is(err, errConfig) {
		t.Errorf("Update: err = %v, want the config error", err)
	}
}
