package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

var (
	createdToken = regexp.MustCompile(`(?m)^\s+(vmcp_[A-Za-z0-9_-]+)\s*$`)
	createdHash  = regexp.MustCompile(`(?m)^\s+hash: (\S+)\s*$`)
)

// createToken runs `vaultmcp token create NAME` and returns the token it
// prints and the hash its config entry holds.
func createToken(t *testing.T, name string) (token, hash string) {
	t.Helper()
	out, err := exec.Command(serverBin, "token", "create", name).Output()
	if err != nil {
		t.Fatalf("token create %s: %v", name, err)
	}
	tm, hm := createdToken.FindSubmatch(out), createdHash.FindSubmatch(out)
	if tm == nil || hm == nil {
		t.Fatalf("token create %s printed no token or hash:\n%s", name, out)
	}
	return string(tm[1]), string(hm[1])
}

// TestHTTPScopedTokens serves a vault over HTTP with tokens made by
// `vaultmcp token create` and scoped in http.tokens: a read-only token's
// writes (MCP and REST) are refused and change nothing, and its tools/list
// holds no writing tool; a token for Journal/ only is refused outside it,
// finds nothing outside it, does not get the root CLAUDE.md as its
// instructions, and writes inside it.
func TestHTTPScopedTokens(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"CLAUDE.md":        "ROOTRULES for agents\n",
		"Home.md":          "# Home\nSee [[diary]] and [[2025]].\n",
		"Private/diary.md": "# Diary\nSECRETWORD #private\n[[Home]]\n",
		"Journal/2025.md":  "# 2025\n#journal\n",
	})
	roTok, roHash := createToken(t, "ro")
	jTok, jHash := createToken(t, "journal")
	tokens := fmt.Sprintf(`[{"name": "ro", "hash": %q, "read_only": true}, {"name": "journal", "hash": %q, "allow": ["Journal"]}]`, roHash, jHash)
	srv := startHTTP(t, v, withEnv("VAULTMCP_HTTP_TOKENS="+tokens))
	rest := func(method, path, tok, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return resp.StatusCode, m
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()

	t.Run("read-only", func(t *testing.T) {
		s := srv.session(t, roTok)
		list, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if ro := tool.Annotations.ReadOnlyHint; ro == nil || !*ro {
				t.Errorf("a read-only token's tools/list holds %s", tool.Name)
			}
		}
		before := v.snapshot(t)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"write_file", map[string]any{"path": "Journal/new.md", "content": "x"}},
			{"edit_file", map[string]any{"path": "Home.md", "old_text": "Home", "new_text": "x"}},
			{"delete_file", map[string]any{"path": "Home.md"}},
			{"rename_file", map[string]any{"old_path": "Home.md", "new_path": "Start.md"}},
		} {
			if msg := s.fail(t, c.tool, c.args); !strings.Contains(msg, `"ro" is read-only`) {
				t.Errorf("%s with a read-only token: %q", c.tool, msg)
			}
		}
		for _, method := range []string{"PUT", "DELETE"} {
			if status, m := rest(method, "/api/notes/Home.md", roTok, `{"content": "x"}`); status != 403 || !strings.Contains(fmt.Sprint(m["detail"]), "read-only") {
				t.Errorf("%s /api/notes with a read-only token: %d %v", method, status, m)
			}
		}
		v.unchanged(t, before)
		if !strings.Contains(s.ok(t, "read_file", map[string]any{"path": "Private/diary.md"}), "SECRETWORD") {
			t.Error("a read-only token without folder rules cannot read")
		}
	})

	t.Run("folder", func(t *testing.T) {
		s := srv.session(t, jTok)
		if strings.Contains(s.init.Instructions, "ROOTRULES") {
			t.Errorf("a Journal-only token got the root CLAUDE.md as instructions: %q", s.init.Instructions)
		}
		before := v.snapshot(t)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"read_file", map[string]any{"path": "Private/diary.md"}},
			{"read_file", map[string]any{"path": "Private/none.md"}},
			{"read_file", map[string]any{"path": "Home.md"}},
			{"list_directory", map[string]any{"path": "Private"}},
			{"write_file", map[string]any{"path": "Home.md", "content": "x"}},
			{"write_file", map[string]any{"path": "Private/new.md", "content": "x"}},
			{"rename_file", map[string]any{"old_path": "Journal/2025.md", "new_path": "Private/2025.md"}},
		} {
			if msg := s.fail(t, c.tool, c.args); !strings.Contains(msg, "Access denied") || strings.Contains(msg, "SECRETWORD") {
				t.Errorf("%s %v with a Journal token: %q", c.tool, c.args, msg)
			}
		}
		for _, method := range []string{"GET", "PUT", "DELETE"} {
			if status, m := rest(method, "/api/notes/Private/diary.md", jTok, `{"content": "x"}`); status != 403 || m["detail"] == nil {
				t.Errorf("%s /api/notes/Private/diary.md with a Journal token: %d %v", method, status, m)
			}
		}
		v.unchanged(t, before)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"list_directory", map[string]any{"path": "", "recursive": true}},
			{"search_files", map[string]any{"pattern": "**/*"}},
			{"grep", map[string]any{"query": "SECRETWORD"}},
			{"search_notes", map[string]any{"query": "diary secretword"}},
			{"query_notes", map[string]any{}},
			{"get_tags", map[string]any{}},
			{"get_backlinks", map[string]any{"note_name": "Home"}},
			{"get_recent_changes", map[string]any{}},
		} {
			out := s.ok(t, c.tool, c.args)
			for _, a := range c.args {
				if q, ok := a.(string); ok && q != "" {
					out = strings.ReplaceAll(out, q, "<argument>") // "No matches for …"
				}
			}
			if strings.Contains(out, "Private") || strings.Contains(out, "SECRETWORD") ||
				strings.Contains(out, "diary") || strings.Contains(out, "Home.md") {
				t.Errorf("%s with a Journal token shows what it may not see:\n%s", c.tool, out)
			}
		}
		s.ok(t, "write_file", map[string]any{"path": "Journal/2026.md", "content": "# 2026\n"})
		if msg := v.gitRun(t, "log", "-1", "--format=%s"); msg != "MCP: write Journal/2026.md" {
			t.Errorf("a write inside the folder: last commit %q", msg)
		}
	})
}
