package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/changes"
)

// ctxRecorder fails a record whose context is done, as a git commit
// would, and can hold a record until released.
type ctxRecorder struct {
	entered chan struct{} // receives when a record starts (if not nil)
	release chan struct{} // a record waits for it (if not nil)
}

func (r *ctxRecorder) Prepare(ctx context.Context, _ changes.Change) (changes.Pending, error) {
	if r.entered != nil {
		r.entered <- struct{}{}
		<-r.release
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return madePending{}, nil
}

// madePending is a prepared commit that publishes as c0ffee1.
type madePending struct{}

func (madePending) Publish() (string, error) { return "c0ffee1", nil }
func (madePending) Abort()                   {}

func drainServer(t *testing.T, rec changes.Recorder, d *Drain) (string, func(ctx context.Context, id int, tool, args string) map[string]any) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v.SetRecorder(rec)
	s, err := New(tools.Deps{Vault: v, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, "1", WithDrain(d))
	if err != nil {
		t.Fatal(err)
	}
	call := func(ctx context.Context, id int, tool, args string) map[string]any {
		msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
		raw, _ := json.Marshal(s.HandleMessage(ctx, json.RawMessage(msg)))
		var out map[string]any
		_ = json.Unmarshal(raw, &out)
		res, _ := out["result"].(map[string]any)
		return res
	}
	return root, call
}

// A write whose request is cancelled (the client went away, the process
// is stopping) is still completed and committed.
func TestWritesDetachedFromCancellation(t *testing.T) {
	root, call := drainServer(t, &ctxRecorder{}, &Drain{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := call(ctx, 1, "write_file", `{"path":"a.md","content":"kept"}`)
	if res["isError"] == true {
		t.Fatalf("write with a cancelled request: %v", res)
	}
	if data, err := os.ReadFile(filepath.Join(root, "a.md")); err != nil || string(data) != "kept" {
		t.Errorf("a.md = %q, %v", data, err)
	}
}

// Close waits for the calls in progress and refuses new ones.
func TestDrainClose(t *testing.T) {
	rec := &ctxRecorder{entered: make(chan struct{}), release: make(chan struct{})}
	d := &Drain{}
	root, call := drainServer(t, rec, d)
	written := make(chan map[string]any, 1)
	go func() { written <- call(context.Background(), 1, "write_file", `{"path":"a.md","content":"x"}`) }()
	<-rec.entered
	closed := make(chan error, 1)
	go func() { closed <- d.Close(context.Background()) }()
	// Wait (on observable state) until Close has begun: new calls are refused.
	for id := 2; ; id++ {
		res := call(context.Background(), id, "list_directory", `{"path":""}`)
		if res["isError"] == true {
			text := fmt.Sprint(res["content"])
			if !strings.Contains(text, "shutting down") {
				t.Fatalf("refused with %s", text)
			}
			break
		}
	}
	select {
	case <-closed:
		t.Fatal("Close returned while a write was in progress")
	default:
	}
	if d.Active() != 1 {
		t.Errorf("Active = %d", d.Active())
	}
	close(rec.release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if res := <-written; res["isError"] == true {
		t.Errorf("the write in progress failed: %v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "a.md")); err != nil {
		t.Error(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
