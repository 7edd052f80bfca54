package lsp

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// editor is a language client as an editor runs one: it speaks to the
// server over a pipe through go.lsp.dev's client dispatcher, keeps the
// diagnostics the server publishes and counts code lens refreshes.
type editor struct {
	t    testing.TB
	ctx  context.Context
	srv  protocol.Server
	conn jsonrpc2.Conn
	done chan error

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every notification
	diags    map[protocol.DocumentURI]*protocol.PublishDiagnosticsParams
	history  map[protocol.DocumentURI][]uint32 // versions published
	refresh  int
	versions map[protocol.DocumentURI]int32
	texts    map[protocol.DocumentURI]string
}

type pipe struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipe) Close() error {
	err := p.ReadCloser.Close()
	if e := p.WriteCloser.Close(); err == nil {
		err = e
	}
	return err
}

// startEditor starts a server on pipes and initializes it.
func startEditor(t testing.TB, opts Options) *editor {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	e := &editor{t: t, ctx: ctx, done: make(chan error, 1), changed: make(chan struct{}),
		diags: map[protocol.DocumentURI]*protocol.PublishDiagnosticsParams{}, history: map[protocol.DocumentURI][]uint32{}, versions: map[protocol.DocumentURI]int32{}, texts: map[protocol.DocumentURI]string{}}
	go func() { e.done <- Serve(ctx, pipe{sr, sw}, opts) }()
	e.conn = jsonrpc2.NewConn(wrappedStream{jsonrpc2.NewStream(pipe{cr, cw})})
	h := protocol.ClientHandler(clientImpl{e}, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == "workspace/codeLens/refresh" {
			e.mu.Lock()
			e.refresh++
			e.notify()
			e.mu.Unlock()
			return reply(ctx, nil, nil)
		}
		return jsonrpc2.MethodNotFoundHandler(ctx, reply, req)
	})
	e.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		return connError("handling "+req.Method(), h(ctx, reply, req))
	})
	e.srv = protocol.ServerDispatcher(e.conn, zap.NewNop())
	t.Cleanup(func() {
		_ = e.srv.Shutdown(ctx)
		_ = e.srv.Exit(ctx)
		select {
		case err := <-e.done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("the server did not exit")
		}
		cancel()
		_ = e.conn.Close()
	})
	res, err := e.srv.Initialize(ctx, &protocol.InitializeParams{Capabilities: protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{CodeLens: &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: true}},
	}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo == nil || res.ServerInfo.Name != "assay" {
		t.Fatalf("initialize: server info %+v", res.ServerInfo)
	}
	if err := e.srv.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		t.Fatal(err)
	}
	return e
}

// notify wakes whoever waits for a notification; the caller holds e.mu.
func (e *editor) notify() {
	close(e.changed)
	e.changed = make(chan struct{})
}

// clientImpl is the editor's side of the protocol: only diagnostics matter.
type clientImpl struct{ e *editor }

func (c clientImpl) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.e.mu.Lock()
	defer c.e.mu.Unlock()
	c.e.diags[p.URI] = p
	c.e.history[p.URI] = append(c.e.history[p.URI], p.Version)
	c.e.notify()
	return nil
}
func (clientImpl) Progress(context.Context, *protocol.ProgressParams) error { return nil }
func (clientImpl) WorkDoneProgressCreate(context.Context, *protocol.WorkDoneProgressCreateParams) error {
	return nil
}
func (clientImpl) LogMessage(context.Context, *protocol.LogMessageParams) error   { return nil }
func (clientImpl) ShowMessage(context.Context, *protocol.ShowMessageParams) error { return nil }
func (clientImpl) ShowMessageRequest(context.Context, *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
	return nil, nil
}
func (clientImpl) Telemetry(context.Context, any) error                                   { return nil }
func (clientImpl) RegisterCapability(context.Context, *protocol.RegistrationParams) error { return nil }
func (clientImpl) UnregisterCapability(context.Context, *protocol.UnregistrationParams) error {
	return nil
}
func (clientImpl) ApplyEdit(context.Context, *protocol.ApplyWorkspaceEditParams) (bool, error) {
	return false, nil
}
func (clientImpl) Configuration(context.Context, *protocol.ConfigurationParams) ([]any, error) {
	return nil, nil
}
func (clientImpl) WorkspaceFolders(context.Context) ([]protocol.WorkspaceFolder, error) {
	return nil, nil
}

