package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/assay-lang/assay/plugins/redact"
)

// client talks to one chat-completions endpoint with one config's limits.
type client struct {
	cfg     Config
	http    *http.Client
	limit   *limiter
	slots   chan struct{}
	getenv  func(string) string
	sleep   func(context.Context, time.Duration) error
	jitter  func() float64
	retries atomic.Int64 // total retries made, for tests and logs
	served  servedAdapters
}

func newClient(cfg Config) *client {
	return &client{
		cfg: cfg,
		// A redirect is not followed: it would carry the prompt (and, to
		// the same host, the key) somewhere the spec does not name.
		http:   &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		limit:  newLimiter(cfg.RequestsPerSecond),
		slots:  make(chan struct{}, cfg.MaxConcurrency),
		getenv: os.Getenv,
		sleep:  sleep,
		jitter: rand.Float64,
	}
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	Temperature    float64         `json:"temperature"`
	Seed           *int64          `json:"seed,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	// Usage is read by meter, which bounds what a server reports.
}

// httpError is a non-2xx answer.
type httpError struct {
	status     int
	body       string
	retryAfter time.Duration
}

func (e *httpError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.status, e.body)
}

// retryable reports whether another attempt may succeed: rate limits,
// server errors, timeouts and broken connections, but never a request the
// server rejected.
func retryable(err error) bool {
	var he *httpError
	if errors.As(err, &he) {
		return he.status == http.StatusTooManyRequests || he.status == http.StatusRequestTimeout || he.status >= 500
	}
	return true // transport errors: timeouts, resets, refused connections
}

// chat sends one request, retrying transient failures; m counts what
// every attempt may be billed for.
func (c *client) chat(ctx context.Context, req *chatRequest, m *meter) (*chatResponse, error) {
	var out chatResponse
	err := c.send(ctx, "/chat/completions", req, m, func(data []byte, quote func() string) error {
		if err := json.Unmarshal(data, &out); err != nil {
			return fmt.Errorf("the server's answer is not a chat-completions response (%v): %s", err, quote())
		}
		if len(out.Choices) == 0 {
			return fmt.Errorf("the server's answer has no choices: %s", quote())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// loadAdapter asks the server to serve a LoRA adapter under name (vLLM's
// POST /v1/load_lora_adapter, with base_url ending in /v1), retrying
// transient failures like a chat request.
func (c *client) loadAdapter(ctx context.Context, name, path string) error {
	body := map[string]string{"lora_name": name, "lora_path": path}
	return c.send(ctx, "/load_lora_adapter", body, nil, func([]byte, func() string) error { return nil })
}

// send posts req as JSON to base_url + path and hands a 2xx answer to
// parse, retrying transient failures (a parse error is not retried). A
// non-nil m counts each attempt's billable usage.
func (c *client) send(ctx context.Context, path string, req any, m *meter, parse func(data []byte, quote func() string) error) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		if err := c.limit.wait(ctx); err != nil {
			return err
		}
		data, quote, err := c.once(ctx, path, body)
		if m != nil {
			if err == nil {
				m.answered(data)
			} else {
				m.failed(err)
			}
		}
		if err == nil {
			return parse(data, quote)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !retryable(err) {
			return fmt.Errorf("%s: %w", c.cfg.BaseURL, c.explain(err))
		}
		if attempt >= c.cfg.MaxRetries {
			return fmt.Errorf("%s: gave up after %d attempts: %w", c.cfg.BaseURL, attempt+1, c.explain(err))
		}
		var he *httpError
		d := c.backoff(attempt)
		if errors.As(err, &he) && he.retryAfter > 0 {
			d = he.retryAfter
		}
		c.retries.Add(1)
		if err := c.sleep(ctx, d); err != nil {
			return err
		}
	}
}

// backoff is exponential with "equal jitter": half the delay is fixed, half
// random, so retries of many callers spread out but never come too soon.
func (c *client) backoff(attempt int) time.Duration {
	d := c.cfg.Backoff
	for i := 0; i < attempt && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.cfg.MaxBackoff)
	return d/2 + time.Duration(c.jitter()*float64(d/2))
}

// key is the API key from the environment; "" when unset.
func (c *client) key() string { return c.getenv(c.cfg.APIKeyEnv) }

func (c *client) explain(err error) error {
	var he *httpError
	if errors.As(err, &he) && (he.status == http.StatusUnauthorized || he.status == http.StatusForbidden) {
		if c.key() == "" {
			return fmt.Errorf("the request was refused (%w): $%s is not set; export the API key in it", err, c.cfg.APIKeyEnv)
		}
		return fmt.Errorf("the server refused the API key in $%s: %w", c.cfg.APIKeyEnv, err)
	}
	return err
}

// once makes one attempt, holding a concurrency slot only while the
// request is in flight (not while backing off).
func (c *client) once(ctx context.Context, path string, body []byte) ([]byte, func() string, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	defer func() { <-c.slots }()

	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.cfg.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	key := c.key()
	if key != "" {
		hreq.Header.Set("Authorization", "Bearer "+key)
	}
	hresp, err := c.http.Do(hreq)
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			return nil, nil, fmt.Errorf("no answer within %s", c.cfg.Timeout)
		}
		return nil, nil, err
	}
	defer hresp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(hresp.Body, 32<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	// What the server says is quoted in errors; it may echo the key.
	quote := func() string { return excerpt(redact.String(string(data), key), 300) }
	if hresp.StatusCode/100 == 3 {
		return nil, nil, &httpError{status: hresp.StatusCode,
			body: "the server redirects, and requests go only to base_url; set base_url to the endpoint that answers"}
	}
	if hresp.StatusCode/100 != 2 {
		return nil, nil, &httpError{
			status:     hresp.StatusCode,
			body:       quote(),
			retryAfter: parseRetryAfter(hresp.Header.Get("Retry-After"), time.Now()),
		}
	}
	return data, quote, nil
}

// maxRetryAfter bounds a server's Retry-After, so a bogus header cannot
// park a run for days.
const maxRetryAfter = time.Hour

// parseRetryAfter reads delay-seconds or an HTTP date; 0 when absent or
// unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s >= 0) { // also NaN
			return 0
		}
		return time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}

func excerpt(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
