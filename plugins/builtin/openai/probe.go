package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"time"

	"github.com/assay-lang/assay/plugins/redact"
)

// probeTimeout bounds the preflight request: a server that is up answers
// a model listing at once, and a run should not wait a request's full
// timeout_seconds to learn that nothing listens.
const probeTimeout = 10 * time.Second

// Probe checks, before a run spends anything, that the endpoint a plugin
// config names answers: one GET of base_url + "/models" (the model
// listing every OpenAI-compatible server serves), to exactly that URL,
// with the API key when one is set, no redirect followed and no retry.
// A connection that fails (refused, unknown host, no answer within
// probeTimeout or the config's timeout_seconds, whichever is shorter) or
// a refused key is an error naming the URL and the cause; any other HTTP
// answer means a server is there. The error is redacted like the
// plugin's others.
func Probe(ctx context.Context, config map[string]any) error {
	cfg, err := parseConfig(config)
	if err != nil {
		return redact.Error(err)
	}
	c := newClient(cfg)
	return redact.Error(c.probe(ctx), c.key())
}

func (c *client) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, min(probeTimeout, c.cfg.Timeout))
	defer cancel()
	url := c.cfg.BaseURL + "/models"
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("openai plugin: base_url %s cannot be requested: %w; fix base_url in the plugin block", c.cfg.BaseURL, err)
	}
	if key := c.key(); key != "" {
		hreq.Header.Set("Authorization", "Bearer "+key)
	}
	hresp, err := c.http.Do(hreq)
	if err != nil {
		var ue *neturl.Error
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s", min(probeTimeout, c.cfg.Timeout))
		} else if errors.As(err, &ue) {
			err = ue.Err // the URL is said once, below
		}
		return fmt.Errorf("openai plugin: the endpoint %s does not answer (GET %s: %w): start the server, or set base_url in the plugin block to the one that serves", c.cfg.BaseURL, url, err)
	}
	defer hresp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(hresp.Body, 64<<10))
	if s := hresp.StatusCode; s == http.StatusUnauthorized || s == http.StatusForbidden {
		return fmt.Errorf("openai plugin: the endpoint %s: %w", c.cfg.BaseURL, c.explain(&httpError{status: s, body: "GET " + url}))
	}
	return nil
}
