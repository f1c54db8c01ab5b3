package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/internal/testutil"
)

// notifications collects what the server sends a session, in order.
type notifications struct {
	ch chan mcp.JSONRPCNotification
	mu sync.Mutex
	// seen keeps every method received, for failure messages.
	seen []string
}

func (s *session) collect() *notifications {
	n := &notifications{ch: make(chan mcp.JSONRPCNotification, 1000)}
	s.c.OnNotification(func(msg mcp.JSONRPCNotification) {
		n.mu.Lock()
		n.seen = append(n.seen, msg.Method)
		n.mu.Unlock()
		select {
		case n.ch <- msg:
		default:
		}
	})
	return n
}

// describe renders a notification as "method" or "method uri".
func describe(msg mcp.JSONRPCNotification) string {
	if uri, ok := msg.Params.AdditionalFields["uri"].(string); ok {
		return msg.Method + " " + uri
	}
	return msg.Method
}

// next returns the next notification about resources (other kinds —
// logs, acknowledgements — are passed over).
func (n *notifications) next(t *testing.T) string {
	t.Helper()
	deadline := time.After(callTimeout)
	for {
		select {
		case msg := <-n.ch:
			if strings.HasPrefix(msg.Method, "notifications/resources/") {
				return describe(msg)
			}
		case <-deadline:
			n.mu.Lock()
			defer n.mu.Unlock()
			t.Fatalf("no resource notification; got %q", n.seen)
		}
	}
}

// expect fails unless the next resource notifications are exactly want.
func (n *notifications) expect(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if got := n.next(t); got != w {
			t.Fatalf("notification %q, want %q", got, w)
		}
	}
}

// waitLog returns the data of the first log notification whose message
// contains msg.
func (n *notifications) waitLog(t *testing.T, msg string) (mcp.LoggingLevel, map[string]any) {
	t.Helper()
	deadline := time.After(callTimeout)
	for {
		select {
		case m := <-n.ch:
			if m.Method != "notifications/message" {
				continue
			}
			data, _ := m.Params.AdditionalFields["data"].(map[string]any)
			if text, _ := data["message"].(string); strings.Contains(text, msg) {
				level := fmt.Sprint(m.Params.AdditionalFields["level"])
				return mcp.LoggingLevel(level), data
			}
		case <-deadline:
			t.Fatalf("no log notification %q", msg)
		}
	}
}

// The helpers below speak 2025-11-25's resources/subscribe, unsubscribe
// and logging/setLevel, which mcp-go marks deprecated in favour of
// 2026-07-28's subscriptions/listen; the protocol versions this server
// follows define them, so they are tested on purpose.

func (s *session) subscribe(ctx context.Context, uri string) error {
	var req mcp.SubscribeRequest
	req.Params.URI = uri
	//lint:ignore SA1019 resources/subscribe is tested on purpose (see above)
	return s.c.Subscribe(ctx, req)
}

func (s *session) unsubscribe(ctx context.Context, uri string) error {
	var req mcp.UnsubscribeRequest
	req.Params.URI = uri
	//lint:ignore SA1019 resources/unsubscribe is tested on purpose (see above)
	return s.c.Unsubscribe(ctx, req)
}

func (s *session) setLevel(ctx context.Context, level mcp.LoggingLevel) error {
	var req mcp.SetLevelRequest
	req.Params.Level = level
	//lint:ignore SA1019 logging/setLevel is tested on purpose (see above)
	return s.c.SetLevel(ctx, req)
}

// editElsewhere changes a vault file from another process, as an editor
// that saves atomically does: the new text is written beside the vault
// and moved over the note, so the server sees one change, never a
// half-written file.
func editElsewhere(t *testing.T, v *testVault, rel, content string) {
	t.Helper()
	tmp := filepath.Join(v.base, "editor-save.tmp")
	out, err := exec.Command("sh", "-c", `printf '%s' "$1" > "$2" && mv "$2" "$3"`, "sh", content, tmp, v.path(rel)).CombinedOutput()
	if err != nil {
		t.Fatalf("edit %s in another process: %v\n%s", rel, err, out)
	}
}

