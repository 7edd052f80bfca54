package model

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/assay-lang/assay/plugins"
	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// TestSchemaMatchesPlugin: the declaration `assay validate` checks against
// (pluginconfig.TinyLM) states this trainer's keys, default and corpora.
func TestSchemaMatchesPlugin(t *testing.T) {
	s := pluginconfig.TinyLM
	if got, want := s.Keys(), []string{ConfigCorpus, ConfigEvalPositions, ConfigSteps}; !reflect.DeepEqual(got, want) {
		t.Errorf("schema keys %v, plugin keys %v", got, want)
	}
	if d, _ := s.Field(ConfigEvalPositions).Default.(float64); int(d) != DefaultEvalPositions {
		t.Errorf("schema default eval_positions %v, plugin DefaultEvalPositions %d", s.Field(ConfigEvalPositions).Default, DefaultEvalPositions)
	}
	if d, _ := s.Field(ConfigSteps).Default.(float64); int(d) != DefaultSteps {
		t.Errorf("schema default steps %v, plugin DefaultSteps %d", s.Field(ConfigSteps).Default, DefaultSteps)
	}
	if got := s.Field(ConfigCorpus).Enum; !reflect.DeepEqual(got, CorpusNames()) {
		t.Errorf("schema corpora %v, plugin corpora %v", got, CorpusNames())
	}
}

// TestBadConfigIsConfigError: what validate refuses, the plugin refuses
// too, with the permanent config error.
func TestBadConfigIsConfigError(t *testing.T) {
	tr := NewTrainer()
	for _, cfg := range []map[string]any{
		{"steps": "600"},
		{"steps": 0.0},
		{"stpes": 3.0},
		{"corpus": "nope"},
		{"eval_positions": 0.0},
		{"eval_positions": 2e6},
	} {
		_, err := tr.Describe(context.Background(), &plugins.DescribeRequest{Config: cfg})
		if !errors.Is(err, errConfig) {
			t.Errorf("config %v: err = %v, want the config error", cfg, err)
		}
		if err != nil && !strings.Contains(err.Error(), "config.") {
			t.Errorf("config %v: err = %v, want it to name the key", cfg, err)
		}
	}
}
