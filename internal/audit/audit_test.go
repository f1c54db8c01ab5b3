package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRecord(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf)
	start := time.Unix(1_700_000_000, 0)
	rec := NewRecord(Entry{Time: start, IP: "127.0.0.1", Method: "POST", Endpoint: "/mcp"})
	ctx := With(context.Background(), rec)
	rec.SetIdentity("token:n8n")
	Note(ctx, "tools/call", "write_file", map[string]any{
		"path": "notes/a.md", "content": "SECRET NOTE TEXT", "old_path": "b.md", "paths": []any{"c.md"},
	})
	NoteError(ctx)
	if err := l.Write(rec.Finish(200, start.Add(1500*time.Microsecond))); err != nil {
		t.Fatal(err)
	}
	line := buf.String()
	if strings.Contains(line, "SECRET") {
		t.Fatalf("note content reached the audit log: %s", line)
	}
	var e Entry
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatal(err)
	}
	if e.Identity != "token:n8n" || e.Tool != "write_file" || e.Status != 200 || !e.Error || e.DurationMS != 1.5 ||
		strings.Join(e.Paths, ",") != "b.md,c.md,notes/a.md" {
		t.Errorf("entry = %+v", e)
	}
	// Without a record in the context, noting is a no-op.
	Note(context.Background(), "tools/call", "x", nil)
	var nilLog *Log
	if err := nilLog.Write(e); err != nil {
		t.Error(err)
	}
}
