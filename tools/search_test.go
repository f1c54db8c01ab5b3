package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"vaultmcp/gitsync"
	"vaultmcp/internal/mcpserver"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
)

// newDepsHarness is newHarness with Deps adjusted by fn.
func newDepsHarness(t *testing.T, fn func(*tools.Deps)) *harness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := tools.Deps{Vault: v, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	fn(&d)
	s, err := mcpserver.New(d, "test", mcpserver.WithOutputValidation())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, root: root, v: v, s: s}
	h.rpc("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"0"}}`)
	return h
}

func searchVault(t *testing.T) *harness {
	h := newHarness(t, 0)
	h.file("Welcome.md", "# Welcome\nTODO: tidy up\n")
	h.file("Daily Notes/2025-01-01.md", "# New year\n- todo: plan\n")
	h.file("Daily Notes/2025-01-02.md", "# Day two\n")
	h.file("Projects/Alpha.md", "---\nstatus: todo\n---\n# Alpha\n")
	h.file("Projects/logo.png", "\x89PNG\x00")
	h.file(".obsidian/app.json", `{"todo": 1}`)
	h.file(".trash/old.md", "todo\n")
	return h
}

func TestSearchFilesTool(t *testing.T) {
	h := searchVault(t)
	tests := []struct{ args, want string }{
		{`{"pattern":"*.md"}`, "Daily Notes/2025-01-01.md\nDaily Notes/2025-01-02.md\nProjects/Alpha.md\nWelcome.md"},
		{`{"pattern":"**/*.md"}`, "Daily Notes/2025-01-01.md\nDaily Notes/2025-01-02.md\nProjects/Alpha.md\nWelcome.md"},
		{`{"pattern":"/*.md"}`, "Welcome.md"},
		{`{"pattern":"Daily Notes/2025-*"}`, "Daily Notes/2025-01-01.md\nDaily Notes/2025-01-02.md"},
		{`{"pattern":"*.{png,jpg}","path":"Projects"}`, "Projects/logo.png"},
		{`{"pattern":"WELCOME.MD"}`, "Welcome.md"},
		{`{"pattern":"WELCOME.MD","case_sensitive":true}`, `No files match "WELCOME.MD". Matching was case-sensitive; leave case_sensitive out to ignore case.`},
		{`{"pattern":"*.md","limit":1}`, "Daily Notes/2025-01-01.md\n[showing 1–1 of 4 files; call again with offset=1 for the next page]"},
		{`{"pattern":"*.pdf"}`, `No files match "*.pdf". To search inside files use grep.`},
		{`{"pattern":"*.pdf","path":"Projects"}`, `No files match "*.pdf" in Projects. To search inside files use grep.`},
		{`{"pattern":"Alpha"}`, `No files match "Alpha". Without wildcards a pattern matches whole names only: try "*Alpha*", or find_files with name="Alpha" for part of a name.`},
		{`{"pattern":"Projects/*.md"}`, "Projects/Alpha.md"},
		{`{"pattern":"Alpha/*.md"}`, `No files match "Alpha/*.md". A pattern with "/" matches paths from the searched folder: try "**/Alpha/*.md" to match at any depth.`},
	}
	for _, tt := range tests {
		if got := h.ok("search_files", tt.args); got != tt.want {
			t.Errorf("search_files %s =\n%s\nwant\n%s", tt.args, got, tt.want)
		}
	}
	h.fails("search_files", `{"pattern":"[a-"}`, "invalid pattern", "[a-")
	h.fails("search_files", `{"pattern":"*","path":"../.."}`, "outside the vault")
	h.fails("search_files", `{"pattern":"*","path":".git"}`, "hidden")
	h.fails("search_files", `{"pattern":"*","path":"Welcome.md"}`, "Not a directory")
	h.fails("search_files", `{"path":"Projects"}`, "pattern")
	h.fails("search_files", `{"pattern":"*","limit":0}`, "limit")
}

func TestGrepTool(t *testing.T) {
	h := searchVault(t)
	tests := []struct{ args, want string }{
		{`{"query":"todo"}`, "Daily Notes/2025-01-01.md:2: - todo: plan\nProjects/Alpha.md:2: status: todo\nWelcome.md:2: TODO: tidy up"},
		{`{"query":"TODO","case_sensitive":true}`, "Welcome.md:2: TODO: tidy up"},
		{`{"query":"^# \\w+$","is_regex":true}`, "Projects/Alpha.md:4: # Alpha\nWelcome.md:1: # Welcome"},
		{`{"query":"todo","path":"Daily Notes","context_lines":1}`, "Daily Notes/2025-01-01.md-1- # New year\nDaily Notes/2025-01-01.md:2: - todo: plan"},
		{`{"query":"todo","include_pattern":"Projects/*"}`, "Projects/Alpha.md:2: status: todo"},
		{`{"query":"todo","path":".obsidian"}`, `.obsidian/app.json:1: {"todo": 1}`},
		{`{"query":"PNG"}`, `No matches for "PNG" (4 files searched)`},
		{`{"query":"nothing","path":"Projects"}`, `No matches for "nothing" in Projects (1 file searched)`},
	}
	for _, tt := range tests {
		if got := h.ok("grep", tt.args); got != tt.want {
			t.Errorf("grep %s =\n%s\nwant\n%s", tt.args, got, tt.want)
		}
	}
	h.fails("grep", `{"query":"(todo","is_regex":true}`, "invalid regular expression", "missing closing )")
	h.fails("grep", `{"query":"x","path":"/etc"}`, "outside the vault")
	h.fails("grep", `{"query":"x","path":"Nope"}`, "not found")
	h.fails("grep", `{"query":"x","include_pattern":"{a"}`, "invalid include_pattern")
	h.fails("grep", `{"query":"x","context_lines":6}`, "context_lines")
	h.fails("grep", `{"query":""}`, "query is empty")
}

