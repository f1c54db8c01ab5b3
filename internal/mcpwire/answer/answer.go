// Package answer encodes the JSON-RPC messages an mcp-go server answers
// with, byte for byte as json.Marshal encodes them, in one pass into a
// reused buffer.
//
// mcp-go encodes a tool call's answer three times over: CallToolResult's
// MarshalJSON puts the result's fields in a map and marshals it into a
// fresh slice; the marshal of the whole response then compacts those
// bytes once more into another fresh slice; and the stdio transport
// copies that into a formatted line. A result carrying a large text (the
// text and its structured form, each as large as the answer) then costs
// four allocations the size of the answer, and on a server whose index
// holds tens of megabytes every byte allocated brings the next collection
// nearer. Here the result's fields are written in the map's order (its
// keys sorted) straight into one buffer that is reused from answer to
// answer: each value is encoded once, by encoding/json itself, so the
// bytes stay what mcp-go would write (TestMatchesMarshal and FuzzMatches
// hold them to it).
package answer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// Encoded is JSON text as an encoding/json Encoder writes a value:
// compact and valid, its strings escaped as encoding/json escapes them,
// except that <, > and & may be left as they are (SetEscapeHTML(false)).
// As a result's structured content it encodes as a json.RawMessage does
// (json.Marshal compacts it with those three escaped), but here it is
// only escaped, not scanned and compacted again, which for a large answer
// was the most expensive step of its encoding. Only bytes that encoding/json
// wrote may be Encoded: anything else would be written as it is.
type Encoded []byte

// MarshalJSON returns e, as json.RawMessage's does.
func (e Encoded) MarshalJSON() ([]byte, error) {
	if e == nil {
		return []byte("null"), nil
	}
	return e, nil
}

// maxKept bounds the buffer a recycled encoder keeps, so one huge answer
// does not stay allocated.
const maxKept = 1 << 20

// encoder is a buffer with an encoder writing into it.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

// WriteLine writes msg as json.Marshal encodes it, followed by a line
// break, to w in one Write: one JSON-RPC message per line, as the stdio
// transport sends them.
func WriteLine(w io.Writer, msg any) error {
	e := encoders.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= maxKept {
			e.buf.Reset()
			encoders.Put(e)
		}
	}()
	if err := e.message(msg); err != nil {
		return err
	}
	e.buf.WriteByte('\n')
	_, err := w.Write(e.buf.Bytes())
	return err
}

// message encodes msg into e.buf: a response carrying a tool call's
// result field by field, anything else through encoding/json whole.
func (e *encoder) message(msg any) error {
	if resp, ok := msg.(mcp.JSONRPCResponse); ok {
		var r *mcp.CallToolResult
		switch v := resp.Result.(type) {
		case *mcp.CallToolResult:
			r = v
		case mcp.CallToolResult:
			r = &v
		}
		if r != nil {
			return e.response(resp, r)
		}
	}
	return e.value(msg)
}

// response encodes a response as mcp.JSONRPCResponse's fields are
// declared, its result as CallToolResult.MarshalJSON's map is marshalled:
// keys sorted, each present under the same condition.
func (e *encoder) response(resp mcp.JSONRPCResponse, r *mcp.CallToolResult) error {
	e.buf.WriteString(`{"jsonrpc":`)
	if err := e.value(resp.JSONRPC); err != nil {
		return err
	}
	e.buf.WriteString(`,"id":`)
	if err := e.value(resp.ID); err != nil {
		return err
	}
	e.buf.WriteString(`,"result":{`)
	if r.Meta != nil {
		e.buf.WriteString(`"_meta":`)
		if err := e.value(r.Meta); err != nil {
			return err
		}
		e.buf.WriteByte(',')
	}
	e.buf.WriteString(`"content":[`)
	for i, c := range r.Content {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		if err := e.value(c); err != nil {
			return err
		}
	}
	e.buf.WriteByte(']')
	if len(r.InputRequests) > 0 {
		e.buf.WriteString(`,"inputRequests":`)
		if err := e.value(r.InputRequests); err != nil {
			return err
		}
	}
	if r.IsError {
		e.buf.WriteString(`,"isError":true`)
	}
	if r.RequestState != "" {
		e.buf.WriteString(`,"requestState":`)
		if err := e.value(r.RequestState); err != nil {
			return err
		}
	}
	if r.ResultType != "" {
		e.buf.WriteString(`,"resultType":`)
		if err := e.value(r.ResultType); err != nil {
			return err
		}
	}
	switch {
	case len(r.RawStructuredContent) > 0:
		e.buf.WriteString(`,"structuredContent":`)
		if err := e.value(r.RawStructuredContent); err != nil {
			return err
		}
	case r.StructuredContent != nil:
		e.buf.WriteString(`,"structuredContent":`)
		if enc, ok := r.StructuredContent.(Encoded); ok && len(enc) > 0 {
			json.HTMLEscape(&e.buf, enc)
			break
		}
		if err := e.value(r.StructuredContent); err != nil {
			return err
		}
	}
	e.buf.WriteString("}}")
	return nil
}

// value appends v's encoding: encoding/json's own, with <, > and &
// escaped as json.Marshal escapes them, without the encoder's line break.
func (e *encoder) value(v any) error {
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	e.buf.Truncate(e.buf.Len() - 1)
	return nil
}
