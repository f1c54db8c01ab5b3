package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/gitsync"
	"vaultmcp/tools"
	"vaultmcp/vault"
	"vaultmcp/vault/access"
	"vaultmcp/vault/index"
)

// scopedVault is a vault with an index and git history, holding a
// Private folder whose names and words must never reach a client whose
// scope hides it.
type scopedVault struct {
	root string
	v    *vault.Vault
	ix   *index.Index
	s    *server.MCPServer
	id   int
}

// secrets are strings only the Private folder holds. ("Secret Plan" is
// also the text of links in visible notes, which their readers see.)
var secrets = []string{"Private", "SECRETWORD", "private-tag", "Secret-Plan"}

func newScopedVault(t *testing.T) *scopedVault {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"Home.md":                "---\nprefLabel: Home\nrelated: [\"[[Secret Plan]]\", \"[[Day]]\"]\n---\n# Home\nSee [[Secret Plan]] and [[2024-01-01]]. #home #shared\n",
		"Journal/Day.md":         "---\nprefLabel: Day\nbroader: \"[[Secret Plan]]\"\n---\n# Day concept\n",
		"Journal/2024-01-01.md":  "# Day\nThought about [[Secret Plan]] and [[Home]]. #journal #shared\n",
		"Private/Secret Plan.md": "---\nprefLabel: Secret Plan\ndefinition: SECRETWORD plans\nnarrower: \"[[Day]]\"\n---\n# Secret Plan\nSECRETWORD lives here. #private-tag #shared [[Home]] [[Missing Secret-Plan note]]\n",
		"Private/Old.md":         "old\n",
	}
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "initial"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	v, err := vault.Open(root, vault.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(v, logger)
	v.Observe(ix.Changed)
	ctx := context.Background()
	repo, err := gitsync.Open(ctx, gitsync.Options{Dir: root, SyncInterval: -1, NoPush: true, Locker: v.Locker(), Changed: ix.Refresh, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	v.SetRecorder(repo)
	if err := ix.Build(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := New(tools.Deps{Vault: v, Index: ix, Git: repo, Logger: logger}, "test")
	if err != nil {
		t.Fatal(err)
	}
	sv := &scopedVault{root: root, v: v, ix: ix, s: s}
	sv.rpc(ctx, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`)
	// History: a commit in each folder, and one touching both.
	for _, c := range []struct{ tool, args string }{
		{"write_file", `{"path": "Private/Secret Plan.md", "content": "---\nprefLabel: Secret Plan\ndefinition: SECRETWORD plans\nnarrower: \"[[Day]]\"\n---\n# Secret Plan\nSECRETWORD lives here. #private-tag #shared [[Home]] [[Missing Secret-Plan note]]\nmore\n"}`},
		{"write_file", `{"path": "Journal/2024-01-02.md", "content": "# Next day\n"}`},
		{"rename_file", `{"old_path": "Private/Old.md", "new_path": "Journal/Old.md"}`},
	} {
		if text, isErr := sv.call(ctx, c.tool, c.args); isErr {
			t.Fatalf("setup %s: %s", c.tool, text)
		}
	}
	return sv
}

func (sv *scopedVault) rpc(ctx context.Context, method, params string) map[string]any {
	sv.id++
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, sv.id, method, params)
	raw, _ := json.Marshal(sv.s.HandleMessage(ctx, json.RawMessage(msg)))
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return out
}

// call runs a tool and returns its whole result as JSON text (content and
// structured content) and whether it is an error.
func (sv *scopedVault) call(ctx context.Context, tool, args string) (string, bool) {
	resp := sv.rpc(ctx, "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))
	res, _ := resp["result"].(map[string]any)
	isErr, _ := res["isError"].(bool)
	raw, _ := json.Marshal(resp)
	return string(raw), isErr || resp["error"] != nil
}

func (sv *scopedVault) toolList(ctx context.Context) []mcp.Tool {
	resp := sv.rpc(ctx, "tools/list", `{}`)
	raw, _ := json.Marshal(resp["result"])
	var res mcp.ListToolsResult
	_ = json.Unmarshal(raw, &res)
	return res.Tools
}

// leaks returns the secrets text holds.
func leaks(text string) []string {
	var out []string
	for _, s := range secrets {
		if strings.Contains(text, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestScopeHidesDeniedFolders calls every listing and search with the
// Private folder denied (as the server's own rule and as an allow list
// that leaves it out): nothing of it may show up in any answer.
func TestScopeHidesDeniedFolders(t *testing.T) {
	sv := newScopedVault(t)
	scopes := map[string]*access.Scope{
		"deny Private":           access.MustNew("test", access.Rules{Deny: []string{"Private"}}),
		"allow Journal and Home": access.MustNew("test", access.Rules{Allow: []string{"Journal", "Home.md"}}),
	}
	calls := []struct{ tool, args string }{
		{"list_directory", `{"path": "", "recursive": true}`},
		{"list_directory", `{"path": ""}`},
		{"search_files", `{"pattern": "**/*"}`},
		{"search_files", `{"pattern": "**/*Secret*"}`},
		{"grep", `{"query": "SECRETWORD"}`},
		{"grep", `{"query": "Secret"}`},
		{"grep", `{"query": "shared"}`},
		{"find_files", `{}`},
		{"get_vault_info", `{}`},
		{"get_backlinks", `{"note_name": "Home"}`},
		{"get_backlinks", `{"path": "Home.md"}`},
		{"get_broken_links", `{}`},
		{"find_links", `{"path": "Home.md"}`},
		{"find_links", `{"path": "Journal/2024-01-01.md"}`},
		{"get_tags", `{}`},
		{"get_recent_changes", `{}`},
		{"get_recent_changes", `{"limit": 20}`},
		{"search_concepts", `{"query": "plan"}`},
		{"search_concepts", `{"query": "SECRETWORD"}`},
		{"get_concept", `{"concept_id": "home"}`},
		{"get_concept", `{"concept_id": "day"}`},
		{"expand_context", `{"concept_id": "day", "max_depth": 3}`},
		{"expand_context", `{"concept_id": "home", "max_depth": 3}`},
		{"get_concept_path", `{"from_concept": "day", "to_concept": "home"}`},
		{"get_statistics", `{}`},
		{"get_note_history", `{"path": "Journal/Old.md"}`},
		{"get_diff", `{"from": "HEAD~3"}`},
		{"get_diff", `{"from": "HEAD~1"}`},
		{"get_diff", `{"from": "HEAD~3", "path": "Journal/Old.md"}`},
		{"read_file", `{"path": "Journal/2024-01-02.md", "version": "HEAD"}`},
		{"query_notes", `{}`},
		{"query_notes", `{"filter": {"tags": ["shared"]}}`},
		{"query_notes", `{"filter": {"links_to": "Home"}}`},
		{"search_notes", `{"query": "SECRETWORD"}`},
		{"search_notes", `{"query": "plan"}`},
		{"get_properties", `{"path": "Home.md"}`},
		{"query_base", `{"base": "views:\n  - type: table\n    order: [file.name, file.links, file.backlinks, file.embeds, file.properties, file.tags]\n"}`},
		{"query_base", `{"base": "filters: 'file.hasLink(\"Private/Secret Plan.md\") || file(\"Private/Secret Plan.md\") != null'\n"}`},
	}
	for name, scope := range scopes {
		t.Run(name, func(t *testing.T) {
			ctx := access.With(context.Background(), scope)
			for _, c := range calls {
				text, isErr := sv.call(ctx, c.tool, c.args)
				if isErr && strings.Contains(text, "unknown argument") {
					continue // a tool that no longer takes these arguments
				}
				if isErr {
					t.Errorf("%s %s: error: %s", c.tool, c.args, text)
					continue
				}
				if l := leaks(withoutArgs(text, c.args)); len(l) > 0 {
					t.Errorf("%s %s leaks %q:\n%s", c.tool, c.args, l, text)
				}
			}
			// Naming a hidden path is refused, the same whether it exists.
			for _, c := range []struct{ tool, args string }{
				{"read_file", `{"path": "Private/Secret Plan.md"}`},
				{"read_file", `{"path": "Private/nothing.md"}`},
				{"list_directory", `{"path": "Private"}`},
				{"grep", `{"query": "x", "path": "Private"}`},
				{"get_backlinks", `{"path": "Private/Secret Plan.md"}`},
				{"find_links", `{"path": "Private/Secret Plan.md"}`},
				{"get_tags", `{"path": "Private/Secret Plan.md"}`},
				{"get_recent_changes", `{"path": "Private/Secret Plan.md"}`},
				{"get_note_history", `{"path": "Private/Secret Plan.md"}`},
				{"get_diff", `{"from": "HEAD~3", "path": "Private/Secret Plan.md"}`},
				{"read_file", `{"path": "Private/Secret Plan.md", "version": "HEAD~1"}`},
				{"revert_change", `{"commit": "HEAD", "path": "Private/Secret Plan.md"}`},
				{"get_properties", `{"path": "Private/Secret Plan.md"}`},
				{"patch_note", `{"path": "Private/Secret Plan.md", "target_type": "heading", "target": "Secret Plan", "operation": "append", "content": "x"}`},
				{"set_properties", `{"path": "Private/Secret Plan.md", "properties": {"a": 1}}`},
			} {
				text, isErr := sv.call(ctx, c.tool, c.args)
				if !isErr || !strings.Contains(text, "Access denied") {
					t.Errorf("%s %s: want an access refusal, got %s", c.tool, c.args, text)
				}
				if strings.Contains(text, "SECRETWORD") {
					t.Errorf("%s %s: refusal leaks content: %s", c.tool, c.args, text)
				}
			}
		})
	}
}

// TestScopeRefusesWritesWhole checks that a change outside the scope, or
// under a read-only scope, is refused and changes nothing, including a
// rename whose link updates would reach a hidden note.
func TestScopeRefusesWritesWhole(t *testing.T) {
	sv := newScopedVault(t)
	before := snapshot(t, sv.root)
	journal := access.With(context.Background(), access.MustNew(`the token "j"`, access.Rules{Allow: []string{"Journal"}}))
	readOnly := access.With(context.Background(), access.MustNew(`the token "ro"`, access.Rules{ReadOnly: true}))
	for _, c := range []struct {
		ctx        context.Context
		tool, args string
		want       string
	}{
		{journal, "write_file", `{"path": "Private/x.md", "content": "x"}`, "outside the folders"},
		{journal, "write_file", `{"path": "Home.md", "content": "x"}`, "outside the folders"},
		{journal, "edit_file", `{"path": "Private/Secret Plan.md", "old_text": "SECRETWORD", "new_text": "y"}`, "outside the folders"},
		{journal, "delete_file", `{"path": "Private/Secret Plan.md"}`, "outside the folders"},
		{journal, "rename_file", `{"old_path": "Home.md", "new_path": "Journal/Home.md"}`, "outside the folders"},
		{journal, "rename_file", `{"old_path": "Journal/2024-01-01.md", "new_path": "Private/x.md"}`, "outside the folders"},
		// Home.md links to this note: updating that link is outside the scope.
		{journal, "rename_file", `{"old_path": "Journal/2024-01-01.md", "new_path": "Journal/renamed.md"}`, "would also touch notes outside"},
		{journal, "create_directory", `{"path": "Private/new"}`, "outside the folders"},
		{readOnly, "write_file", `{"path": "Journal/x.md", "content": "x"}`, `ro\\\" is read-only`},
		{readOnly, "create_directory", `{"path": "Journal/new"}`, "read-only"},
	} {
		text, isErr := sv.call(c.ctx, c.tool, c.args)
		if !isErr || !strings.Contains(text, c.want) {
			t.Errorf("%s %s: want a refusal containing %q, got %s", c.tool, c.args, c.want, text)
		}
	}
	if after := snapshot(t, sv.root); !maps(before, after) {
		t.Errorf("a refused change changed the vault:\nbefore %v\nafter  %v", before, after)
	}
	// Inside the scope, writes work.
	if text, isErr := sv.call(journal, "write_file", `{"path": "Journal/ok.md", "content": "ok"}`); isErr {
		t.Errorf("write inside the scope: %s", text)
	}
}

// TestReadOnlyToolList checks that writing tools, found by their
// annotations, leave tools/list under a read-only scope and are refused
// with the reason when called anyway.
func TestReadOnlyToolList(t *testing.T) {
	sv := newScopedVault(t)
	all := sv.toolList(context.Background())
	ctx := access.With(context.Background(), access.MustNew("this server (access.read_only)", access.Rules{ReadOnly: true}))
	ro := sv.toolList(ctx)
	var roNames []string
	for _, tool := range ro {
		roNames = append(roNames, tool.Name)
	}
	for _, tool := range all {
		readOnly := tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint
		if listed := slices.Contains(roNames, tool.Name); listed != readOnly {
			t.Errorf("%s (readOnlyHint %v): listed under read-only = %v", tool.Name, readOnly, listed)
		}
		if !readOnly {
			text, isErr := sv.call(ctx, tool.Name, `{}`)
			if !isErr || !strings.Contains(text, "read-only") {
				t.Errorf("%s under read-only: want a refusal saying why, got %s", tool.Name, text)
			}
		}
	}
	if len(roNames) == 0 || len(roNames) == len(all) {
		t.Errorf("read-only list has %d of %d tools", len(roNames), len(all))
	}
}

// TestScopeSweepsEveryTool calls every tool, whatever it is (tools added
// later included), with its required arguments pointed at the hidden
// folder: no answer may carry anything of it beyond the path the call
// itself named.
func TestScopeSweepsEveryTool(t *testing.T) {
	sv := newScopedVault(t)
	ctx := access.With(context.Background(), access.MustNew("test", access.Rules{Deny: []string{"Private"}}))
	for _, tool := range sv.toolList(ctx) {
		targets := []string{"Private/Secret Plan.md", ""}
		if tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint {
			targets = append(targets, "Secret Plan", "secret_plan")
		}
		for _, target := range targets {
			args := map[string]any{}
			for _, name := range tool.InputSchema.Required {
				prop, _ := tool.InputSchema.Properties[name].(map[string]any)
				switch prop["type"] {
				case "string":
					args[name] = target
					if strings.Contains(name, "pattern") {
						args[name] = "**/*"
					}
				case "integer", "number":
					args[name] = 10
				case "boolean":
					args[name] = true
				case "array":
					args[name] = []any{}
				case "object":
					args[name] = map[string]any{}
				}
			}
			raw, _ := json.Marshal(args)
			text, _ := sv.call(ctx, tool.Name, string(raw))
			if l := leaks(withoutArgs(text, string(raw))); len(l) > 0 {
				t.Errorf("%s %s leaks %q: %s", tool.Name, raw, l, text)
			}
		}
	}
}

// withoutArgs removes from an answer the string values of the call's
// arguments, which a message may echo ("No matches for …").
func withoutArgs(text, args string) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(args), &m)
	for _, v := range m {
		if s, ok := v.(string); ok && s != "" {
			text = strings.ReplaceAll(text, s, "<arg>")
		}
	}
	return text
}

func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" {
			return filepath.SkipDir
		}
		if fi.IsDir() {
			out[rel] = "dir"
			return nil
		}
		data, err := os.ReadFile(p)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestScopeResources checks the MCP resources, argument completion and
