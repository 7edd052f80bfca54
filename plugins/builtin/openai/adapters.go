package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// servedAdapters are the adapters this plugin process had its server load,
// by name, with the directory each was loaded from. A restarted plugin (a
// resumed run) knows none, so it loads the current adapter again before
// the first request names it.
type servedAdapters struct {
	mu     sync.Mutex
	loaded map[string]string
}

// ensureAdapter has the server serve st's adapter before a request names
// it. After a resume the server may have lost the adapter (it restarted
// too) or may serve it still; serveAdapter covers both.
func (c *client) ensureAdapter(ctx context.Context, st policyState) error {
	c.served.mu.Lock()
	defer c.served.mu.Unlock()
	if p, ok := c.served.loaded[st.Adapter]; ok && p == st.Path {
		return nil
	}
	if st.Path == "" {
		return fmt.Errorf("the policy state names adapter %s without its directory, so it cannot be loaded again", st.Adapter)
	}
	return c.serveAdapter(ctx, st.Adapter, st.Path)
}

// switchAdapter has the server serve the adapter name from path, then stop
// serving prev, the adapter it replaces (vLLM's POST
// /v1/unload_lora_adapter): no later request names prev, and each adapter
// a server holds takes GPU memory and one of its --max-loras slots.
func (c *client) switchAdapter(ctx context.Context, prev, name, path string) error {
	c.served.mu.Lock()
	defer c.served.mu.Unlock()
	if err := c.serveAdapter(ctx, name, path); err != nil {
		return fmt.Errorf("loading adapter %s from %s: %w", name, path, err)
	}
	if prev == "" || prev == name {
		return nil
	}
	if err := c.unloadAdapter(ctx, prev); err != nil {
		return fmt.Errorf("unloading adapter %s, which %s replaces: %w", prev, name, err)
	}
	delete(c.served.loaded, prev)
	return nil
}

// serveAdapter loads an adapter. One of that name the server holds
// already (a resumed run against a server that kept it, or another
// directory under the same name) is unloaded and loaded again, so that the
// name serves path and nothing else. Called with served.mu held.
func (c *client) serveAdapter(ctx context.Context, name, path string) error {
	err := c.loadAdapter(ctx, name, path)
	if alreadyLoaded(err) {
		if err = c.unloadAdapter(ctx, name); err == nil {
			err = c.loadAdapter(ctx, name, path)
		}
	}
	if err != nil {
		return err
	}
	if c.served.loaded == nil {
		c.served.loaded = map[string]string{}
	}
	c.served.loaded[name] = path
	return nil
}

// unloadAdapter asks the server to stop serving an adapter; one it does
// not know (404, vLLM's "cannot be found") is gone already.
func (c *client) unloadAdapter(ctx context.Context, name string) error {
	err := c.send(ctx, "/unload_lora_adapter", map[string]string{"lora_name": name}, nil, func([]byte, func() string) error { return nil })
	var he *httpError
	if errors.As(err, &he) && he.status == http.StatusNotFound {
		return nil
	}
	return err
}

// alreadyLoaded is vLLM's refusal to load an adapter under a name it
// serves: 400, "The lora adapter 'NAME' has already been loaded."
func alreadyLoaded(err error) bool {
	var he *httpError
	return errors.As(err, &he) && he.status == http.StatusBadRequest && strings.Contains(he.body, "already been loaded")
}