func TestGrepToolLimit(t *testing.T) {
	h := newHarness(t, 0)
	for i := 0; i < 7; i++ {
		h.file(fmt.Sprintf("n%d.md", i), strings.Repeat("needle\n", 100))
	}
	got := h.ok("grep", `{"query":"needle"}`)
	lines := strings.Split(got, "\n")
	if len(lines) != 501 || lines[499] != "n4.md:100: needle" {
		t.Fatalf("%d lines, line 500 = %q", len(lines), lines[min(499, len(lines)-1)])
	}
	if want := "[showing 1–500 of 700 matching lines in 7 files; call again with offset=500 for the next page]"; lines[500] != want {
		t.Errorf("notice = %q", lines[500])
	}
}

func TestGrepToolEmptyVault(t *testing.T) {
	h := newHarness(t, 0)
	if got := h.ok("grep", `{"query":"x"}`); got != `No matches for "x" (0 files searched)` {
		t.Errorf("grep = %q", got)
	}
	if got := h.ok("search_files", `{"pattern":"**"}`); got != `No files match "**". To search inside files use grep.` {
		t.Errorf("search_files = %q", got)
	}
	if got := h.ok("find_files", `{}`); got != "No files found with these filters" {
		t.Errorf("find_files = %q", got)
	}
}

