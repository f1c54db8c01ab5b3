package tools_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/tools"
	"vaultmcp/vault"
)

// TestNewNameAnswers shows what the tools that create paths answer about
// names: clashes and names Windows cannot hold are refused, a note is not
// renamed out of being one, and a file written or renamed out of being a
// note says so.
func TestNewNameAnswers(t *testing.T) {
	h := newIndexHarness(t, map[string]string{
		"résumé.md":            "[[Projets/été/a]]\n",
		"Projets/été/a.md":     "a\n",
		"Zettel/Bayes naïf.md": "[[résumé]]\n",
	})
	refused := []struct {
		tool, args string
		want       []string
	}{
		{"write_file", `{"path":"RÉSUMÉ.md","content":"stub"}`, []string{"Cannot create RÉSUMÉ.md: it already exists as résumé.md", "collide on macOS and Windows", "write to résumé.md instead"}},
		{"write_file", `{"path":"projets/été 2026/Nouveau.md","content":"x","mode":"append"}`, []string{"the folder projets already exists as Projets", "write to Projets/été 2026/Nouveau.md instead"}},
		{"create_directory", `{"path":"PROJETS/new"}`, []string{"already exists as Projets"}},
		{"rename_file", `{"old_path":"Projets/été/a.md","new_path":"Résumé.md"}`, []string{"already exists as résumé.md"}},
		{"rename_file", `{"old_path":"Zettel/Bayes naïf.md","new_path":"Zettel/Bayes naïf"}`, []string{"is a note", "Rename it to Zettel/Bayes naïf.md instead"}},
		{"write_file", `{"path":"Inbox/NUL.md","content":"x"}`, []string{"reserved by Windows"}},
		{"write_file", `{"path":"Inbox/Q: why?.md","content":"x"}`, []string{"Windows does not allow"}},
		{"write_file", `{"path":"Inbox/trailing. ","content":"x"}`, []string{"ends in a dot or a space"}},
	}
	for _, tt := range refused {
		h.fails(tt.tool, tt.args, tt.want...)
	}
	for _, rel := range []string{"RÉSUMÉ.md", "projets", "PROJETS", "Inbox"} {
		if _, err := os.Lstat(filepath.Join(h.root, rel)); err == nil {
			t.Errorf("a refused change left %s behind", rel)
		}
	}

	answers := []struct {
		tool, args, want string
	}{
		{"write_file", `{"path":"Inbox/Sans extension","content":"x"}`, "; written as a plain file, not a note: names without .md are not indexed (for a note, use Inbox/Sans extension.md)"},
		{"write_file", `{"path":"Inbox/photo.png","content":"x"}`, "Created Inbox/photo.png (1 byte)"},
		{"write_file", `{"path":"Inbox/note.md","content":"x"}`, "Created Inbox/note.md (1 byte)"},
		{"rename_file", `{"old_path":"Zettel/Bayes naïf.md","new_path":"Zettel/Bayes naïf.txt"}`, "; Zettel/Bayes naïf.txt is now a plain file, not a note: names without .md are not indexed"},
		{"rename_file", `{"old_path":"résumé.md","new_path":"Résumé.md"}`, "Renamed résumé.md -> Résumé.md"},
	}
	for _, tt := range answers {
		if got := h.ok(tt.tool, tt.args); !strings.HasSuffix(got, tt.want) && !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s %s: %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}

// TestDailyNoteClash: a daily note whose folder exists in another case is
// refused with the clash, not reported as created or silently missing.
func TestDailyNoteClash(t *testing.T) {
	g := newNotesVault(t, map[string]string{
		".obsidian/daily-notes.json": `{"folder": "Journal"}`,
		"journal/2026-01-05.md":      "old\n",
	})
	n := g.commits()
	_, err := tools.NewDailyNote(context.Background(), g.d, tools.DailyNoteArgs{Date: "2026-01-06"})
	if !errors.Is(err, vault.ErrExists) || !strings.Contains(err.Error(), "already exists as journal") {
		t.Errorf("create in a case-variant folder: %v", err)
	}
	if g.commits() != n {
		t.Error("a refused daily note was committed")
	}
}
