package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestHTTPScopedSymlinks serves, to a token allowed only Public, a vault
// whose Public folder holds Public/alias.md -> ../Private/secret.md from
// before the start, and gets Public/git.md -> ../.git/config and
// Public/late.md -> ../Private/secret.md while the server runs (the
// watcher reports them). No search, listing, link tool, resource or read
// may show the secret's text, tags or the links' names, nor .git's
// config — not even to an unrestricted token for .git — and the same
// holds after a restart, when the index is built with the links in place.
func TestHTTPScopedSymlinks(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{
		"Public/Hub.md":     "# Hub\n",
		"Public/n.md":       "public note [[Hub]] #pub\n",
		"Private/secret.md": "SECRETWORD lives here [[Hub]] #secrettag\n",
	})
	v.gitRun(t, "config", "e2e.marker", "GITSECRET")
	v.symlink(t, "Public/alias.md", "../Private/secret.md")
	v.commitAll(t, "a link into Private")
	pubTok, pubHash := createToken(t, "public")
	allTok, allHash := createToken(t, "all")
	tokens := fmt.Sprintf(`[{"name": "public", "hash": %q, "allow": ["Public"]}, {"name": "all", "hash": %q}]`, pubHash, allHash)
	opts := []serverOption{withEnv("VAULTMCP_HTTP_TOKENS=" + tokens)}
	// What neither token may ever see: the secret's words and tag, .git's
	// config; and what the Public token may not see: the links' names.
	secrets := []string{"SECRETWORD", "secrettag", "GITSECRET", "Private"}
	names := []string{"alias.md", "late.md", "git.md"}

	check := func(t *testing.T, srv *httpServer, phase string) {
		t.Helper()
		pub := srv.session(t, pubTok)
		all := srv.session(t, allTok)
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"grep", map[string]any{"query": "lives here"}},
			{"grep", map[string]any{"query": "marker ="}},
			{"grep", map[string]any{"query": "lives here", "path": "Public"}},
			{"search_notes", map[string]any{"query": "lives here"}},
			{"get_tags", map[string]any{}},
			{"get_backlinks", map[string]any{"note_name": "Hub"}},
			{"find_links", map[string]any{"path": "Public/Hub.md"}},
			{"list_directory", map[string]any{"path": "Public"}},
			{"list_directory", map[string]any{"path": "", "recursive": true}},
			{"search_files", map[string]any{"pattern": "**/*"}},
			{"find_files", map[string]any{"path": "Public"}},
			{"query_notes", map[string]any{}},
		} {
			out := pub.ok(t, c.tool, c.args)
			for _, s := range append(secrets, names...) {
				if strings.Contains(out, s) {
					t.Errorf("%s: %s %v with a Public token shows %q:\n%s", phase, c.tool, c.args, s, out)
				}
			}
			// An unrestricted token sees the link into Private, but
			// nothing of .git through a link.
			if out := all.ok(t, c.tool, c.args); strings.Contains(out, "GITSECRET") || strings.Contains(out, "git.md") {
				t.Errorf("%s: %s %v with an unrestricted token shows .git through a link:\n%s", phase, c.tool, c.args, out)
			}
		}
		for _, p := range []string{"Public/alias.md", "Public/late.md", "Public/git.md"} {
			if !v.exists(p) {
				continue
			}
			msg := pub.fail(t, "read_file", map[string]any{"path": p})
			if strings.Contains(msg, "SECRETWORD") || strings.Contains(msg, "GITSECRET") || !strings.Contains(msg, "denied") {
				t.Errorf("%s: read_file %s with a Public token: %q", phase, p, msg)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		list, err := pub.c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.Resources {
			for _, s := range append(secrets, names...) {
				if strings.Contains(r.URI, s) {
					t.Errorf("%s: resources/list with a Public token holds %s", phase, r.URI)
				}
			}
		}
		for _, p := range []string{"Public/alias.md", "Public/late.md", "Public/git.md"} {
			var req mcp.ReadResourceRequest
			req.Params.URI = "vault:///" + p
			res, err := pub.c.ReadResource(ctx, req)
			if err == nil {
				t.Errorf("%s: resources/read %s with a Public token: %+v", phase, p, res.Contents)
			} else if strings.Contains(err.Error(), "SECRETWORD") || strings.Contains(err.Error(), "GITSECRET") {
				t.Errorf("%s: resources/read %s: %v", phase, p, err)
			}
		}
	}

	srv := startHTTP(t, v, opts...)
	check(t, srv, "at start")

	// Links made while the server runs, then a note after them: once
	// the note is indexed, the watcher has reported the links too.
	v.symlink(t, "Public/git.md", "../.git/config")
	v.symlink(t, "Public/late.md", "../Private/secret.md")
	v.write(t, "Public/marker.md", "[[Hub]]\n")
	eventually(t, srv.session(t, allTok), "Hub", "Public/marker.md")
	check(t, srv, "after links were made")

	if err := srv.stop(t); err != nil {
		t.Fatalf("server exit: %v", err)
	}
	srv = startHTTP(t, v, opts...)
	check(t, srv, "after a restart")
}