func TestClaudeContextAndGuides(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"CLAUDE.md":                 "# Root rules\n",
		"projects/CLAUDE.md":        "# Project conventions\nUse kebab-case for filenames.\n",
		"projects/webapp/CLAUDE.md": "# Webapp specifics\nComponents go in components/.\n",
		"projects/webapp/app.md":    "x\n",
	})
	s := startSession(t, v)
	want := "--- CLAUDE.md in projects/ ---\n# Project conventions\nUse kebab-case for filenames.\n\n" +
		"--- CLAUDE.md in projects/webapp/ ---\n# Webapp specifics\nComponents go in components/."
	if got := s.ok(t, "get_claude_context", map[string]any{"path": "projects/webapp"}); got != want {
		t.Errorf("get_claude_context =\n%s\nwant\n%s", got, want)
	}
	if got := s.ok(t, "get_claude_context", map[string]any{"path": ""}); got != "No CLAUDE.md files found along this path." {
		t.Errorf("root: %q", got)
	}
	msg := s.fail(t, "get_claude_context", map[string]any{"path": "../x"})
	wantContains(t, "outside path", msg, "outside the vault")

	// Changed by another process: the watcher's notice drops the cached
	// copy, so a later call sees the new rules.
	editElsewhere(t, v, "projects/CLAUDE.md", "# Project conventions v2\n")
	testutil.WaitFor(t, "the edited CLAUDE.md", func() bool {
		return strings.HasPrefix(s.ok(t, "get_claude_context", map[string]any{"path": "projects/webapp"}), "--- CLAUDE.md in projects/ ---\n# Project conventions v2\n\n")
	})
	// Written through the server: seen at once.
	s.ok(t, "write_file", map[string]any{"path": "projects/webapp/CLAUDE.md", "content": "# Webapp v2\n"})
	if got := s.ok(t, "get_claude_context", map[string]any{"path": "projects/webapp"}); !strings.HasSuffix(got, "--- CLAUDE.md in projects/webapp/ ---\n# Webapp v2") {
		t.Errorf("after write_file: %q", got)
	}

	guide := s.ok(t, "get_obsidian_guide", map[string]any{"topic": "create-note", "note_type": "meeting"})
	wantContains(t, "meeting template", guide, "# New note: meeting", "## Action items")
	msg = s.fail(t, "get_obsidian_guide", map[string]any{"topic": "recipes"})
	wantContains(t, "bad topic", msg, "conventions", "create-note", "search-strategy", "all")
	s.ok(t, "write_file", map[string]any{"path": ".vaultmcp/guides/create-note/meeting.md", "content": "# Our meetings\n"})
	if got := s.ok(t, "get_obsidian_guide", map[string]any{"topic": "create-note", "note_type": "meeting"}); got != "# Our meetings\n" {
		t.Errorf("vault override: %q", got)
	}
}

func TestPromptsAndCompletion(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"Projects/Webapp/README.md": "#project #status/active\n",
		"Meetings/2026-02-08.md":    "#meeting\n",
	})
	s := startSession(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	list, err := s.c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
		if p.Description == "" {
			t.Errorf("%s: no description", p.Name)
		}
	}
	if !slices.Equal(names, []string{"obsidian-conventions", "obsidian-create-note", "obsidian-search-strategy"}) {
		t.Errorf("prompts/list = %q", names)
	}
	get := func(name string, args map[string]string) (string, error) {
		var req mcp.GetPromptRequest
		req.Params.Name, req.Params.Arguments = name, args
		res, err := s.c.GetPrompt(ctx, req)
		if err != nil {
			return "", err
		}
		return res.Messages[0].Content.(mcp.TextContent).Text, nil
	}
	text, err := get("obsidian-create-note", map[string]string{"topic": "Kickoff", "note_type": "meeting", "folder": "Meetings", "tags": "meeting, project"})
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "create-note prompt", text, "about: Kickoff", "`Meetings/`", "meeting, project", "# New note: meeting")
	if text, err = get("obsidian-conventions", nil); err != nil || !strings.HasPrefix(text, "# Vault conventions") {
		t.Errorf("conventions: %v %q", err, text)
	}
	// Arguments the request gets wrong are invalid params (-32602), not
	// internal errors.
	if _, err := get("obsidian-create-note", nil); !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), `missing required argument "topic"`) {
		t.Errorf("no topic: %v", err)
	}
	if _, err := get("obsidian-create-note", map[string]string{"topic": "x", "note_type": "recipe"}); !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), "valid note types") {
		t.Errorf("bad note type: %v", err)
	}

	complete := func(ref any, arg, value string) []string {
		t.Helper()
		var req mcp.CompleteRequest
		req.Params.Ref = ref
		req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
		res, err := s.c.Complete(ctx, req)
		if err != nil {
			t.Fatalf("complete %s=%q: %v", arg, value, err)
		}
		return res.Completion.Values
	}
	createNote := mcp.PromptReference{Type: "ref/prompt", Name: "obsidian-create-note"}
	for _, tt := range []struct {
		ref        any
		arg, value string
		want       []string
	}{
		{createNote, "note_type", "m", []string{"meeting"}},
		{createNote, "folder", "proj", []string{"Projects", "Projects/Webapp"}},
		{createNote, "tags", "meeting, st", []string{"meeting, status/active"}},
		{mcp.ResourceReference{Type: "ref/resource", URI: "vault:///{+path}"}, "path", "read", []string{"Projects/Webapp/README.md"}},
		{mcp.PromptReference{Type: "ref/prompt", Name: "no-such-prompt"}, "x", "", []string{}},
		{createNote, "no_such_argument", "", []string{}},
	} {
		if got := complete(tt.ref, tt.arg, tt.value); !slices.Equal(got, tt.want) {
			t.Errorf("complete %v %s=%q = %q, want %q", tt.ref, tt.arg, tt.value, got, tt.want)
		}
	}
}

