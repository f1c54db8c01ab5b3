package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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

func TestFieldsCapped(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf)
	paths := make([]string, MaxPaths+10)
	for i := range paths {
		paths[i] = strings.Repeat("p", 5000)
	}
	e := Entry{Identity: "login:" + strings.Repeat("é", 5000), Endpoint: "/api/notes/" + strings.Repeat("a", 60<<10), Paths: paths, Status: 200}
	if err := l.Write(e); err != nil {
		t.Fatal(err)
	}
	var got Entry
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Endpoint) > MaxField || !strings.HasSuffix(got.Endpoint, "…") || len(got.Identity) > MaxField || !utf8.ValidString(got.Identity) {
		t.Errorf("endpoint %d bytes, identity %d bytes %q", len(got.Endpoint), len(got.Identity), got.Identity)
	}
	if len(got.Paths) != MaxPaths || got.PathsOmitted != 10 || len(got.Paths[0]) > MaxPath {
		t.Errorf("%d paths (%d omitted), the first %d bytes", len(got.Paths), got.PathsOmitted, len(got.Paths[0]))
	}
	if len(paths[0]) != 5000 {
		t.Error("the caller's paths were changed")
	}
	if buf.Len() > 80<<10 {
		t.Errorf("the line is %d bytes", buf.Len())
	}
}

func TestRefusedAggregated(t *testing.T) {
	var buf bytes.Buffer
	l := New(&buf)
	minute := time.Unix(1_700_000_040, 0).Truncate(time.Minute)
	refuse := func(at time.Duration, ip string, status int) {
		if err := l.Refused(Entry{Time: minute.Add(at), Identity: "unauthenticated", IP: ip, Method: "GET", Endpoint: "/mcp", Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 100 {
		refuse(time.Duration(i)*100*time.Millisecond, "192.0.2.1", 401+28*(i%2))
	}
	refuse(time.Second, "2001:db8::/64", 401)
	if buf.Len() != 0 {
		t.Errorf("written before the minute ended: %s", buf.String())
	}
	refuse(time.Minute+time.Second, "192.0.2.1", 401) // the next minute: the first one's lines go out
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one line per address:\n%s", buf.String())
	}
	var e Entry
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil {
		t.Fatal(err)
	}
	if e.IP != "192.0.2.1" || e.Count != 100 || e.Refused["401"] != 50 || e.Refused["429"] != 50 || !e.Time.Equal(minute) {
		t.Errorf("first line: %+v", e)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Errorf("Close did not write the last minute's line:\n%s", buf.String())
	}
}

func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(path, Options{MaxBytes: 4 << 10, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{Identity: "token:n8n", IP: "127.0.0.1", Method: "POST", Endpoint: "/mcp", Status: 200}
	for range 200 {
		if err := l.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(path + "*")
	if len(files) != 3 {
		t.Errorf("files %q, want the log and 2 old ones", files)
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || st.Size() > 4<<10 || st.Size() == 0 {
			t.Errorf("%s: %v bytes (%v)", f, st.Size(), err)
		}
	}
	// Reopened, it goes on from the size it has.
	l, err = Open(path, Options{MaxBytes: 4 << 10, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		_ = l.Write(e)
	}
	l.Close()
	if st, _ := os.Stat(path); st.Size() > 4<<10 {
		t.Errorf("after reopening: %d bytes", st.Size())
	}
}

func FuzzCut(f *testing.F) {
	f.Add("/api/notes/"+strings.Repeat("a", 300), 256)
	f.Add(strings.Repeat("é", 200), 7)
	f.Add("\xff\xfe"+strings.Repeat("日本", 100), 4)
	f.Fuzz(func(t *testing.T, s string, limit int) {
		if limit < len("…") || limit > 1<<20 {
			return
		}
		got := cut(s, limit)
		if len(got) > limit {
			t.Fatalf("cut(%q, %d) = %d bytes", s, limit, len(got))
		}
		if len(s) <= limit && got != s {
			t.Fatalf("cut changed a string within the limit: %q -> %q", s, got)
		}
		if len(s) > limit && (!strings.HasSuffix(got, "…") || !strings.HasPrefix(s, strings.TrimSuffix(got, "…"))) {
			t.Fatalf("cut(%q, %d) = %q: not a marked prefix", s, limit, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("cut split a character: %q", got)
		}
	})
}