// specPath returns the absolute path of a file in specs/.
func specPath(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "specs", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readSpec(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(specPath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// open opens path with text (unsaved when it differs from the file).
func (e *editor) open(path, text string) protocol.DocumentURI {
	e.t.Helper()
	u := protocol.DocumentURI(uri.File(path))
	lang := "hcl"
	if strings.HasSuffix(path, ".cue") {
		lang = "cue"
	}
	e.mu.Lock()
	e.versions[u] = 1
	e.texts[u] = text
	e.mu.Unlock()
	if err := e.srv.DidOpen(e.ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageIdentifier(lang), Version: 1, Text: text}}); err != nil {
		e.t.Fatal(err)
	}
	return u
}

// replace edits the first occurrence of old in the document to new, as
// an incremental change, and returns the new version.
func (e *editor) replace(u protocol.DocumentURI, old, new string) int32 {
	e.t.Helper()
	e.mu.Lock()
	text := e.texts[u]
	i := strings.Index(text, old)
	if i < 0 {
		e.mu.Unlock()
		e.t.Fatalf("%q not in the document", old)
	}
	r := protocol.Range{Start: posAt(text, i), End: posAt(text, i+len(old))}
	e.texts[u] = text[:i] + new + text[i+len(old):]
	e.versions[u]++
	v := e.versions[u]
	e.mu.Unlock()
	err := e.srv.DidChange(e.ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: r, Text: new}},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return v
}

func (e *editor) text(u protocol.DocumentURI) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts[u]
}

// posAt is the LSP position of byte offset i of text (UTF-16 columns).
func posAt(text string, i int) protocol.Position {
	line := strings.Count(text[:i], "\n")
	start := strings.LastIndex(text[:i], "\n") + 1
	units := 0
	for _, r := range text[start:i] {
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// at returns the position of the n-th byte of the first occurrence of
// needle in the document, after the first occurrence of after.
func (e *editor) at(u protocol.DocumentURI, after, needle string, n int) protocol.Position {
	e.t.Helper()
	text := e.text(u)
	base := strings.Index(text, after)
	if base < 0 {
		e.t.Fatalf("%q not in the document", after)
	}
	i := strings.Index(text[base:], needle)
	if i < 0 {
		e.t.Fatalf("%q not after %q", needle, after)
	}
	return posAt(text, base+i+n)
}

// waitDiags waits until the server publishes diagnostics of u for version
// (0: any version) and returns them.
func (e *editor) waitDiags(u protocol.DocumentURI, version int32) []protocol.Diagnostic {
	e.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		e.mu.Lock()
		p := e.diags[u]
		ch := e.changed
		if p != nil && (version == 0 || int32(p.Version) == version) {
			e.diags[u] = nil
			e.mu.Unlock()
			return p.Diagnostics
		}
		e.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			e.t.Fatalf("no diagnostics for %s version %d", u, version)
		}
	}
}

// waitRefresh waits until the server has asked for n code lens refreshes.
func (e *editor) waitRefresh(n int) {
	e.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		e.mu.Lock()
		got, ch := e.refresh, e.changed
		e.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			e.t.Fatalf("%d code lens refreshes, want %d", got, n)
		}
	}
}

// wrappedStream wraps every error of jsonrpc2's own stream as the server
// wraps its own (connError): that stream returns a cancelled context's
// error bare and its other errors wrapped, and the connection panics when
// it keeps two errors of different types.
type wrappedStream struct{ jsonrpc2.Stream }

func (s wrappedStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	m, n, err := s.Stream.Read(ctx)
	return m, n, connError("reading", err)
}
