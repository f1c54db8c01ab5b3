package httpserver

import (
	"strings"
	"testing"
)

// TestCommitsNameTheirCredential: a change over /mcp is authored by the
// token that made it, with the MCP client's name and the credential as
// trailers; one over the REST API names the REST client; the committer
// stays the server; a configured email replaces the made-up one; the
// audit log names the author of each call.
func TestCommitsNameTheirCredential(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.AuthorEmails = map[string]string{"journal": "j@example.org"} })
	c := e.mcpClient(e.tokens["full"])
	if text, isErr := callTool(t, c, "write_file", map[string]any{"path": "by-mcp.md", "content": "x\n"}); isErr {
		t.Fatal(text)
	}
	e.srv.opts.Deps.Git.FlushIndex()
	got := git(t, e.root, "log", "-1", "--format=%an <%ae>|%cn|%(trailers:key=Vaultmcp-Client,valueonly,separator=)|%(trailers:key=Vaultmcp-Credential,valueonly,separator=)")
	if want := "full <full@vaultmcp.invalid>|vaultmcp|t 0|token:full"; got != want {
		t.Errorf("MCP commit: %q, want %q", got, want)
	}
	if resp, body := e.do("PUT", "/api/notes/Journal/by-rest.md", `{"content":"y\n"}`, bearer(e.tokens["journal"])...); resp.StatusCode != 200 {
		t.Fatalf("PUT: %d %v", resp.StatusCode, body)
	}
	if log := e.audit.String(); !strings.Contains(log, `"author":"journal"`) || !strings.Contains(log, `"author":"full"`) {
		t.Errorf("the audit log does not name the authors:\n%s", log)
	}
	e.srv.opts.Deps.Git.FlushIndex()
	got = git(t, e.root, "log", "-1", "--format=%an <%ae>|%(trailers:key=Vaultmcp-Client,valueonly,separator=)|%(trailers:key=Vaultmcp-Credential,valueonly,separator=)")
	if want := "journal <j@example.org>|REST API Go-http-client/1.1|token:journal"; got != want {
		t.Errorf("REST commit: %q, want %q", got, want)
	}
}