func TestFindFilesTool(t *testing.T) {
	h := searchVault(t)
	mt := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, rel := range []string{"Daily Notes/2025-01-01.md", "Welcome.md"} {
		if err := os.Chtimes(filepath.Join(h.root, rel), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	old := mt.AddDate(-1, 0, 0)
	if err := os.Chtimes(filepath.Join(h.root, "Daily Notes/2025-01-02.md"), old, old); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"name":"2025-01-01"}`, "Daily Notes/2025-01-01.md  24 bytes  2025-01-01T12:00:00Z"},
		{`{"modified_after":"2025-01-01","modified_before":"2025-01-02"}`,
			"Daily Notes/2025-01-01.md  24 bytes  2025-01-01T12:00:00Z\nWelcome.md  24 bytes  2025-01-01T12:00:00Z"},
		{`{"path":"Daily Notes","modified_before":"2024-06-01T00:00:00+02:00"}`, "Daily Notes/2025-01-02.md  10 bytes  2024-01-01T12:00:00Z"},
		{`{"name":"*.png","size_min":1,"size_max":10}`, "Projects/logo.png  5 bytes"},
		{`{"name":"*.md","limit":1,"modified_after":"2025-01-01T12:00:00Z"}`,
			"Daily Notes/2025-01-01.md  24 bytes  2025-01-01T12:00:00Z\n[showing 1–1 of 3 files; call again with offset=1 for the next page]"},
		{`{"name":"zzz"}`, "No files found with these filters"},
	}
	for _, tt := range tests {
		if got := h.ok("find_files", tt.args); !strings.HasPrefix(got, tt.want) {
			t.Errorf("find_files %s =\n%s\nwant\n%s", tt.args, got, tt.want)
		}
	}
	h.fails("find_files", `{"modified_after":"last tuesday"}`, "modified_after", "2024-05-01", "2 weeks ago")
	h.fails("find_files", `{"modified_before":"2025-02-30"}`, "modified_before")
	h.fails("find_files", `{"modified_after":"2025-02-01","modified_before":"2025-01-01"}`, "earlier than")
	h.fails("find_files", `{"size_min":10,"size_max":1}`, "larger than size_max")
	h.fails("find_files", `{"size_min":-1}`, "size_min")
	h.fails("find_files", `{"path":"../x"}`, "outside the vault")
	h.fails("find_files", `{"name":"[x"}`, "invalid name")
}

func TestGetVaultInfoTool(t *testing.T) {
	h := searchVault(t)
	h.file(".git/HEAD", "ref: refs/heads/main\n")
	h.file(".claude/x.md", "x")
	got := h.ok("get_vault_info", `{}`)
	want := "Total files: 5\nMarkdown files: 4\nFolders: 2\nTop-level folders (2):\n  Daily Notes/ (2 files)\n  Projects/ (2 files)\n" +
		"Files in the vault root: 1\nLast sync: unknown (git sync is not running)"
	if got != want {
		t.Errorf("get_vault_info =\n%s\nwant\n%s", got, want)
	}
	resp := h.rpc("tools/call", `{"name":"get_vault_info","arguments":{}}`)
	res, _ := resp["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if sc["total_files"] != float64(5) || sc["markdown_files"] != float64(4) || sc["folders"] != float64(2) || sc["sync"] != nil {
		t.Errorf("structuredContent = %v", sc)
	}
}

func TestGetVaultInfoSync(t *testing.T) {
	last := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	h := newDepsHarness(t, func(d *tools.Deps) {
		d.SyncStatus = func() gitsync.SyncStatus {
			return gitsync.SyncStatus{Branch: "main", Head: "abc1234", RemoteConfigured: true, Remote: "origin",
				RemoteURL: "https://example.invalid/vault.git", PushEnabled: true, LastSync: last, LastPush: last,
				Ahead: 2, LastPushError: "push rejected", PendingConflicts: []string{"a (conflict 2025-06-01 1000).md"}}
		}
	})
	got := h.ok("get_vault_info", `{}`)
	for _, want := range []string{
		"Total files: 0", "Top-level folders: none", "Last sync: 2025-06-01T10:00:00Z",
		"Git: branch main at abc1234; remote origin (https://example.invalid/vault.git): 2 commits to push, 0 commits to pull",
		"Last push failed: push rejected", "Conflict copies to merge by hand, then delete (1): a (conflict 2025-06-01 1000).md",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("get_vault_info =\n%s\nwant it to contain %q", got, want)
		}
	}
	resp := h.rpc("tools/call", `{"name":"get_vault_info","arguments":{}}`)
	res, _ := resp["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	sync, _ := sc["sync"].(map[string]any)
	if sc["last_sync"] != "2025-06-01T10:00:00Z" || sync["ahead"] != float64(2) || sync["last_push_error"] != "push rejected" {
		t.Errorf("structuredContent = %v", sc)
	}
}

// TestGetVaultInfoUnderScope checks get_vault_info's sync part under
// access scopes: conflict copies in hidden folders are left out, and a
// scope that hides folders gets a sync failure without its text (which
// may name any file); a read-only scope, which hides nothing, gets it all.
func TestGetVaultInfoUnderScope(t *testing.T) {
	h := newDepsHarness(t, func(d *tools.Deps) {
		d.SyncStatus = func() gitsync.SyncStatus {
			return gitsync.SyncStatus{Branch: "main", Head: "abc1234", RemoteConfigured: true, Remote: "origin",
				LastPushError: "push rejected", LastPullError: "replay: write Private/diary.md: permission denied",
				PendingConflicts: []string{"Journal/a (conflict 2025-06-01 1000).md", "Private/diary (conflict 2025-06-01 1000).md"}}
		}
	})
	for _, c := range []struct {
		name      string
		scope     *access.Scope
		conflicts []any
		pullError string
	}{
		{"no scope", nil, []any{"Journal/a (conflict 2025-06-01 1000).md", "Private/diary (conflict 2025-06-01 1000).md"}, "replay: write Private/diary.md: permission denied"},
		{"read-only", access.MustNew("t", access.Rules{ReadOnly: true}), []any{"Journal/a (conflict 2025-06-01 1000).md", "Private/diary (conflict 2025-06-01 1000).md"}, "replay: write Private/diary.md: permission denied"},
		{"deny Private", access.MustNew("t", access.Rules{Deny: []string{"Private"}}), []any{"Journal/a (conflict 2025-06-01 1000).md"}, "(details withheld"},
		{"allow Journal", access.MustNew("t", access.Rules{Allow: []string{"Journal"}}), []any{"Journal/a (conflict 2025-06-01 1000).md"}, "(details withheld"},
		{"allow Public", access.MustNew("t", access.Rules{Allow: []string{"Public"}}), []any{}, "(details withheld"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_vault_info","arguments":{}}}`
			raw, _ := json.Marshal(h.s.HandleMessage(access.With(context.Background(), c.scope), json.RawMessage(msg)))
			var resp struct {
				Result struct {
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
					Structured struct {
						Sync struct {
							Conflicts []any  `json:"pending_conflicts"`
							PullError string `json:"last_pull_error"`
							PushError string `json:"last_push_error"`
						} `json:"sync"`
					} `json:"structuredContent"`
				} `json:"result"`
			}
			if err := json.Unmarshal(raw, &resp); err != nil || len(resp.Result.Content) != 1 {
				t.Fatalf("answer %s: %v", raw, err)
			}
			sync := resp.Result.Structured.Sync
			if !reflect.DeepEqual(sync.Conflicts, c.conflicts) {
				t.Errorf("pending_conflicts = %v, want %v", sync.Conflicts, c.conflicts)
			}
			if !strings.HasPrefix(sync.PullError, c.pullError) || sync.PushError == "" {
				t.Errorf("last_pull_error = %q, want %q…; last_push_error %q", sync.PullError, c.pullError, sync.PushError)
			}
			if c.scope.Hides() && strings.Contains(string(raw), "Private") {
				t.Errorf("the answer names the hidden folder: %s", raw)
			}
		})
	}
}