// Resources over the initialize handshake (2025-11-25): listing, reading,
// and a subscription that hears of every kind of change — another
// process editing the note, our own write, a pull.
func TestResourcesSubscribe(t *testing.T) {
	t.Parallel()
	files := map[string]string{"notes/watched.md": "v1\n", "notes/other.md": "o\n", "attachments/pic.png": "\x89PNG\r\n\x1a\n\x00"}
	for i := range 250 {
		files[fmt.Sprintf("bulk/%03d.md", i)] = "x\n"
	}
	v, remote := newRemoteVault(t, files)
	s := startSession(t, v, withProtocol("2025-11-25"), withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
	if c := s.init.Capabilities.Resources; c == nil || !c.Subscribe || !c.ListChanged {
		t.Fatalf("resources capability: %+v", c)
	}
	n := s.collect()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()

	var all []string
	var req mcp.ListResourcesRequest
	for pages := 0; ; pages++ {
		res, err := s.c.ListResourcesByPage(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			all = append(all, r.URI)
		}
		if res.NextCursor == "" {
			if pages != 1 {
				t.Errorf("%d pages, want 2", pages+1)
			}
			break
		}
		req.Params.Cursor = res.NextCursor
	}
	if len(all) != 253 || !slices.Contains(all, "vault:///notes/watched.md") {
		t.Errorf("%d resources listed", len(all))
	}

	read := func(uri string) mcp.ResourceContents {
		t.Helper()
		var req mcp.ReadResourceRequest
		req.Params.URI = uri
		res, err := s.c.ReadResource(ctx, req)
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		return res.Contents[0]
	}
	if c, ok := read("vault:///notes/watched.md").(mcp.TextResourceContents); !ok || c.Text != "v1\n" || c.MIMEType != "text/markdown" {
		t.Errorf("note: %+v", c)
	}
	var missing mcp.ReadResourceRequest
	missing.Params.URI = "vault:///notes/nope.md"
	if _, err := s.c.ReadResource(ctx, missing); !errors.Is(err, mcp.ErrInvalidParams) || !strings.Contains(err.Error(), "resource not found: vault:///notes/nope.md") {
		t.Errorf("a missing note: %v", err)
	}
	if c, ok := read("vault:///attachments/pic.png").(mcp.BlobResourceContents); !ok || c.MIMEType != "image/png" || c.Blob != base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00")) {
		t.Errorf("image: %+v", c)
	}

	if err := s.subscribe(ctx, "vault:///notes/watched.md"); err != nil {
		t.Fatal(err)
	}

	// Another process edits the note on disk.
	editElsewhere(t, v, "notes/watched.md", "v2 from the editor\n")
	n.expect(t, "notifications/resources/updated vault:///notes/watched.md")
	testutil.WaitFor(t, "the edit readable", func() bool {
		c, _ := read("vault:///notes/watched.md").(mcp.TextResourceContents)
		return c.Text == "v2 from the editor\n"
	})

	// Our own write.
	s.ok(t, "edit_file", map[string]any{"path": "notes/watched.md", "old_text": "v2", "new_text": "v3"})
	n.expect(t, "notifications/resources/updated vault:///notes/watched.md")

	// A pull: the laptop changes the note and pushes; the server pulls.
	laptop := filepath.Join(v.base, "laptop")
	testutil.WaitFor(t, "the server's commits on the remote", func() bool {
		log := remoteLog(t, remote)
		return len(log) > 0 && strings.HasPrefix(log[0], "MCP: edit notes/watched.md")
	})
	gitCLI(t, "", "clone", "-q", remote, laptop)
	writeAt(t, filepath.Join(laptop, "notes/watched.md"), "v4 from the laptop\n")
	laptopPush(t, laptop, "laptop edit")
	n.expect(t, "notifications/resources/updated vault:///notes/watched.md")
	testutil.WaitFor(t, "the pulled version readable", func() bool {
		c, _ := read("vault:///notes/watched.md").(mcp.TextResourceContents)
		return c.Text == "v4 from the laptop\n"
	})

	// A new note changes the list.
	s.ok(t, "write_file", map[string]any{"path": "notes/new.md", "content": "new\n"})
	n.expect(t, "notifications/resources/list_changed")

	// Unsubscribed: the next edit of the note is not announced; the
	// deletion of another note is (as a list change), and nothing came
	// before it.
	if err := s.unsubscribe(ctx, "vault:///notes/watched.md"); err != nil {
		t.Fatal(err)
	}
	s.ok(t, "write_file", map[string]any{"path": "notes/watched.md", "content": "v5\n"})
	s.ok(t, "delete_file", map[string]any{"path": "notes/other.md"})
	n.expect(t, "notifications/resources/list_changed")
}

