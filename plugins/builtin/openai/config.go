package main

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strings"
	"time"
)

// Config is the plugin block's config, checked.
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

const defaultBaseURL = "https://api.openai.com/v1"

// maxSeconds bounds the duration settings (and keeps them inside
// time.Duration).
const maxSeconds = 86400

var configKeys = []string{
	"api_key_env", "backoff_seconds", "base_url", "json_mode", "max_backoff_seconds",
	"max_concurrency", "max_retries", "model", "requests_per_second", "timeout_seconds",
}

// parseConfig checks the config and fills in defaults; every mistake is
// reported at once.
func parseConfig(m map[string]any) (Config, error) {
	c := Config{
		BaseURL:        defaultBaseURL,
		APIKeyEnv:      "OPENAI_API_KEY",
		MaxConcurrency: 8,
		MaxRetries:     5,
		Timeout:        120 * time.Second,
		Backoff:        time.Second,
		MaxBackoff:     60 * time.Second,
		JSONMode:       true,
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	str := func(k string, dst *string) {
		if v, ok := m[k]; ok {
			s, ok := v.(string)
			if !ok || s == "" {
				bad("%s must be a non-empty string, not %v", k, v)
				return
			}
			*dst = s
		}
	}
	num := func(k string, min float64) (float64, bool) {
		v, ok := m[k]
		if !ok {
			return 0, false
		}
		f, ok := v.(float64)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < min {
			bad("%s must be a number >= %g, not %v", k, min, v)
			return 0, false
		}
		return f, true
	}
	integer := func(k string, min float64, dst *int) {
		if f, ok := num(k, min); ok {
			if f != math.Trunc(f) || f > 1e6 {
				bad("%s must be a whole number up to a million, not %v", k, f)
				return
			}
			*dst = int(f)
		}
	}
	seconds := func(k string, dst *time.Duration) {
		if f, ok := num(k, 0); ok {
			if f == 0 || f > maxSeconds {
				bad("%s must be more than 0 and at most %g (a day), not %v", k, float64(maxSeconds), f)
				return
			}
			*dst = time.Duration(f * float64(time.Second))
		}
	}

	for k := range m {
		switch k {
		case "api_key", "key", "token", "api_token":
			bad("%s: an API key is never read from the spec; put it in an environment variable and name that with api_key_env (default OPENAI_API_KEY)", k)
		default:
			if i := sort.SearchStrings(configKeys, k); i == len(configKeys) || configKeys[i] != k {
				bad("unknown setting %q (settings: %s)", k, strings.Join(configKeys, ", "))
			}
		}
	}
	str("base_url", &c.BaseURL)
	str("model", &c.Model)
	str("api_key_env", &c.APIKeyEnv)
	if f, ok := num("requests_per_second", 0); ok {
		c.RequestsPerSecond = f
	}
	integer("max_concurrency", 1, &c.MaxConcurrency)
	integer("max_retries", 0, &c.MaxRetries)
	seconds("timeout_seconds", &c.Timeout)
	seconds("backoff_seconds", &c.Backoff)
	seconds("max_backoff_seconds", &c.MaxBackoff)
	if v, ok := m["json_mode"]; ok {
		b, ok := v.(bool)
		if !ok {
			bad("json_mode must be true or false, not %v", v)
		}
		c.JSONMode = b
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("base_url %q is not an http(s) URL", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if len(errs) > 0 {
		sort.Strings(errs)
		return c, fmt.Errorf("openai plugin config: %s", strings.Join(errs, "; "))
	}
	return c, nil
}
