package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/internal/testutil"
)

// setLevel speaks 2025-11-25's logging/setLevel, which mcp-go marks
// deprecated (the 2026-07-28 protocol sets levels per request).
func (cn *conn) setLevel(level mcp.LoggingLevel) {
	cn.t.Helper()
	ctx, cancel := cn.ctx()
	defer cancel()
	var req mcp.SetLevelRequest
	req.Params.Level = level
	//lint:ignore SA1019 logging/setLevel is tested on purpose
	if err := cn.c.SetLevel(ctx, req); err != nil {
		cn.t.Fatalf("logging/setLevel %s: %v", level, err)
	}
}

// nextLog returns the next log notification's level and data.
func (cn *conn) nextLog() (mcp.LoggingLevel, map[string]any) {
	cn.t.Helper()
	for {
		n := cn.next(true)
		if n.Method != "notifications/message" {
			continue
		}
		if n.Params.AdditionalFields["logger"] != LoggerName {
			cn.t.Errorf("logger = %v", n.Params.AdditionalFields["logger"])
		}
		level, _ := n.Params.AdditionalFields["level"].(mcp.LoggingLevel)
		if level == "" {
			if s, ok := n.Params.AdditionalFields["level"].(string); ok {
				level = mcp.LoggingLevel(s)
			}
		}
		data, _ := n.Params.AdditionalFields["data"].(map[string]any)
		return level, data
	}
}

// Server logs reach each session at or above the level it set, and only
// sessions that set one; stderr gets what it got before.
func TestClientLog(t *testing.T) {
	var stderr bytes.Buffer
	cl := NewClientLog(slog.NewTextHandler(&stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	logger := slog.New(cl)
	r := newRig(t, nil, withClientLog(cl))
	if r.connect("2025-11-25").init.Capabilities.Logging == nil {
		t.Fatal("logging capability not advertised")
	}
	warned := r.connect("2025-11-25")
	debug := r.connect("2025-06-18")
	silent := r.connect("2025-11-25")
	warned.setLevel(mcp.LoggingLevelWarning)
	debug.setLevel(mcp.LoggingLevelDebug)

	logger.Debug("index refreshed", "paths", 3)
	logger.Info("pulled", "commits", 2)
	logger.Warn("push failed; will retry", "err", errors.New("push https://me:s3cret@git.example/v.git: refused"), "path", r.root+"/notes/a.md")
	logger.With("component", "gitsync").WithGroup("merge").Error("conflict kept both versions", "path", "a.md", "copy", "a (conflict).md")

	for _, want := range []struct {
		level mcp.LoggingLevel
		msg   string
	}{
		{mcp.LoggingLevelDebug, "index refreshed"},
		{mcp.LoggingLevelInfo, "pulled"},
		{mcp.LoggingLevelWarning, "push failed; will retry"},
		{mcp.LoggingLevelError, "conflict kept both versions"},
	} {
		level, data := debug.nextLog()
		if level != want.level || data["message"] != want.msg {
			t.Errorf("debug session got %s %v, want %s %q", level, data, want.level, want.msg)
		}
	}
	level, data := warned.nextLog()
	if level != mcp.LoggingLevelWarning || data["message"] != "push failed; will retry" ||
		data["err"] != "push https://***@git.example/v.git: refused" || data["path"] != "notes/a.md" {
		t.Errorf("warned session's first log: %s %v", level, data)
	}
	level, data = warned.nextLog()
	if level != mcp.LoggingLevelError || data["component"] != "gitsync" || data["merge.path"] != "a.md" || data["merge.copy"] != "a (conflict).md" {
		t.Errorf("warned session's second log: %s %v", level, data)
	}

	// The silent session never set a level: the first log it sees comes
	// after it does.
	silent.setLevel(mcp.LoggingLevelError)
	logger.Error("sync failed")
	if level, data := silent.nextLog(); level != mcp.LoggingLevelError || data["message"] != "sync failed" {
		t.Errorf("silent session: %s %v", level, data)
	}

	if strings.Contains(stderr.String(), "index refreshed") || !strings.Contains(stderr.String(), "push failed") ||
		!strings.Contains(stderr.String(), "component=gitsync merge.path=a.md") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if strings.Contains(stderr.String(), "notifications/message") {
		t.Errorf("stderr got the notifications")
	}

	// A session that ends is forgotten: debug records are off again.
	debug.close()
	silent.close()
	warned.close()
	testutil.WaitFor(t, "closed sessions forgotten", func() bool { return !cl.Enabled(context.Background(), slog.LevelDebug) })
}

func TestClientLogLevels(t *testing.T) {
	cl := NewClientLog(slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelError + 100}))
	ctx := context.Background()
	if cl.Enabled(ctx, slog.LevelError) {
		t.Error("enabled with no session and stderr off")
	}
	for _, tt := range []struct {
		level mcp.LoggingLevel
		min   slog.Level
	}{
		{mcp.LoggingLevelDebug, slog.LevelDebug}, {mcp.LoggingLevelInfo, slog.LevelInfo}, {mcp.LoggingLevelNotice, slog.LevelWarn},
		{mcp.LoggingLevelWarning, slog.LevelWarn}, {mcp.LoggingLevelError, slog.LevelError},
		{mcp.LoggingLevelCritical, slog.LevelError + 4}, {mcp.LoggingLevelAlert, slog.LevelError + 8}, {mcp.LoggingLevelEmergency, slog.LevelError + 12},
	} {
		cl.hub.set("s", tt.level)
		if !cl.Enabled(ctx, tt.min) || (tt.level != mcp.LoggingLevelDebug && cl.Enabled(ctx, tt.min-1)) {
			t.Errorf("%s: threshold not %v", tt.level, tt.min)
		}
		if got := mcpLevel(tt.min); tt.level != mcp.LoggingLevelNotice && got != tt.level {
			t.Errorf("mcpLevel(%v) = %s, want %s", tt.min, got, tt.level)
		}
	}
	cl.hub.set("s", "")
	if cl.Enabled(ctx, slog.LevelWarn) {
		t.Error("still enabled after the session left")
	}
}

// An invalid level is refused with invalid params, as the spec asks.
func TestSetLevelInvalid(t *testing.T) {
	cl := NewClientLog(slog.NewTextHandler(&bytes.Buffer{}, nil))
	r := newRig(t, nil, withClientLog(cl))
	cn := r.connect("2025-11-25")
	ctx, cancel := cn.ctx()
	defer cancel()
	var req mcp.SetLevelRequest
	req.Params.Level = "banana"
	//lint:ignore SA1019 logging/setLevel is tested on purpose
	err := cn.c.SetLevel(ctx, req)
	if err == nil || !strings.Contains(err.Error(), "banana") {
		t.Errorf("setLevel banana: %v", err)
	}
}
