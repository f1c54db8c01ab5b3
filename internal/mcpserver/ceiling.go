package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/mcpwire/answer"
)

// resultCeiling returns tool-handler middleware that holds every tool's
// answer to limit bytes: the last guard behind each tool's own paging,
// for every tool, including ones added later that forget to page.
//
// An answer's size is the larger of its content and its structured
// content, since a client hands one of them to the model. Structured
// content not yet encoded is encoded here, once, and kept as its bytes,
// so the transport does not encode it again.
//
// An oversized answer made only of text is cut at a line end with a
// notice; any other oversized answer (structured, or with images or
// resources) becomes an error saying how to ask for less, since cutting
// it would break its shape.
func resultCeiling(limit int) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := next(ctx, req)
			if err != nil || res == nil {
				return res, err
			}
			return fit(req, res, limit), nil
		}
	}
}

func fit(req mcp.CallToolRequest, res *mcp.CallToolResult, limit int) *mcp.CallToolResult {
	structured := 0
	switch v := res.StructuredContent.(type) {
	case nil:
	case answer.Encoded:
		structured = len(v)
	case json.RawMessage:
		structured = len(v)
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return errorText(fmt.Sprintf("%s: could not encode its answer: %v", req.Params.Name, err))
		}
		res.StructuredContent = answer.Encoded(raw)
		structured = len(raw)
	}
	size := max(structured, contentBytes(res.Content))
	if size <= limit {
		return res
	}
	if text, ok := onlyText(res); ok {
		res.Content = []mcp.Content{mcp.NewTextContent(cutText(text, limit))}
		return res
	}
	msg := fmt.Sprintf("the answer of %s (%s) is larger than the server's limit of %s (limits.max_result_bytes); ask for less",
		req.Params.Name, sizeText(size), sizeText(limit))
	if n, ok := argInt(req, "limit"); ok && n > 1 {
		msg += fmt.Sprintf(": a limit of about %d fits, and offset pages through the rest", max(1, n*limit/size*9/10))
	} else {
		msg += " with limit and offset or a narrower query"
	}
	return errorText(msg)
}

// contentBytes is the size of the content blocks' payloads.
func contentBytes(content []mcp.Content) int {
	n := 0
	for _, c := range content {
		switch c := c.(type) {
		case mcp.TextContent:
			n += len(c.Text)
		case mcp.ImageContent:
			n += len(c.Data)
		case mcp.AudioContent:
			n += len(c.Data)
		case mcp.EmbeddedResource:
			switch r := c.Resource.(type) {
			case mcp.TextResourceContents:
				n += len(r.Text)
			case mcp.BlobResourceContents:
				n += len(r.Blob)
			}
		default:
			if raw, err := json.Marshal(c); err == nil {
				n += len(raw)
			}
		}
	}
	return n
}

// onlyText returns the text of a result that is one text block and
// nothing else.
func onlyText(res *mcp.CallToolResult) (string, bool) {
	if res.StructuredContent != nil || len(res.Content) != 1 {
		return "", false
	}
	t, ok := res.Content[0].(mcp.TextContent)
	return t.Text, ok
}

// cutText shortens text to at most limit bytes, notice included, at the
// last line end that keeps most of it (else at a rune boundary).
func cutText(text string, limit int) string {
	notice := fmt.Sprintf("\n[... the answer was cut at %s (the server's limits.max_result_bytes); ask for less: a smaller limit, an offset, or a narrower path or query ...]",
		sizeText(limit))
	keep := max(0, limit-len(notice))
	cut := text[:keep]
	for len(cut) > 0 && !utf8.RuneStart(text[len(cut)]) {
		cut = cut[:len(cut)-1]
	}
	for i := len(cut) - 1; i >= 0 && i >= len(cut)-4096; i-- {
		if cut[i] == '\n' {
			cut = cut[:i]
			break
		}
	}
	return cut + notice
}

func argInt(req mcp.CallToolRequest, name string) (int, bool) {
	args, ok := req.Params.Arguments.(map[string]any)
	if !ok {
		return 0, false
	}
	switch v := args[name].(type) {
	case float64:
		return int(v), true
	case int:
		return v, true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil
	}
	return 0, false
}

func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// errorText is an error result in the tools' {"error": …} form.
func errorText(msg string) *mcp.CallToolResult {
	text, _ := json.Marshal(map[string]string{"error": msg})
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(string(text))},
		IsError: true,
	}
}
