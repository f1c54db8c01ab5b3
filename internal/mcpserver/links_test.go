package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/vault/access"
)

// TestScopeSymlinks puts symbolic links in the visible Journal folder
// that lead into the hidden Private folder (a note, a folder, a
// CLAUDE.md) and into .git, and calls every tool, the resources and the
// completions under scopes that hide Private: nothing of Private or of
// .git may show, whatever the call names. The links are made while the
// server runs and reported as the watcher reports them.
func TestScopeSymlinks(t *testing.T) {
	for name, rules := range map[string]access.Rules{
		"deny":  {Deny: []string{"Private"}},
		"allow": {Allow: []string{"Journal", "Home.md"}},
	} {
		// The subtest's name makes its folder's: not "Private".
		t.Run(name, func(t *testing.T) {
			sv := newScopedVault(t)
			if err := os.WriteFile(filepath.Join(sv.root, "Private", "CLAUDE.md"), []byte("SECRETWORD rules\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			links := map[string]string{
				"Journal/alias.md":  "../Private/Secret Plan.md",
				"Journal/CLAUDE.md": "../Private/CLAUDE.md",
				"Journal/git.md":    "../.git/config",
				"Journal/private":   "../Private",
			}
			for rel, target := range links {
				if err := os.Symlink(target, filepath.Join(sv.root, filepath.FromSlash(rel))); err != nil {
					t.Skip("no symlinks:", err)
				}
			}
			sv.ix.Refresh([]string{"Journal"})
			// .git/config's own words, which only a read of it could show.
			secrets := append(secrets, "repositoryformatversion", "filemode")
			leaked := func(text string) []string {
				var out []string
				for _, s := range secrets {
					if strings.Contains(text, s) {
						out = append(out, s)
					}
				}
				return out
			}
			ctx := access.With(context.Background(), access.MustNew("test", rules))
			// Searches and listings that find by content or list all.
			for _, c := range []struct{ tool, args string }{
				{"grep", `{"query": "lives here"}`},
				{"grep", `{"query": "formatversion"}`},
				{"grep", `{"query": "lives here", "path": "Journal"}`},
				{"search_notes", `{"query": "lives here"}`},
				{"search_notes", `{"query": "formatversion"}`},
				{"get_tags", `{}`},
				{"get_tags", `{"path": "Journal/alias.md"}`},
				{"get_backlinks", `{"note_name": "Home"}`},
				{"get_backlinks", `{"path": "Home.md"}`},
				{"find_links", `{"path": "Home.md", "direction": "both"}`},
				{"list_directory", `{"path": "Journal", "recursive": true}`},
				{"list_directory", `{"path": "", "recursive": true}`},
				{"search_files", `{"pattern": "**/*"}`},
				{"find_files", `{"path": "Journal"}`},
				{"query_notes", `{}`},
				{"get_statistics", `{}`},
				{"get_vault_info", `{}`},
				{"get_claude_context", `{"path": "Journal"}`},
				{"get_claude_context", `{"path": "Journal/2024-01-01.md"}`},
				{"read_file", `{"path": "Journal/alia.md"}`}, // did you mean …?
			} {
				text, _ := sv.call(ctx, c.tool, c.args)
				if l := leaked(text); len(l) > 0 {
					t.Errorf("%s %s leaks %q: %s", c.tool, c.args, l, text)
				}
				if strings.Contains(text, "alias.md") && c.tool != "get_tags" {
					t.Errorf("%s %s names the link into Private: %s", c.tool, c.args, text)
				}
			}
			list, _ := json.Marshal(sv.rpc(ctx, "resources/list", `{}`))
			if l := leaked(string(list)); len(l) > 0 || strings.Contains(string(list), "alias.md") || strings.Contains(string(list), "git.md") {
				t.Errorf("resources/list shows a link into Private or .git (%q): %s", l, list)
			}
			for _, uri := range []string{NoteURI("Journal/alias.md"), NoteURI("Journal/git.md"), NoteURI("Journal/private/Secret Plan.md")} {
				read, _ := json.Marshal(sv.rpc(ctx, "resources/read", fmt.Sprintf(`{"uri": %q}`, uri)))
				if l := leaked(string(read)); len(l) > 0 {
					t.Errorf("resources/read %s leaks %q: %s", uri, l, read)
				}
			}
			for _, params := range []string{
				`{"ref": {"type": "ref/resource", "uri": "vault:///{+path}"}, "argument": {"name": "path", "value": "Journal/"}}`,
				`{"ref": {"type": "ref/prompt", "name": "obsidian-create-note"}, "argument": {"name": "tags", "value": "priv"}}`,
			} {
				comp, _ := json.Marshal(sv.rpc(ctx, "completion/complete", params))
				if l := leaked(string(comp)); len(l) > 0 || strings.Contains(string(comp), "alias.md") {
					t.Errorf("completion %s shows the link (%q): %s", params, l, comp)
				}
			}
			// Last, as it changes the vault: every tool, its required
			// arguments pointed at each link.
			for _, tool := range sv.toolList(ctx) {
				for _, target := range []string{"Journal/alias.md", "alias", "Journal/private/Secret Plan.md", "Journal/git.md", "Journal/CLAUDE.md", "Journal"} {
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
					if text, _ := sv.call(ctx, tool.Name, string(raw)); len(leaked(withoutArgs(text, string(raw)))) > 0 {
						t.Errorf("%s %s leaks %q: %s", tool.Name, raw, leaked(withoutArgs(text, string(raw))), text)
					}
				}
			}
		})
	}
}