// Protocol 2026-07-28 (mcp-go's client default) follows resources through
// a subscriptions/listen stream instead of resources/subscribe.
func TestResourcesListenStream(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"watched.md": "v1\n"})
	s := startSession(t, v)
	if !strings.HasPrefix(s.c.ProtocolVersion(), "2026") {
		t.Skipf("mcp-go's client negotiated %s", s.c.ProtocolVersion())
	}
	n := s.collect()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	filter := mcp.SubscriptionFilter{ResourceSubscriptions: []string{"vault:///watched.md"}}
	stop, err := s.c.ListenAsync(ctx, filter, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// The stream is open once the server acknowledges it.
	deadline := time.After(callTimeout)
	for acked := false; !acked; {
		select {
		case m := <-n.ch:
			acked = m.Method == "notifications/subscriptions/acknowledged"
		case <-deadline:
			t.Fatal("subscriptions/listen never acknowledged")
		}
	}
	editElsewhere(t, v, "watched.md", "v2\n")
	n.expect(t, "notifications/resources/updated vault:///watched.md")
}

// Server warnings reach a client that asked for them: here a push that
// fails because the remote went away.
func TestLogNotifications(t *testing.T) {
	t.Parallel()
	v, remote := newRemoteVault(t, map[string]string{"a.md": "a\n"})
	s := startSession(t, v, withProtocol("2025-11-25"), withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))
	if s.init.Capabilities.Logging == nil {
		t.Fatal("logging capability not advertised")
	}
	n := s.collect()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	if err := s.setLevel(ctx, mcp.LoggingLevelWarning); err != nil {
		t.Fatal(err)
	}
	if err := s.setLevel(ctx, "banana"); err == nil {
		t.Error("setLevel banana accepted")
	}

	if err := exec.Command("mv", remote, remote+".away").Run(); err != nil {
		t.Fatal(err)
	}
	s.ok(t, "write_file", map[string]any{"path": "offline.md", "content": "x\n"})
	level, data := n.waitLog(t, "push failed")
	if level != mcp.LoggingLevelWarning || data["err"] == nil {
		t.Errorf("push failure log: %s %v", level, data)
	}
	for k, val := range data {
		if str, ok := val.(string); ok && strings.Contains(str, v.Root) {
			t.Errorf("log field %s leaks the vault's path: %q", k, str)
		}
	}
}

// TestTypeScriptSDKGuidance drives prompts, completion, resources,
// subscriptions and logging with the official MCP TypeScript SDK
// (e2e/ts/guidance.mjs): a second, independent client, speaking the
// 2025-11-25 handshake.
func TestTypeScriptSDKGuidance(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: install Node.js 18 or later (make e2e-deps installs it on Debian)")
	}
	script, err := filepath.Abs(filepath.Join("ts", "guidance.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatal("the MCP TypeScript SDK is not installed in e2e/ts/node_modules: run make e2e-deps (npm ci --prefix e2e/ts)")
	}
	files := map[string]string{
		"CLAUDE.md":           "# Vault rules\n",
		"notes/CLAUDE.md":     "# Notes rules\n",
		"notes/watched.md":    "v1\n",
		"attachments/pic.png": "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
	}
	for i := range 230 {
		files[fmt.Sprintf("bulk/%03d.md", i)] = "x\n"
	}
	v := newVault(t, files)
	scratch := t.TempDir()
	cfg := newServerConfig(t, v, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, serverBin, v.Root, scratch)
	cmd.Env, cmd.Dir = cfg.env, cfg.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("TypeScript guidance client failed (%v):\n%s", err, stderr.String())
	}
	var report struct {
		OK            bool     `json:"ok"`
		Resources     int      `json:"resources"`
		Pages         int      `json:"pages"`
		Notifications []string `json:"notifications"`
		ServerLog     string   `json:"serverLog"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, stdout.String())
	}
	if !report.OK || report.Resources != 234 || report.Pages != 2 {
		t.Errorf("report: %s", stdout.String())
	}
	if strings.Contains(report.ServerLog, "DATA RACE") || strings.Contains(report.ServerLog, "panic:") {
		t.Errorf("server log reports a race or a panic:\n%s", report.ServerLog)
	}
}
