package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

type procStream struct {
	io.ReadCloser
	io.WriteCloser
}

func (p procStream) Close() error {
	_ = p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

// TestLSPProcess runs `assay lsp` as an editor does, a subprocess spoken
// to over its standard input and output, and checks that a spec with an
// error gets its diagnostic and that the server exits cleanly.
func TestLSPProcess(t *testing.T) {
	t.Parallel()
	path, err := filepath.Abs(filepath.Join("..", "..", "specs", "lm2lm.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "assay", "lsp", "--stdio")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	diags := make(chan protocol.PublishDiagnosticsParams, 8)
	conn := jsonrpc2.NewConn(wrappedStream{jsonrpc2.NewStream(procStream{out, in})})
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodTextDocumentPublishDiagnostics {
			var p protocol.PublishDiagnosticsParams
			if err := json.Unmarshal(req.Params(), &p); err == nil {
				diags <- p
			}
		}
		if err := reply(ctx, nil, nil); err != nil {
			return fmt.Errorf("replying: %w", err)
		}
		return nil
	})
	var init protocol.InitializeResult
	if _, err := conn.Call(ctx, protocol.MethodInitialize, &protocol.InitializeParams{}, &init); err != nil {
		t.Fatal(err)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "assay" {
		t.Fatalf("initialize: %+v", init)
	}
	_ = conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{})
	u := protocol.DocumentURI(uri.File(path))
	text := strings.Replace(string(src), "clip(predicted_gain", "clip(predicted_gian", 1)
	wantLine := uint32(strings.Count(text[:strings.Index(text, "predicted_gian")], "\n"))
	_ = conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: "hcl", Version: 1, Text: text}})
	select {
	case p := <-diags:
		if p.URI != u || len(p.Diagnostics) == 0 || p.Diagnostics[0].Code != "E_FORMULA_NAME" || p.Diagnostics[0].Range.Start.Line != wantLine {
			t.Errorf("diagnostics: %+v", p)
		}
	case <-ctx.Done():
		t.Fatal("no diagnostics")
	}
	if _, err := conn.Call(ctx, protocol.MethodShutdown, nil, nil); err != nil {
		t.Fatal(err)
	}
	_ = conn.Notify(ctx, protocol.MethodExit, nil)
	if err := cmd.Wait(); err != nil {
		t.Errorf("assay lsp exited: %v", err)
	}
}

// TestLSPExitWithoutShutdown checks the protocol's rule: exit before
// shutdown ends the server with status 1.
func TestLSPExitWithoutShutdown(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "assay", "lsp")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc2.NewConn(wrappedStream{jsonrpc2.NewStream(procStream{out, in})})
	conn.Go(ctx, jsonrpc2.MethodNotFoundHandler)
	if _, err := conn.Call(ctx, protocol.MethodInitialize, &protocol.InitializeParams{}, nil); err != nil {
		t.Fatal(err)
	}
	_ = conn.Notify(ctx, protocol.MethodExit, nil)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit without shutdown: %v, want exit status 1", err)
	}
}

// wrappedStream wraps every read error of jsonrpc2's own stream alike (it
// returns a cancelled context's error bare and others wrapped), so the
// connection never keeps two errors of different types: its atomic.Value
// panics then, and the panic would end the whole test binary.
type wrappedStream struct{ jsonrpc2.Stream }

func (s wrappedStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	m, n, err := s.Stream.Read(ctx)
	if err != nil {
		return m, n, fmt.Errorf("reading: %w", err)
	}
	return m, n, nil
}
