package mcpwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	// DefaultMaxMessageBytes caps one message: room for a 10 MB note
	// escaped in JSON is not needed, since writes are capped at 10 MB of
	// content too.
	DefaultMaxMessageBytes = 10 << 20
	// DefaultDrainTimeout bounds how long the requests already received
	// may run once the input has ended.
	DefaultDrainTimeout = 30 * time.Second
)

// StdioOptions configure ServeStdio. The zero value uses the defaults.
type StdioOptions struct {
	// MaxMessageBytes caps one message (one line, without its newline);
	// 0 means DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// DrainTimeout bounds the wait for requests in progress at the end;
	// 0 means DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Logger receives the transport's own messages and mcp-go's; nil
	// means slog.Default().
	Logger *slog.Logger
	// Answered, when not nil, is called with a request's method once its
	// answer has been written out (not under any lock of the transport;
	// it should return quickly). The server uses it to start its
	// background work once a client has its first answers.
	Answered func(method string)
	// ListTools, when not nil, returns the encoded result of tools/list
	// for the session's scope (the values of Serve's ctx): a plain
	// tools/list (no parameters: no cursor, no _meta) is then answered
	// with those bytes instead of through mcp-go, which encodes its whole
	// list again at every request. On an error mcp-go answers instead.
	ListTools func(ctx context.Context) (json.RawMessage, error)
	// ModernListTools, when not nil beside ListTools, returns the encoded
	// result of tools/list in the envelope of protocol 2026-07-28 and
	// later (resultType, the server's identity, caching hints) for the
	// session's scope: a tools/list whose only parameter is a _meta
	// declaring such a protocol version (mcp-go's client sends one with
	// every request) is then answered with those bytes, when that _meta
	// is byte for byte the one of the last request handed to mcp-go.
	// mcp-go records a newer request's _meta (the client's identity and
	// capabilities) on the session; an unchanged one would mostly record
	// nothing new, and a changed one is left to mcp-go to record. This is
	// not a promise that the session holds that _meta: mcp-go serves
	// requests concurrently, so two forwarded requests with different
	// _meta may be recorded in either order, and a request a hook refused
	// recorded nothing. The tool list does not depend on what is recorded,
	// only on the session's access scope. On an error mcp-go answers
	// instead.
	ModernListTools func(ctx context.Context) (json.RawMessage, error)
	// AnswerToolCalls serves tools/call requests beside mcp-go's stdio
	// server (in its session, as many at once as its workers) and writes
	// their answers encoded once (package answer), byte for byte what
	// mcp-go would write.
	AnswerToolCalls bool
}

