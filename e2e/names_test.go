package e2e

import (
	"strings"
	"testing"

	"vaultmcp/internal/testutil"
)

// TestNewNamesRefused drives every tool that creates a path through the
// built binary against names that would break the vault on macOS or
// Windows: a case variant of an existing file or folder, a device name, a
// forbidden character, a note renamed out of being a note. Each is refused
// naming the existing path, and nothing reaches the disk, the history or
// the remote; the deliberate changes beside them (a case-only rename of a
// note itself, a plain file without an extension) go through and say
// what they did.
func TestNewNamesRefused(t *testing.T) {
	t.Parallel()
	v, remote := newRemoteVault(t, map[string]string{
		"résumé.md":                  "# Résumé\n",
		"Projets/été/plan.md":        "plan\n",
		"Zettel/Bayes naïf.md":       "See [[Résumé]].\n",
		"Inbox/draft.md":             "draft\n",
		"journal/2026-01-05.md":      "old day\n",
		".obsidian/daily-notes.json": `{"folder": "Journal"}`,
	})
	s := startSession(t, v, withEnv("VAULTMCP_GIT_REMOTE="+remote, "VAULTMCP_GIT_SYNC_INTERVAL=300ms"))

	// Settle the remote first, so that nothing moves while refusals run.
	s.ok(t, "write_file", map[string]any{"path": "Inbox/first.md", "content": "first\n"})
	testutil.WaitFor(t, "the first push", func() bool { return remoteLog(t, remote)[0] == "MCP: write Inbox/first.md" })
	before := v.snapshot(t)

	refused := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"write_file", map[string]any{"path": "RÉSUMÉ.md", "content": "stub\n"},
			[]string{"already exists as résumé.md", "collide on macOS and Windows", "write to résumé.md instead"}},
		{"write_file", map[string]any{"path": "RÉSUMÉ.md", "content": "stub\n", "mode": "create"}, []string{"already exists as résumé.md"}},
		{"write_file", map[string]any{"path": "RÉSUMÉ.md", "content": "stub\n", "mode": "append"}, []string{"already exists as résumé.md"}},
		{"write_file", map[string]any{"path": "projets/été 2026/Nouveau.md", "content": "x\n"},
			[]string{"the folder projets already exists as Projets", "write to Projets/été 2026/Nouveau.md instead"}},
		{"create_directory", map[string]any{"path": "PROJETS/Été"}, []string{"already exists as Projets"}},
		{"create_directory", map[string]any{"path": "Projets/ÉTÉ"}, []string{"already exists as Projets/été"}},
		{"rename_file", map[string]any{"old_path": "Inbox/draft.md", "new_path": "Résumé.md"}, []string{"already exists as résumé.md"}},
		{"rename_file", map[string]any{"old_path": "Zettel/Bayes naïf.md", "new_path": "Zettel/Bayes naïf"},
			[]string{"is a note", "Rename it to Zettel/Bayes naïf.md instead"}},
		{"create_daily_note", map[string]any{"date": "2026-01-06"}, []string{"the folder Journal already exists as journal"}},
		{"write_file", map[string]any{"path": "Inbox/nul.md", "content": "x\n"}, []string{"reserved by Windows"}},
		{"write_file", map[string]any{"path": "LPT1/x.md", "content": "x\n"}, []string{"reserved by Windows"}},
		{"write_file", map[string]any{"path": "Inbox/Q: why?.md", "content": "x\n"}, []string{"does not allow"}},
		{"write_file", map[string]any{"path": "Inbox/etc.", "content": "x\n"}, []string{"ends in a dot or a space"}},
		{"rename_file", map[string]any{"old_path": "Inbox/draft.md", "new_path": "Inbox/draft |2.md"}, []string{"does not allow"}},
	}
	for _, r := range refused {
		msg := s.fail(t, r.tool, r.args)
		wantContains(t, r.tool+" refusal", msg, r.want...)
	}
	v.unchanged(t, before)

	// The link still finds the one résumé.
	if got := s.ok(t, "get_backlinks", map[string]any{"path": "résumé.md"}); !strings.Contains(got, "Zettel/Bayes naïf.md") {
		t.Errorf("backlinks of résumé.md: %s", got)
	}

	got := s.ok(t, "rename_file", map[string]any{"old_path": "résumé.md", "new_path": "Résumé.md"})
	wantContains(t, "case-only rename", got, "Renamed résumé.md -> Résumé.md")
	got = s.ok(t, "write_file", map[string]any{"path": "Inbox/Sans extension", "content": "plain\n"})
	wantContains(t, "write without extension", got, "Created Inbox/Sans extension", "written as a plain file, not a note: names without .md are not indexed")
	testutil.WaitFor(t, "the last push", func() bool { return remoteLog(t, remote)[0] == "MCP: write Inbox/Sans extension" })
	log := remoteLog(t, remote)
	if len(log) < 3 || !strings.HasPrefix(log[1], "MCP: rename résumé.md -> Résumé.md") || log[2] != "MCP: write Inbox/first.md" {
		t.Errorf("remote history = %q, want the two allowed changes right after the first write and nothing else", log)
	}
	if v.exists("résumé.md") || !v.exists("Résumé.md") {
		t.Error("the case-only rename did not leave exactly Résumé.md")
	}
}
