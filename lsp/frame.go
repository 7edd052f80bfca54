package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Framing limits. An editor sends a header of one or two short lines and a
// body holding at most a spec (a few kilobytes, at most 1 MiB on disk) as
// JSON text, escaped; anything past these is not an editor.
const (
	// MaxHeaderLine is the longest header line read; a longer one (a
	// stream without a newline) is skipped without being kept.
	MaxHeaderLine = 4 << 10
	// MaxHeaderLines is the most header lines of one frame.
	MaxHeaderLines = 32
	// MaxBody is the largest Content-Length taken; a frame that states
	// more is answered with an error and its body is not read into memory.
	MaxBody = 16 << 20
)

const headerContentLength = "Content-Length"

// frameStream is the server's jsonrpc2.Stream: the LSP base protocol
// (Content-Length headers, then a JSON body) read within the limits above.
// jsonrpc2's own stream ends the connection on any malformed frame and
// reads a header line or a body of any size into memory; this one answers
// a malformed frame with a JSON-RPC error (-32700 for what is not JSON,
// -32600 for JSON that is not a request) and reads on, so only the end of
// the input, or a failing pipe, ends the connection.
type frameStream struct {
	conn io.ReadWriteCloser
	in   *bufio.Reader
	// mu serialises writes: Read answers bad frames itself, while the
	// connection writes replies from other goroutines.
	mu sync.Mutex
}

func newFrameStream(conn io.ReadWriteCloser) *frameStream {
	return &frameStream{conn: conn, in: bufio.NewReaderSize(conn, 64<<10)}
}

var _ jsonrpc2.Stream = (*frameStream)(nil)

// frameError is a frame that is answered with an error rather than
// handed to the connection. id is the raw request id, when one was read.
type frameError struct {
	code jsonrpc2.Code
	msg  string
	id   json.RawMessage
}

// Read returns the next well-formed message. A malformed frame is answered
// on the stream and skipped; an error means the input ended or failed.
//
// Every error is wrapped, as jsonrpc2's own stream wraps them: the
// connection keeps its first error in an atomic.Value, which panics when a
// later error has another concrete type.
func (s *frameStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, connError("reading a frame", err)
		}
		msg, n, ferr, err := s.readFrame()
		if err != nil {
			return nil, n, connError("reading a frame", err)
		}
		if ferr == nil {
			return msg, n, nil
		}
		if err := s.writeError(ferr); err != nil {
			return nil, n, connError("answering a malformed frame", err)
		}
	}
}

// readFrame reads one frame: a message, or a frame error to answer, or an
// error of the input itself. A header it cannot take is answered at once,
// and reading starts again on the next line: what follows (the rest of a
// body whose length is unknown) is read as header lines, so the next
// frame's Content-Length is found and no well-formed frame after a bad one
// is lost.
func (s *frameStream) readFrame() (jsonrpc2.Message, int64, *frameError, error) {
	var total int64
	length := int64(-1)
	answer := func(format string, args ...any) (jsonrpc2.Message, int64, *frameError, error) {
		return nil, total, &frameError{code: jsonrpc2.ParseError, msg: fmt.Sprintf(format, args...)}, nil
	}
	for headers := 0; ; {
		line, n, long, err := s.readLine()
		total += n
		if err != nil {
			return nil, total, nil, err
		}
		if long {
			// The rest of a body not read (one past MaxBody, or longer
			// than its Content-Length said) ends on the line of the next
			// frame's header: read on from it, as below.
			i := strings.LastIndex(line, headerContentLength+":")
			if i < 0 {
				return answer("a header line is longer than %d bytes", MaxHeaderLine)
			}
			line = line[i:]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if headers == 0 {
				continue // blank lines between frames
			}
			break
		}
		if headers++; headers > MaxHeaderLines {
			return answer("a frame has more than %d header lines", MaxHeaderLines)
		}
		// After a body whose length was wrong, the next header follows
		// the rest of the body on its line: read on from it.
		if i := strings.Index(line, headerContentLength+":"); i > 0 {
			line = line[i:]
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return answer("header line %q has no colon", clip(line))
		}
		if !strings.EqualFold(strings.TrimSpace(name), headerContentLength) {
			continue // Content-Type and unknown headers are ignored
		}
		value = strings.TrimSpace(value)
		v, err := strconv.ParseInt(value, 10, 64)
		switch {
		case err != nil || v < 0:
			return answer("Content-Length %q is not a length", clip(value))
		case v > MaxBody:
			// Not read: what follows is scanned as header lines.
			return answer("Content-Length %d is larger than %d bytes", v, MaxBody)
		}
		length = v
	}
	if length < 0 {
		return answer("a frame has no Content-Length header")
	}
	data := make([]byte, length)
	n, err := io.ReadFull(s.in, data)
	total += int64(n)
	if err != nil {
		return nil, total, nil, err
	}
	msg, ferr := decodeBody(data)
	return msg, total, ferr, nil
}