// ServeStdio serves s over a pair of byte streams, in and out (stdin and
// stdout), one JSON-RPC message per line, until the input ends or ctx is
// done, then answers the requests already received (bounded by
// DrainTimeout) and returns. The requests' contexts are not ctx's: ending
// ctx stops the reading, not the work. A read error other than EOF is
// returned.
//
// It wraps mcp-go's stdio server, which keeps the protocol (the session,
// notifications, requests served concurrently), and guards its input:
//
//   - A line is read only up to MaxMessageBytes. A longer one is discarded
//     as it streams in (never buffered whole) and answered with a JSON-RPC
//     error (-32600) carrying the request's id when it can be found at the
//     line's start or end; the session goes on.
//   - When the input ends (the client closed stdin) or ctx is done (a
//     signal), no more lines are read, and every request already received
//     is answered before mcp-go's server sees the end of its input: it
//     cancels every request the moment its input ends, which undid a
//     write that arrived just before EOF. Requests still running after
//     DrainTimeout are cancelled.
//   - A plain tools/list (no parameters) is answered from bytes the server
//     encoded once (StdioOptions.ListTools), not through mcp-go, which
//     encodes its whole tool list again at every request. They are encoded
//     once the session's first request (initialize or server/discover) is
//     answered. So is the tools/list of the newer protocol (2026-07-28),
//     which carries only a _meta, in that protocol's envelope
//     (StdioOptions.ModernListTools).
//   - With StdioOptions.AnswerToolCalls, a tools/call is served here,
//     through mcp-go's HandleMessage in the session mcp-go registered, and
//     its answer encoded once into a reused buffer (package answer) rather
//     than three times over by mcp-go; the bytes are the same.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, opts StdioOptions) error {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = DefaultDrainTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	log := opts.Logger

	answered := opts.Answered
	if opts.ListTools != nil {
		// The tools/list answer is encoded once the session's first
		// answer is out: not beside it, where on 2 cores it took CPU from
		// that answer, and still ahead of the tools/list a client sends
		// once it has read it.
		answered = func(method string) {
			if opensSession(method) {
				list := opts.ListTools
				if method == string(mcp.MethodServerDiscover) && opts.ModernListTools != nil {
					// The newer protocol's client asks in it, and
					// that answer is encoded on its own.
					list = opts.ModernListTools
				}
				go func() { _, _ = list(ctx) }()
			}
			if opts.Answered != nil {
				opts.Answered(method)
			}
		}
	}
	o := &output{w: out, pending: newPending(), answered: answered}
	pr, pw := io.Pipe()
	defer pr.Close()
	calls := newCaller(s, o, log)
	defer calls.wait() // deferred before cancelRequests, so run after it
	listenCtx, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	std := server.NewStdioServer(s)
	std.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelWarn))
	std.SetContextFunc(calls.contextFunc)
	listened := make(chan error, 1)
	go func() {
		err := std.Listen(listenCtx, pr, o)
		pr.CloseWithError(io.ErrClosedPipe) // a forward must not wait on a reader that is gone
		listened <- err
	}()

	type read struct {
		line []byte
		over *oversized
		err  error
		next chan struct{} // closed when the line's bytes may be reused
	}
	lines := make(chan read)
	lr := newLineReader(in, opts.MaxMessageBytes)
	go func() {
		for {
			line, over, err := lr.next()
			next := make(chan struct{})
			select {
			case lines <- read{line, over, err, next}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			select {
			case <-next:
			case <-ctx.Done():
				return
			}
		}
	}()

	// lastMeta is the _meta of the last request handed to mcp-go: the one
	// mcp-go has recorded on the session, or is about to.
	var lastMeta []byte
	var inputErr error
reading:
	for {
		select {
		case <-ctx.Done():
			log.Info("stopping: answering the requests already received", "in_progress", o.pending.count())
			break reading
		case err := <-listened:
			return err
		case r := <-lines:
			switch {
			case r.over != nil:
				log.Warn("message over the size limit refused", "bytes", r.over.size, "limit_bytes", opts.MaxMessageBytes)
				if err := o.writeError(r.over.id(), r.over.size, opts.MaxMessageBytes); err != nil {
					log.Warn("cannot write to the client", "err", err)
				}
			case len(r.line) > 0:
				key, method, meta, ok := expectsResponse(r.line)
				if ok {
					o.pending.add(key, method)
				}
				if ok && method == string(mcp.MethodToolsList) && opts.ListTools != nil {
					modern := opts.ModernListTools
					if modern != nil && !bytes.Equal(meta, lastMeta) {
						modern = nil
					}
					if resp, ok := toolsListAnswer(ctx, r.line, opts.ListTools, modern); ok {
						// Written as mcp-go writes its answers, aside
						// from the reading: a client slow to read its
						// output does not stop the input.
						go func() {
							if _, err := o.Write(resp); err != nil {
								log.Warn("cannot write to the client", "err", err)
							}
						}()
						break // the switch: the line is dealt with
					}
				}
				if ok {
					lastMeta = append(lastMeta[:0], meta...)
				}
				if ok && method == string(mcp.MethodToolsCall) && opts.AnswerToolCalls {
					calls.call(listenCtx, bytes.Clone(r.line))
					break
				}
				if _, err := pw.Write(r.line); err == nil {
					_, _ = pw.Write(newline)
				}
			}
			close(r.next)
			if r.err != nil {
				if !errors.Is(r.err, io.EOF) {
					inputErr = r.err
					log.Warn("reading the client's messages failed", "err", r.err)
				}
				break reading
			}
		}
	}

	timer := time.NewTimer(opts.DrainTimeout)
	defer timer.Stop()
	select {
	case <-o.pending.idle():
	case <-timer.C:
		log.Warn("requests still running at shutdown are cancelled", "count", o.pending.count(), "waited", opts.DrainTimeout)
		cancelRequests()
	case err := <-listened:
		return errors.Join(inputErr, err)
	}
	pw.Close()
	err := <-listened
	calls.wait()
	if errors.Is(err, context.Canceled) {
		err = nil // the drain timed out and cancelled the rest: said above
	}
	return errors.Join(inputErr, err)
}

var newline = []byte{'\n'}

