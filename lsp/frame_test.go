package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawFrame wraps a body in the base protocol's header.
func rawFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// malformedFrames are what a broken or hostile client may send; each must
// be answered with an error, and none may end the connection.
var malformedFrames = []struct{ name, raw string }{
	{"invalid JSON", rawFrame(`{"jsonrpc":"2.0","id":1,`)},
	{"jsonrpc 1.0", rawFrame(`{"jsonrpc":"1.0","id":1,"method":"initialize","params":{}}`)},
	{"no jsonrpc", rawFrame(`{"id":2,"method":"initialize","params":{}}`)},
	{"batch array", rawFrame(`[{"jsonrpc":"2.0","id":3,"method":"shutdown"}]`)},
	{"object id", rawFrame(`{"jsonrpc":"2.0","id":{"a":1},"method":"initialize","params":{}}`)},
	{"null id", rawFrame(`{"jsonrpc":"2.0","id":null,"method":"initialize","params":{}}`)},
	{"fractional id", rawFrame(`{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{}}`)},
	{"id past 32 bits", rawFrame(`{"jsonrpc":"2.0","id":99999999999,"method":"initialize","params":{}}`)},
	{"number method", rawFrame(`{"jsonrpc":"2.0","id":4,"method":5}`)},
	{"string params", rawFrame(`{"jsonrpc":"2.0","id":5,"method":"initialize","params":"x"}`)},
	{"neither method nor id", rawFrame(`{"jsonrpc":"2.0","result":6}`)},
	{"a string body", rawFrame(`"hello"`)},
	{"Content-Length not a number", "Content-Length: abc\r\n\r\n" + `{"jsonrpc":"2.0","method":"initialized","params":{}}`},
	{"negative Content-Length", "Content-Length: -5\r\n\r\n"},
	{"Content-Length zero", "Content-Length: 0\r\n\r\n"},
	{"huge Content-Length", "Content-Length: 99999999999\r\n\r\n" + `{"jsonrpc":"2.0","method":"initialized","params":{}}`},
	{"no Content-Length", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"},
	{"header without colon", "Content-Length 12\r\n\r\n"},
	{"Content-Length short of the body", "Content-Length: 10\r\n\r\n" + `{"jsonrpc":"2.0","method":"initialized","params":{}}`},
	{"header line without end", strings.Repeat("x", 3*MaxHeaderLine) + "\r\n\r\n"},
	{"garbage line before a header", "{}\r\n"},
	{"too many headers", strings.Repeat("X-Pad: 1\r\n", MaxHeaderLines+1) + rawFrame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)},
}

// rawClient speaks the base protocol over pipes to a server, by hand.
type rawClient struct {
	w    io.Writer
	in   *bufio.Reader
	done chan error
}

func startRaw(t *testing.T) *rawClient {
	t.Helper()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	c := &rawClient{w: cw, in: bufio.NewReader(cr), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.done <- Serve(ctx, pipe{sr, sw}, Options{}) }()
	t.Cleanup(func() { cancel(); cw.Close(); cr.Close() })
	return c
}

// response is what the test reads back.
type response struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Result json.RawMessage `json:"result"`
	Method string          `json:"method"`
}

