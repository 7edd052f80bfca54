package openai

import (
	"errors"
	"fmt"
	"github.com/assay-lang/assay/plugins"
	"strings"
	"time"

	"github.com/assay-lang/assay/stdlib/pluginconfig"
)

// errConfig marks a request whose plugin config is unusable: a missing
// base_url, an unknown key, a value out of range. No retry can fix it.
var errConfig = fmt.Errorf("bad openai plugin config: %w", plugins.ErrConfig)

// Config is the plugin block's config, checked, with the defaults of its
// schema (pluginconfig.OpenAI) filled in.
type Config struct {
	BaseURL           string
	Model             string
	APIKeyEnv         string
	RequestsPerSecond float64
	MaxConcurrency    int
	MaxRetries        int
	Timeout           time.Duration
	Backoff           time.Duration
	MaxBackoff        time.Duration
	JSONMode          bool
}

// parseConfig decodes the config against the declared schema, which
// reports every mistake at once. There is no default base_url: a config
// without one is an error, so a request never goes anywhere the spec does
// not name.
func parseConfig(m map[string]any) (Config, error) {
	v, err := pluginconfig.OpenAI.Decode(m)
	if err != nil {
		var ce *pluginconfig.Error
		if errors.As(err, &ce) {
			return Config{}, fmt.Errorf("%w: %s; fix the plugin block's config in the spec", errConfig, pluginconfig.Join(ce.Problems))
		}
		return Config{}, fmt.Errorf("%w: %v", errConfig, err)
	}
	return Config{
		BaseURL:           strings.TrimRight(v.String("base_url"), "/"),
		Model:             v.String("model"),
		APIKeyEnv:         v.String("api_key_env"),
		RequestsPerSecond: v.Float("requests_per_second"),
		MaxConcurrency:    v.Int("max_concurrency"),
		MaxRetries:        v.Int("max_retries"),
		Timeout:           v.Seconds("timeout_seconds"),
		Backoff:           v.Seconds("backoff_seconds"),
		MaxBackoff:        v.Seconds("max_backoff_seconds"),
		JSONMode:          v.Bool("json_mode"),
	}, nil
}
