package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/mcpwire/answer"
	"vaultmcp/vault"
)

// handle adapts a typed handler: arguments are bound into A (the schema
// was already validated by the server), a returned error becomes an
// isError result with a JSON {"error": …} text, and a panic becomes an
// error result instead of killing the session.
func handle[A any](d Deps, fn func(ctx context.Context, args A) (*mcp.CallToolResult, error)) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				d.logger().Error("tool panicked", "tool", req.Params.Name, "panic", p, "stack", string(debug.Stack()))
				res, err = errorResult(ctx, d, fmt.Errorf("internal error in %s; the server logged the details", req.Params.Name)), nil
			}
		}()
		var args A
		if err := req.BindArguments(&args); err != nil {
			return errorResult(ctx, d, bindError(req.Params.Name, err)), nil
		}
		res, err = fn(ctx, args)
		if err != nil {
			return errorResult(ctx, d, err), nil
		}
		return res, nil
	}
}

// bindError words a failure to bind arguments that the schema check let
// through, as that check words its refusals. What it lets through and a
// Go field cannot hold is a whole number too large for an int (1e20),
// which would otherwise be answered with encoding/json's message, naming
// the Go struct.
func bindError(tool string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" && strings.HasPrefix(te.Value, "number ") {
		name := te.Field[strings.LastIndexByte(te.Field, '.')+1:]
		return fmt.Errorf("invalid arguments for %s: argument %q: %s is out of range", tool, name, te.Value)
	}
	return fmt.Errorf("invalid arguments for %s: %v", tool, err)
}

// toolError is an error result carrying extra JSON fields beside "error"
// (e.g. available_count). err, when set, is the cause, so a not-found
// cause still gets its suggestions.
type toolError struct {
	msg    string
	fields map[string]any
	err    error
}

func (e *toolError) Error() string { return e.msg }

func (e *toolError) Unwrap() error { return e.err }

// errorResult renders err as the documented {"error": "..."} with isError set.
// Unexpected errors are logged, and the vault's absolute root is scrubbed
// from any message so no client learns the server's layout.
func errorResult(ctx context.Context, d Deps, err error) *mcp.CallToolResult {
	body := map[string]any{}
	var te *toolError
	var ve *vault.Error
	switch ce, conflict := conflictError(err); {
	case conflict:
		for k, v := range d.conflictFields(ctx, ce) {
			body[k] = v
		}
	case errors.As(err, &te):
		for k, v := range te.fields {
			body[k] = v
		}
	case errors.As(err, &ve):
	default:
		d.logger().Warn("tool failed", "err", err)
	}
	msg := err.Error()
	if errors.As(err, &ve) && errors.Is(ve.Kind, vault.ErrNotFound) && ve.Path != "" {
		msg += didYouMean(d.suggest(ctx, ve.Path))
	}
	if d.Vault != nil {
		root := d.Vault.Root()
		msg = strings.ReplaceAll(msg, root+"/", "")
		msg = strings.ReplaceAll(msg, root, "<vault>")
	}
	body["error"] = msg
	text, _ := json.Marshal(body)
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(string(text))},
		IsError: true,
	}
}

// textResult is a plain-text tool result.
func textResult(text string) *mcp.CallToolResult {
	return mcp.NewToolResultText(text)
}

// jsonResult returns v both as structuredContent and as its JSON text, as
// tools with an outputSchema must. Both come from one marshal and share
// its bytes: the structured content is the encoded text (answer.Encoded),
// which the transport copies as it is instead of encoding v a second
// time or compacting it again.
func jsonResult(v any) (*mcp.CallToolResult, error) {
	text, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultStructured(rawJSON(text), text), nil
}

// structuredResult returns v as structuredContent (encoded once, as in
// jsonResult) beside a text written for a reader.
func structuredResult(v any, text string) (*mcp.CallToolResult, error) {
	raw, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultStructured(rawJSON(raw), text), nil
}

// encoders recycles the buffers answers are encoded in. An answer is
// then allocated once, at its final size, rather than once per doubling
// of a fresh buffer: on a large index every byte allocated brings the
// next collection (which marks the whole index) nearer.
var encoders = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptEncoder bounds the buffer a recycled encoder keeps, so one huge
// answer does not stay allocated.
const maxKeptEncoder = 1 << 20

// encodeJSON encodes v without escaping <, > and &: the text is read by
// a model, not embedded in HTML, and Markdown links hold all three.
func encodeJSON(v any) (string, error) {
	b := encoders.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxKeptEncoder {
			b.Reset()
			encoders.Put(b)
		}
	}()
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode result: %w", err)
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// rawJSON is JSON text encodeJSON wrote, as answer.Encoded sharing the
// string's bytes. No one writes to a result's structured content (the ceiling
// measures it, the transport copies it out), so the bytes stay as
// immutable as the string they belong to.
func rawJSON(text string) answer.Encoded {
	return answer.Encoded(unsafe.Slice(unsafe.StringData(text), len(text)))
}

// annotate sets all four behaviour hints on purpose: mcp-go's defaults
// (destructive, open-world) are wrong for most of our tools.
func annotate(title string, readOnly, destructive, idempotent bool) mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(readOnly),
		DestructiveHint: mcp.ToBoolPtr(destructive),
		IdempotentHint:  mcp.ToBoolPtr(idempotent),
		// The vault is a closed world: no tool reaches outside it. (Pushes
		// to the vault's own remote are the vault's replication.)
		OpenWorldHint: mcp.ToBoolPtr(false),
	})
}

// commitNote renders the commit part of a write confirmation.
func commitNote(commit string) string {
	if commit == "" {
		return ""
	}
	return ", commit " + commit
}
