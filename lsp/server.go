package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/assay-lang/assay/compiler/estimate"
)

// DefaultDebounce is how long the server waits after the last edit before
// it checks a spec: long enough to let a burst of keystrokes pass, short
// enough that diagnostics follow typing.
const DefaultDebounce = 15 * time.Millisecond

// Options configure a server.
type Options struct {
	// Debounce is the wait after the last edit before a check; 0 means
	// DefaultDebounce.
	Debounce time.Duration
	// Version is reported to the client as the server's version.
	Version string

	// afterLoad, when set, runs in each check between the load and the
	// compile: tests hold a check there to edit under it.
	afterLoad func()
}

// Serve speaks the protocol over rwc (an editor's pipe: standard input and
// output) until the client exits, the stream closes or ctx ends.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The framing is Assay's own (frame.go): bounded, and a malformed
	// frame is answered rather than ending the connection.
	conn := jsonrpc2.NewConn(newFrameStream(rwc))
	s := &server{
		opts:  opts,
		conn:  conn,
		docs:  map[protocol.DocumentURI]*document{},
		other: map[protocol.DocumentURI]map[protocol.DocumentURI]bool{},
		wake:  make(chan struct{}, 1),
		exit:  make(chan struct{}),
	}
	// Requests already read are answered even when the input then ends.
	var inflight sync.WaitGroup
	h := protocol.Handlers(s.handle)
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		inflight.Add(1)
		var once sync.Once
		err := h(ctx, func(ctx context.Context, result any, err error) error {
			defer once.Do(inflight.Done)
			return reply(ctx, result, err)
		}, req)
		return connError("handling "+req.Method(), err)
	})
	done := make(chan struct{})
	go func() { s.checker(ctx); close(done) }()
	select {
	case <-conn.Done():
	case <-s.exit:
		// The reader may sit in a read of standard input that closing it
		// does not interrupt; the process ends after Serve returns.
	case <-ctx.Done():
		_ = conn.Close()
		<-conn.Done()
	}
	waited := make(chan struct{})
	go func() { inflight.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
	}
	cancel()
	<-done
	s.mu.Lock()
	exited, shutdown := s.exited, s.shutdown
	s.mu.Unlock()
	if exited {
		if !shutdown {
			// The protocol's rule: exit without shutdown is a failure.
			return errors.New("the client sent exit without shutdown")
		}
		return nil
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
		return err
	}
	return nil
}

// server is the state of one connection.
type server struct {
	opts Options
	conn jsonrpc2.Conn

	mu   sync.Mutex
	docs map[protocol.DocumentURI]*document
	// other lists, for each document, the files other than itself where its
	// last check published diagnostics (a base spec that is not open).
	other map[protocol.DocumentURI]map[protocol.DocumentURI]bool
	// lastEdit is when the latest edit arrived, for the debounce.
	lastEdit      time.Time
	lensRefresh   bool // the client takes workspace/codeLens/refresh
	shutdown      bool
	exited        bool
	wake          chan struct{}
	exit          chan struct{} // closed on the exit notification
	checksRun     int           // compiles finished, for tests
	checksDropped int           // compiles superseded by an edit
}

// document is an open document.
type document struct {
	uri     protocol.DocumentURI
	path    string
	cue     bool
	version int32
	text    *text
	syn     *syntax // of text, made when first asked for

	dirty bool // edited since the last check started
	// saved asks for the code lens to take the next check's estimate.
	saved bool

	// Results of the last check of the current or an earlier version.
	files []string         // the files of its extends chain
	est   *estimate.Report // nil when the spec had errors
	loops map[string]loopFigures
	lens  *lensState // the estimate of the last saved version
}

// lensState is what the code lens shows: the estimate of the spec as last
// opened or saved.
type lensState struct {
	est    *estimate.Report
	loops  map[string]loopFigures
	errors int
}

func (s *server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	defer func() {
		if r := recover(); r != nil {
			// A bug in one feature must not take the editor's server down.
			_ = reply(ctx, nil, fmt.Errorf("assay lsp: internal error in %s: %v", req.Method(), r))
		}
	}()
	var (
		result any
		err    error
	)
	p := req.Params()
	switch req.Method() {
	case protocol.MethodInitialize:
		result, err = s.initialize(p)
	case protocol.MethodInitialized, protocol.MethodWorkspaceDidChangeConfiguration, protocol.MethodWorkspaceDidChangeWatchedFiles:
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
	case protocol.MethodExit:
		s.mu.Lock()
		if !s.exited {
			s.exited = true
			close(s.exit)
		}
		s.mu.Unlock()
		return reply(ctx, nil, nil)
	case protocol.MethodTextDocumentDidOpen:
		err = s.didOpen(p)
	case protocol.MethodTextDocumentDidChange:
		err = s.didChange(p)
	case protocol.MethodTextDocumentDidSave:
		err = s.didSave(p)
	case protocol.MethodTextDocumentDidClose:
		err = s.didClose(ctx, p)
	case protocol.MethodTextDocumentHover:
		result, err = s.hover(p)
	case protocol.MethodTextDocumentCompletion:
		result, err = s.completion(p)
	case protocol.MethodTextDocumentDefinition:
		result, err = s.definition(p)
	case protocol.MethodTextDocumentReferences:
		result, err = s.references(p)
	case protocol.MethodTextDocumentFormatting:
		result, err = s.formatting(p)
	case protocol.MethodTextDocumentCodeLens:
		result, err = s.codeLens(p)
	default:
		if _, call := req.(*jsonrpc2.Call); call {
			err = fmt.Errorf("%q: %w", req.Method(), jsonrpc2.ErrMethodNotFound)
		}
	}
	return reply(ctx, result, err)
}