// readLine reads up to a newline, keeping at most MaxHeaderLine bytes;
// long is true when the line was longer, and then line is its last
// MaxHeaderLine bytes (the rest was read and dropped): where a body that
// was not read runs into the next frame's header, the header is there.
func (s *frameStream) readLine() (line string, n int64, long bool, err error) {
	var b []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		n += int64(len(chunk))
		b = append(b, chunk...)
		if len(b) > MaxHeaderLine {
			long = true
			// Keep the tail only, in place: memory stays bounded
			// however long the line.
			b = b[:copy(b, b[len(b)-MaxHeaderLine:])]
		}
		switch {
		case err == nil:
			return string(b), n, long, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return "", n, long, err
		}
	}
}

// decodeBody checks a body as JSON-RPC 2.0 before jsonrpc2 decodes it:
// jsonrpc2 would take a missing or "1.0" version, read an id of null as 0,
// and its errors end the connection.
func decodeBody(data []byte) (jsonrpc2.Message, *frameError) {
	if !json.Valid(data) {
		return nil, &frameError{code: jsonrpc2.ParseError, msg: "the body is not JSON"}
	}
	switch t := bytes.TrimLeft(data, " \t\r\n"); {
	case len(t) > 0 && t[0] == '[':
		return nil, &frameError{code: jsonrpc2.InvalidRequest, msg: "batch requests are not supported: send one request per frame"}
	case len(t) == 0 || t[0] != '{':
		return nil, &frameError{code: jsonrpc2.InvalidRequest, msg: "the body is not a JSON object"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &frameError{code: jsonrpc2.InvalidRequest, msg: "the body is not a JSON object"}
	}
	rawID, hasID := m["id"]
	if hasID {
		if !validID(rawID) {
			return nil, &frameError{code: jsonrpc2.InvalidRequest, msg: "the id is not a string or a 32-bit integer"}
		}
	}
	bad := func(msg string) *frameError {
		fe := &frameError{code: jsonrpc2.InvalidRequest, msg: msg}
		if hasID {
			fe.id = rawID
		}
		return fe
	}
	var version string
	if err := json.Unmarshal(m["jsonrpc"], &version); err != nil || version != "2.0" {
		return nil, bad(`"jsonrpc" is not "2.0"`)
	}
	rawMethod, hasMethod := m["method"]
	if hasMethod {
		var method string
		if err := json.Unmarshal(rawMethod, &method); err != nil || method == "" {
			return nil, bad(`"method" is not a non-empty string`)
		}
		if p, ok := m["params"]; ok {
			// null is what jsonrpc2 sends for a request without params.
			if t := bytes.TrimLeft(p, " \t\r\n"); len(t) == 0 || (t[0] != '{' && t[0] != '[' && t[0] != 'n') {
				return nil, bad(`"params" is not an object, an array or null`)
			}
		}
	} else if !hasID {
		// A response needs only its id: jsonrpc2 itself sends a null
		// result by leaving "result" out.
		return nil, bad(`the message has neither "method" nor "id"`)
	}
	msg, err := jsonrpc2.DecodeMessage(data)
	if err != nil {
		return nil, bad(fmt.Sprintf("not a JSON-RPC message: %v", err))
	}
	return msg, nil
}

// validID reports whether raw is an id jsonrpc2 represents: a string or an
// integer that fits 32 bits. null is refused: it would be read as 0.
func validID(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil && bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) {
		return true
	}
	var n int32
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] != 'n' && !bytes.ContainsAny(t, ".eE") && json.Unmarshal(t, &n) == nil
}

// writeError answers a bad frame with a JSON-RPC error response.
func (s *frameStream) writeError(fe *frameError) error {
	id := fe.id
	if id == nil {
		id = json.RawMessage("null")
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc2.Error  `json:"error"`
	}{"2.0", id, jsonrpc2.Error{Code: fe.code, Message: "assay lsp: " + fe.msg}})
	if err != nil {
		return err
	}
	_, err = s.writeFrame(body)
	return err
}

// Write implements jsonrpc2.Stream.
func (s *frameStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("writing a frame: %w", err)
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	n, err := s.writeFrame(data)
	if err != nil {
		return n, fmt.Errorf("writing a frame: %w", err)
	}
	return n, nil
}

func (s *frameStream) writeFrame(data []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// One write per frame, so a frame is never split between writers.
	buf := make([]byte, 0, len(data)+32)
	buf = fmt.Appendf(buf, "%s: %d\r\n\r\n", headerContentLength, len(data))
	buf = append(buf, data...)
	n, err := s.conn.Write(buf)
	return int64(n), err
}

// Close implements jsonrpc2.Stream.
func (s *frameStream) Close() error { return s.conn.Close() }

// clip shortens text from the wire for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