// opensSession reports whether method is a client's first request:
// initialize, or server/discover, the newer protocol's initialize (which
// mcp-go's client sends instead).
func opensSession(method string) bool {
	return method == string(mcp.MethodInitialize) || method == string(mcp.MethodServerDiscover)
}

// toolsListAnswer is the answer to a tools/list request from its encoded
// result, as mcp-go would answer it: the id echoed as mcp-go decodes and
// encodes it. A plain request (no parameters, or an empty object) is
// answered with plain's result; one whose only parameter is a _meta that
// mcp-go takes for protocol 2026-07-28 or later, and accepts, with
// modern's when modern is not nil. It reports false, leaving the request
// to mcp-go, for any other tools/list (a cursor, an older protocol's
// _meta, a malformed message) and when the encoding fails.
func toolsListAnswer(ctx context.Context, line []byte, plain, modern func(context.Context) (json.RawMessage, error)) ([]byte, bool) {
	var m struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      any                        `json:"id"`
		Params  map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.JSONRPC != mcp.JSONRPC_VERSION {
		return nil, false
	}
	list := plain
	if len(m.Params) > 0 {
		meta, ok := m.Params["_meta"]
		if modern == nil || len(m.Params) > 1 || !ok || !modernMeta(meta) {
			return nil, false
		}
		list = modern
	}
	id, err := json.Marshal(mcp.NewRequestId(m.ID))
	if err != nil {
		return nil, false
	}
	result, err := list(ctx)
	if err != nil {
		return nil, false
	}
	resp := make([]byte, 0, len(result)+len(id)+40)
	resp = append(resp, `{"jsonrpc":"2.0","id":`...)
	resp = append(resp, id...)
	resp = append(resp, `,"result":`...)
	resp = append(resp, result...)
	resp = append(resp, "}\n"...)
	return resp, true
}

// modernMeta reports whether mcp-go serves a request with this _meta in
// protocol 2026-07-28 or later and accepts it: a protocol version of that
// era it supports, and the client's capabilities (mcp-go refuses such a
// request without them). It reads the _meta with mcp-go's own accessors.
func modernMeta(raw json.RawMessage) bool {
	var meta *mcp.Meta
	if json.Unmarshal(raw, &meta) != nil {
		return false
	}
	v := meta.ProtocolVersion()
	return mcp.IsModernProtocol(v) && mcp.IsValidProtocolVersion(v) && meta.ClientCapabilities() != nil
}

// expectsResponse reports whether a message is a request mcp-go will
// answer, with the key of its id, its method and its params' _meta (nil
// when it has none): it has an id that is not null and no result (a
// message with a result is a client's answer to the server).
func expectsResponse(line []byte) (key, method string, meta json.RawMessage, ok bool) {
	type message struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
	}
	var m struct {
		message
		Params struct {
			Meta json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	// One pass reads the _meta too (a tools/call's params can be
	// megabytes); params that are not an object are read again without it.
	if err := json.Unmarshal(line, &m); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return "", "", nil, false // mcp-go answers a parse error with a null id
		}
		m.Params.Meta = nil
		if json.Unmarshal(line, &m.message) != nil {
			return "", "", nil, false
		}
	}
	if len(m.ID) == 0 || string(m.ID) == "null" || (len(m.Result) > 0 && string(m.Result) != "null") {
		return "", "", nil, false
	}
	key, ok = idKey(m.ID)
	return key, m.Method, m.Params.Meta, ok
}

// idKey canonicalises a JSON-RPC id the way mcp-go echoes it: a string as
// itself, a number by its value (1, 1.0 and 1e0 are one id).
func idKey(raw json.RawMessage) (string, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", false
	}
	switch v := v.(type) {
	case string:
		return "s:" + v, true
	case float64:
		return fmt.Sprintf("n:%g", v), true
	}
	return "", false
}

// errorResponse is a JSON-RPC error answer.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (o *output) writeError(id json.RawMessage, size, limit int64) error {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := errorResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: id}
	resp.Error.Code = mcp.INVALID_REQUEST
	resp.Error.Message = fmt.Sprintf("message of %s is larger than the server's limit of %s per message (limits.max_message_bytes); it was not read. "+
		"Send less per call, e.g. write a large note in parts with edit_file", humanBytes(size), humanBytes(limit))
	data, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	_, err = o.Write(append(data, '\n'))
	return err
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