func (c *rawClient) read(t *testing.T) response {
	t.Helper()
	length := -1
	for {
		line, err := c.in.ReadString('\n')
		if err != nil {
			t.Fatalf("reading a header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(c.in, body); err != nil {
		t.Fatal(err)
	}
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("the server sent %q: %v", body, err)
	}
	return r
}

// Every malformed frame is answered with -32700 or -32600, and the valid
// request sent right after each is still answered: no frame ends the
// connection, and none takes the next frame with it.
func TestMalformedFrames(t *testing.T) {
	c := startRaw(t)
	errs := map[int]int{}
	echoed := false
	for i, f := range malformedFrames {
		id := 1000 + i
		go io.WriteString(c.w, f.raw+rawFrame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"capabilities":{}}}`, id)))
		answered := 0
		for {
			select {
			case err := <-c.done:
				t.Fatalf("%s: the server ended: %v", f.name, err)
			default:
			}
			r := c.read(t)
			if r.Method != "" {
				continue // a notification from the server
			}
			if string(r.ID) == strconv.Itoa(id) {
				if r.Error != nil || len(r.Result) == 0 {
					t.Fatalf("%s: the valid request after it got %+v", f.name, r)
				}
				break
			}
			if r.Error == nil {
				t.Fatalf("%s: got a result: %+v", f.name, r)
			}
			if r.Error.Code != -32700 && r.Error.Code != -32600 {
				t.Errorf("%s: error code %d (%s), want -32700 or -32600", f.name, r.Error.Code, r.Error.Message)
			}
			if f.name == "jsonrpc 1.0" && string(r.ID) == "1" {
				echoed = true
			}
			errs[r.Error.Code]++
			answered++
		}
		if answered == 0 {
			t.Errorf("%s: not answered with an error", f.name)
		}
	}
	if errs[-32700] == 0 || errs[-32600] == 0 {
		t.Errorf("want both -32700 and -32600 among the answers, got %v", errs)
	}
	if !echoed {
		t.Error("the jsonrpc 1.0 request's error does not carry its id 1")
	}
	// The connection still works to its orderly end.
	go io.WriteString(c.w, rawFrame(`{"jsonrpc":"2.0","id":100,"method":"shutdown"}`)+rawFrame(`{"jsonrpc":"2.0","method":"exit"}`))
	if r := c.read(t); string(r.ID) != "100" || r.Error != nil {
		t.Fatalf("shutdown: %+v", r)
	}
	select {
	case err := <-c.done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit")
	}
}

// An honest frame past MaxBody (an editor's didOpen of a huge buffer: one
// line of JSON, as editors send it) is refused with an error, its body is
// not kept, and the request that follows it on the same line is answered.
func TestOversizedFrameThenRequest(t *testing.T) {
	c := startRaw(t)
	body := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"` + strings.Repeat("x", MaxBody) + `"}}`
	go io.WriteString(c.w, rawFrame(body)+rawFrame(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"capabilities":{}}}`))
	refused := false
	for {
		r := c.read(t)
		if r.Method != "" {
			continue
		}
		if string(r.ID) == "7" {
			if r.Error != nil || len(r.Result) == 0 {
				t.Fatalf("the request after the oversized frame got %+v", r)
			}
			break
		}
		if r.Error == nil || !strings.Contains(r.Error.Message, "larger than") {
			t.Fatalf("got %+v, want the oversized frame refused", r)
		}
		refused = true
	}
	if !refused {
		t.Error("the oversized frame was not answered with an error")
	}
}

// endless yields n bytes of 'x' without a newline, without holding them.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), e.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return k, nil
}

type readOnly struct{ io.Reader }

func (readOnly) Write(p []byte) (int, error) { return len(p), nil }
func (readOnly) Close() error                { return nil }

// A stream with no newline is read in constant memory: the header line is
// dropped past MaxHeaderLine, not kept.
func TestFrameLineBounded(t *testing.T) {
	const size = 64 << 20
	s := newFrameStream(readOnly{io.MultiReader(&endless{n: size}, strings.NewReader("\r\n\r\n"+rawFrame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)))})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg, _, err := s.Read(context.Background())
	runtime.ReadMemStats(&after)
	if err != nil || msg == nil {
		t.Fatalf("Read after the long line: %v, %v", msg, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > size/8 {
		t.Errorf("reading a %d-byte line allocated %d bytes", size, grew)
	}
}

// FuzzLSPFrames feeds any bytes to the framing: it never panics, and each
// Read either returns a message or ends with the input.
func FuzzLSPFrames(f *testing.F) {
	for _, m := range malformedFrames {
		f.Add([]byte(m.raw))
	}
	f.Add([]byte(rawFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)))
	f.Add([]byte(rawFrame(`{"jsonrpc":"2.0","id":"a","result":null}`) + rawFrame(`{"jsonrpc":"2.0","method":"exit"}`)))
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		s := newFrameStream(struct {
			io.Reader
			io.Writer
			io.Closer
		}{bytes.NewReader(b), &out, io.NopCloser(nil)})
		for i := 0; ; i++ {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				break
			}
			if msg == nil {
				t.Fatal("Read returned no message and no error")
			}
			if i > len(b) {
				t.Fatal("more messages than input bytes")
			}
		}
	})
}

// A client that goes away while a reply is being written ends the
// connection quietly: the failed write and the end of the input are two
// errors of the connection, and neither may panic it.
func TestClientGoneMidReply(t *testing.T) {
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), pipe{sr, sw}, Options{}) }()
	io.WriteString(cw, rawFrame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`))
	cr.Close()
	cw.Close()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not end")
	}
}