func decode(p json.RawMessage, v any) error {
	if err := json.Unmarshal(p, v); err != nil {
		return fmt.Errorf("%w: %v", jsonrpc2.ErrInvalidParams, err)
	}
	return nil
}

func (s *server) initialize(p json.RawMessage) (any, error) {
	var params protocol.InitializeParams
	if err := decode(p, &params); err != nil {
		return nil, err
	}
	if w := params.Capabilities.Workspace; w != nil && w.CodeLens != nil {
		s.mu.Lock()
		s.lensRefresh = w.CodeLens.RefreshSupport
		s.mu.Unlock()
	}
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{
				OpenClose: true,
				Change:    protocol.TextDocumentSyncKindIncremental,
				Save:      &protocol.SaveOptions{},
			},
			HoverProvider:              true,
			CompletionProvider:         &protocol.CompletionOptions{TriggerCharacters: []string{".", "\""}},
			DefinitionProvider:         true,
			ReferencesProvider:         true,
			DocumentFormattingProvider: true,
			CodeLensProvider:           &protocol.CodeLensOptions{},
		},
		ServerInfo: &protocol.ServerInfo{Name: "assay", Version: s.opts.Version},
	}, nil
}

// pathOf returns the file path of a document URI. A document that is not a
// file (an untitled buffer) gets a made-up path with the extension of its
// language, so the front end it needs reads it from the overlay.
func pathOf(u protocol.DocumentURI, languageID string) string {
	if pu, err := url.Parse(string(u)); err == nil && pu.Scheme == "file" {
		return filepath.Clean(uri.URI(u).Filename())
	}
	ext := ".hcl"
	if languageID == "cue" {
		ext = ".cue"
	}
	return filepath.Join(string(filepath.Separator), "untitled", url.PathEscape(string(u))+ext)
}

// uriOf returns the URI of a file path, the open document's when it has one.
func (s *server) uriOf(path string) protocol.DocumentURI {
	for _, d := range s.docs {
		if d.path == path {
			return d.uri
		}
	}
	return protocol.DocumentURI(uri.File(path))
}

func (s *server) didOpen(p json.RawMessage) error {
	var params protocol.DidOpenTextDocumentParams
	if err := decode(p, &params); err != nil {
		return err
	}
	td := params.TextDocument
	path := pathOf(td.URI, string(td.LanguageID))
	d := &document{
		uri:     td.URI,
		path:    path,
		cue:     strings.EqualFold(filepath.Ext(path), ".cue") || td.LanguageID == "cue",
		version: td.Version,
		text:    newText([]byte(td.Text)),
		saved:   true, // the text on disk: the lens shows its estimate
	}
	s.mu.Lock()
	s.docs[td.URI] = d
	s.touch(d)
	s.mu.Unlock()
	return nil
}

// changeEvent is a content change; Range is a pointer because a change
// without one replaces the whole text (protocol's own type cannot tell).
type changeEvent struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}

func (s *server) didChange(p json.RawMessage) error {
	var params struct {
		TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
		ContentChanges []changeEvent                            `json:"contentChanges"`
	}
	if err := decode(p, &params); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[params.TextDocument.URI]
	if d == nil {
		return nil
	}
	t := d.text
	for _, c := range params.ContentChanges {
		if c.Range == nil {
			t = newText([]byte(c.Text))
		} else {
			t = newText(t.edit(*c.Range, c.Text))
		}
	}
	d.text, d.syn, d.version = t, nil, params.TextDocument.Version
	s.touch(d)
	return nil
}

// touch marks d, and every open spec whose extends chain reads it, for a
// check after the debounce. The caller holds s.mu.
func (s *server) touch(d *document) {
	d.dirty = true
	for _, o := range s.docs {
		if o == d {
			continue
		}
		for _, f := range o.files {
			if f == d.path {
				o.dirty = true
			}
		}
	}
	s.lastEdit = time.Now()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *server) didSave(p json.RawMessage) error {
	var params protocol.DidSaveTextDocumentParams
	if err := decode(p, &params); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.docs[params.TextDocument.URI]; d != nil {
		d.saved = true
		s.touch(d)
		s.lastEdit = time.Time{} // no reason to wait: check at once
	}
	return nil
}

func (s *server) didClose(ctx context.Context, p json.RawMessage) error {
	var params protocol.DidCloseTextDocumentParams
	if err := decode(p, &params); err != nil {
		return err
	}
	s.mu.Lock()
	d := s.docs[params.TextDocument.URI]
	delete(s.docs, params.TextDocument.URI)
	others := s.other[params.TextDocument.URI]
	delete(s.other, params.TextDocument.URI)
	if d != nil {
		// The specs built on it now read it from disk.
		for _, o := range s.docs {
			for _, f := range o.files {
				if f == d.path {
					o.dirty = true
				}
			}
		}
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	// Its diagnostics go with it.
	for u := range others {
		s.publish(ctx, u, nil, 0)
	}
	s.publish(ctx, d.uri, nil, 0)
	return nil
}

// doc returns the open document at u with its syntax, or an error.
func (s *server) doc(u protocol.DocumentURI) (*document, *text, *syntax, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[u]
	if d == nil {
		return nil, nil, nil, fmt.Errorf("%w: %s is not open", jsonrpc2.ErrInvalidParams, u)
	}
	if d.syn == nil {
		d.syn = analyze(d.text.src, d.cue)
	}
	return d, d.text, d.syn, nil
}

// connError wraps an error that reaches jsonrpc2's connection (a handler's
// or the stream's) as every such error is wrapped: the connection keeps
// its errors in one atomic.Value, which panics when a later error has
// another concrete type. nil stays nil.
func connError(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
