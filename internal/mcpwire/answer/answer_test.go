package answer

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// marshalled is what mcp-go's stdio transport writes for msg.
func marshalled(t testing.TB, msg any) []byte {
	t.Helper()
	want, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return append(want, '\n')
}

func written(t testing.TB, msg any) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteLine(&b, msg); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestMatchesMarshal(t *testing.T) {
	structured := `{"a":"<b> & c","list":[1,2,{"x":null}],"u":"\u2028 é 雪"}`
	text := mcp.NewTextContent("<html> & \"quotes\" \\ \n\t\u2028\u2029 \x01 é 雪 \xff")
	tests := []struct {
		name string
		msg  any
	}{
		{"text", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(7)), mcp.NewToolResultText("hello"))},
		{"text, string id", mcp.NewJSONRPCResultResponse(mcp.NewRequestId("abc<>"), mcp.NewToolResultText("hello"))},
		{"float id", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(1.5), mcp.NewToolResultText("hello"))},
		{"result by value", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), *mcp.NewToolResultText("by value"))},
		{"escapes", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), &mcp.CallToolResult{Content: []mcp.Content{text}})},
		{"no content", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), &mcp.CallToolResult{})},
		{"structured raw in any", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)),
			mcp.NewToolResultStructured(json.RawMessage(structured), structured))},
		{"structured not compact", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)),
			mcp.NewToolResultStructured(json.RawMessage("{ \"a\" :\n [ 1 , 2 ] }"), "x"))},
		{"structured map", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)),
			mcp.NewToolResultStructured(map[string]any{"z": 1, "a": "<&>"}, "x"))},
		{"encoded structured", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)),
			mcp.NewToolResultStructured(encoded(t, map[string]any{"s": "<a> & \u2028 \"q\" \xff é", "n": []int{1, 2}}), "x"))},
		{"encoded empty object", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)), mcp.NewToolResultStructured(Encoded("{}"), "{}"))},
		{"raw structured", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)),
			&mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("t")}, RawStructuredContent: json.RawMessage(structured)})},
		{"error", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(3)), &mcp.CallToolResult{
			Content: []mcp.Content{mcp.NewTextContent(`{"error":"no such note"}`)}, IsError: true})},
		{"every field", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(4)), &mcp.CallToolResult{
			Result:               mcp.Result{Meta: mcp.NewMetaFromMap(map[string]any{"k": "v", "progressToken": 3}), ResultType: "complete"},
			MultiRoundTripResult: mcp.MultiRoundTripResult{RequestState: "state<1>"},
			Content: []mcp.Content{
				mcp.NewTextContent("one"),
				mcp.TextContent{Annotated: mcp.Annotated{Annotations: &mcp.Annotations{Priority: ptr(0.5)}}, Type: "text", Text: "two"},
				mcp.NewImageContent("aGVsbG8=", "image/png"),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///a.md", MIMEType: "text/markdown", Text: "# a"}),
			},
			StructuredContent: map[string]any{"n": 1},
			IsError:           true,
		})},
		{"other result", mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(5)), mcp.ListToolsResult{Tools: []mcp.Tool{mcp.NewTool("t")}})},
		{"error response", mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(6)),
			Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, "internal panic: <x>", nil)}},
		{"notification", mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: "notifications/message"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := marshalled(t, tt.msg)
			if got := written(t, tt.msg); !bytes.Equal(got, want) {
				t.Errorf("WriteLine:\n got %s\nwant %s", got, want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

// encoded is v as the tools encode their results: without escaping <, >
// and &.
func encoded(t testing.TB, v any) Encoded {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return Encoded(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// A result mcp-go cannot encode is an error here too, and nothing is
// written.
func TestInvalidStructuredContent(t *testing.T) {
	msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), mcp.NewToolResultStructured(json.RawMessage(`{"a":`), "x"))
	empty := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), mcp.NewToolResultStructured(Encoded{}, "x"))
	for _, msg := range []any{msg, empty} {
		if _, err := json.Marshal(msg); err == nil {
			t.Fatal("json.Marshal took invalid JSON")
		}
		var b bytes.Buffer
		if err := WriteLine(&b, msg); err == nil || b.Len() > 0 {
			t.Fatalf("WriteLine: %v, wrote %q", err, b.String())
		}
	}
	// The encoder is reused afterwards without what was left of it.
	ok := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(2)), mcp.NewToolResultText("fine"))
	if got, want := written(t, ok), marshalled(t, ok); !bytes.Equal(got, want) {
		t.Fatalf("after an error:\n got %s\nwant %s", got, want)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestWriteError(t *testing.T) {
	if err := WriteLine(failingWriter{}, mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), mcp.NewToolResultText("x"))); err == nil {
		t.Fatal("no error from a failing writer")
	}
}

// One Write per message: the stdio transport's output counts on whole
// lines.
func TestOneWrite(t *testing.T) {
	var w countingWriter
	big := strings.Repeat("<é>", 100_000)
	if err := WriteLine(&w, mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1)), mcp.NewToolResultStructured(map[string]string{"t": big}, big))); err != nil {
		t.Fatal(err)
	}
	if w.writes != 1 {
		t.Fatalf("%d writes", w.writes)
	}
}

type countingWriter struct{ writes int }

func (w *countingWriter) Write(p []byte) (int, error) { w.writes++; return len(p), nil }

func FuzzMatches(f *testing.F) {
	f.Add("hello", `{"a":1}`, int64(1), false)
	f.Add("<&>\u2028\xff\x00", `{"s":"<&>\u2028"}`, int64(-3), true)
	f.Add("", `[ 1 ,2 ]`, int64(0), false)
	f.Fuzz(func(t *testing.T, text, structured string, id int64, isError bool) {
		r := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: isError}
		switch {
		case json.Valid([]byte(structured)):
			r.StructuredContent = json.RawMessage(structured)
		case len(structured)%2 == 0:
			// As the tools encode their results: answer.Encoded.
			r.StructuredContent = encoded(t, map[string]any{"s": structured, "t": text, "n": len(structured)})
		}
		msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(id), r)
		want, err := json.Marshal(msg)
		var b bytes.Buffer
		got := WriteLine(&b, msg)
		if (err != nil) != (got != nil) {
			t.Fatalf("json.Marshal: %v, WriteLine: %v", err, got)
		}
		if err == nil && !bytes.Equal(b.Bytes(), append(want, '\n')) {
			t.Fatalf("\n got %s\nwant %s", b.Bytes(), want)
		}
	})
}