// the CLAUDE.md context under a scope that hides Private: the list, reads,
// completions and context leave it out.
func TestScopeResources(t *testing.T) {
	sv := newScopedVault(t)
	if err := os.WriteFile(filepath.Join(sv.root, "Private", "CLAUDE.md"), []byte("SECRETWORD rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := access.With(context.Background(), access.MustNew("test", access.Rules{Deny: []string{"Private"}}))
	list, _ := json.Marshal(sv.rpc(ctx, "resources/list", `{}`))
	if l := leaks(string(list)); len(l) > 0 || !strings.Contains(string(list), "Home.md") {
		t.Errorf("resources/list leaks %q or lacks Home.md: %s", l, list)
	}
	read, _ := json.Marshal(sv.rpc(ctx, "resources/read", fmt.Sprintf(`{"uri": %q}`, NoteURI("Private/Secret Plan.md"))))
	if strings.Contains(string(read), "SECRETWORD") || !strings.Contains(string(read), "error") {
		t.Errorf("resources/read of a hidden note: %s", read)
	}
	comp, _ := json.Marshal(sv.rpc(ctx, "completion/complete", `{"ref": {"type": "ref/prompt", "name": "obsidian-create-note"}, "argument": {"name": "folder", "value": ""}}`))
	if strings.Contains(string(comp), "Private") {
		t.Errorf("completion offers the hidden folder: %s", comp)
	}
	for _, params := range []string{
		`{"ref": {"type": "ref/prompt", "name": "obsidian-create-note"}, "argument": {"name": "tags", "value": "priv"}}`,
		`{"ref": {"type": "ref/prompt", "name": "obsidian-create-note"}, "argument": {"name": "folder", "value": "Pri"}}`,
		`{"ref": {"type": "ref/resource", "uri": "vault:///{+path}"}, "argument": {"name": "path", "value": ""}}`,
		`{"ref": {"type": "ref/resource", "uri": "vault:///{+path}"}, "argument": {"name": "path", "value": "Private/"}}`,
	} {
		comp, _ := json.Marshal(sv.rpc(ctx, "completion/complete", params))
		if l := leaks(string(comp)); len(l) > 0 {
			t.Errorf("completion %s leaks %q: %s", params, l, comp)
		}
	}
	text, _ := sv.call(ctx, "get_claude_context", `{"path": "Journal"}`)
	if strings.Contains(text, "SECRETWORD") {
		t.Errorf("get_claude_context: %s", text)
	}
	text, isErr := sv.call(ctx, "get_claude_context", `{"path": "Private"}`)
	if !isErr || strings.Contains(text, "SECRETWORD") {
		t.Errorf("get_claude_context of the hidden folder: %s", text)
	}
}

// TestScopeInstructions checks the initialize instructions under each
// kind of scope: the root CLAUDE.md reaches only sessions that may read
// it, and a read-only session's orientation names no writing tool.
func TestScopeInstructions(t *testing.T) {
	sv := newScopedVault(t)
	if err := os.WriteFile(filepath.Join(sv.root, "CLAUDE.md"), []byte("ROOTRULES for agents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	init := `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}`
	for _, c := range []struct {
		name       string
		scope      *access.Scope
		wantRoot   bool
		wantWrites bool
	}{
		{"no scope", nil, true, true},
		{"deny Private", access.MustNew("test", access.Rules{Deny: []string{"Private"}}), true, true},
		{"deny CLAUDE.md", access.MustNew("test", access.Rules{Deny: []string{"CLAUDE.md"}}), false, true},
		{"allow Journal", access.MustNew("test", access.Rules{Allow: []string{"Journal"}}), false, true},
		{"allow Journal and CLAUDE.md", access.MustNew("test", access.Rules{Allow: []string{"Journal", "CLAUDE.md"}}), true, true},
		{"read-only", access.MustNew("test", access.Rules{ReadOnly: true}), true, false},
		{"read-only, allow Journal", access.MustNew("test", access.Rules{ReadOnly: true, Allow: []string{"Journal"}}), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := sv.rpc(access.With(context.Background(), c.scope), "initialize", init)
			res, _ := resp["result"].(map[string]any)
			text, _ := res["instructions"].(string)
			if got := strings.Contains(text, "ROOTRULES"); got != c.wantRoot {
				t.Errorf("root CLAUDE.md in the instructions = %v, want %v:\n%s", got, c.wantRoot, text)
			}
			if c.wantRoot {
				return
			}
			if !strings.HasPrefix(text, "This server gives you an Obsidian vault") {
				t.Errorf("no orientation: %q", text)
			}
			if got := strings.Contains(text, "write_file"); got != c.wantWrites {
				t.Errorf("orientation names write_file = %v, want %v:\n%s", got, c.wantWrites, text)
			}
		})
	}
}

// TestScopeRefusalSameWhetherExists names, in every tool that takes a
// path, a hidden note and a hidden folder that exist and ones that do
// not: the answers must be the same, so a refusal tells nothing about
// what the hidden folders hold.
func TestScopeRefusalSameWhetherExists(t *testing.T) {
	sv := newScopedVault(t)
	ctx := access.With(context.Background(), access.MustNew("test", access.Rules{Deny: []string{"Private"}}))
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path": "%s"}`},
		{"read_file", `{"path": "%s", "version": "HEAD~1"}`},
		{"list_directory", `{"path": "%s"}`},
		{"grep", `{"query": "x", "path": "%s"}`},
		{"search_files", `{"pattern": "*", "path": "%s"}`},
		{"find_files", `{"path": "%s"}`},
		{"get_tags", `{"path": "%s"}`},
		{"get_claude_context", `{"path": "%s"}`},
		{"find_links", `{"path": "%s"}`},
		{"get_backlinks", `{"path": "%s"}`},
		{"get_recent_changes", `{"path": "%s"}`},
		{"get_note_history", `{"path": "%s"}`},
		{"get_diff", `{"from": "HEAD~3", "path": "%s"}`},
		{"revert_change", `{"commit": "HEAD~2", "path": "%s"}`},
		{"get_properties", `{"path": "%s"}`},
		{"set_properties", `{"path": "%s", "properties": {"a": 1}}`},
		{"patch_note", `{"path": "%s", "target_type": "heading", "target": "X", "operation": "append", "content": "x"}`},
		{"edit_file", `{"path": "%s", "old_text": "a", "new_text": "b"}`},
		{"write_file", `{"path": "%s", "content": "x"}`},
		{"delete_file", `{"path": "%s"}`},
		{"rename_file", `{"old_path": "%s", "new_path": "Journal/moved.md"}`},
		{"rename_file", `{"old_path": "Journal/Day.md", "new_path": "%s"}`},
		{"create_directory", `{"path": "%s"}`},
		{"query_notes", `{"filter": {"links_to": "%s"}}`},
		{"query_notes", `{"filter": {"links_from": "%s"}}`},
		{"query_notes", `{"filter": {"folder": "%s"}}`},
	} {
		for _, pair := range [][2]string{{"Private/Secret Plan.md", "Private/Nothing.md"}, {"Private", "Private/nofolder"}} {
			a, _ := sv.call(ctx, c.tool, strings.Replace(c.args, "%s", pair[0], 1))
			b, _ := sv.call(ctx, c.tool, strings.Replace(c.args, "%s", pair[1], 1))
			a = strings.ReplaceAll(a, pair[0], "<P>")
			b = strings.ReplaceAll(b, pair[1], "<P>")
			a, b = a[strings.Index(a, `"result"`):], b[strings.Index(b, `"result"`):] // past the ids
			if a != b {
				t.Errorf("%s %s:\n  exists:  %.300s\n  missing: %.300s", c.tool, c.args, a, b)
			}
		}
	}
}
