package gitsync

import (
	"context"
	"testing"
)

// TestCommitAuthoredForClient: a change made with WithAuthor is authored
// by the client's credential, with its trailers; the committer stays the
// server, and changes made without one keep the configured author.
func TestCommitAuthoredForClient(t *testing.T) {
	dir := t.TempDir()
	r := openRepo(t, Options{Dir: dir, AuthorName: "server", AuthorEmail: "server@host"})
	ctx := WithAuthor(context.Background(), Author{Name: "alice <x>", Trailers: []Trailer{
		{CredentialTrailer, "oauth:alice"}, {ClientTrailer, "claude-ai\n1.0"},
	}})
	writeFile(t, dir, "a.md", "a\n")
	if _, err := r.Commit(ctx, "write a.md", []string{"a.md"}); err != nil {
		t.Fatal(err)
	}
	got := git(t, dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%B")
	want := "alice x <alice-x@vaultmcp.invalid>|server <server@host>|MCP: write a.md\n\nVaultmcp-Credential: oauth:alice\nVaultmcp-Client: claude-ai 1.0"
	if got != want {
		t.Errorf("commit:\n%s\nwant\n%s", got, want)
	}
	if trailers := git(t, dir, "log", "-1", "--format=%(trailers:key=Vaultmcp-Client,valueonly)"); trailers != "claude-ai 1.0" {
		t.Errorf("git reads the client trailer as %q", trailers)
	}
	record(t, r, "write b.md", "b.md", "b\n")
	if got := git(t, dir, "log", "-1", "--format=%an|%B"); got != "server|MCP: write b.md" {
		t.Errorf("a change without an author: %q", got)
	}
	h, err := r.NoteHistory(ctx, NoteHistoryOptions{Path: "a.md", Author: "alice"})
	if err != nil || len(h.Versions) != 1 || h.Versions[0].Author != "alice x" {
		t.Errorf("history of a.md by alice: %+v %v", h, err)
	}
}
