package vault

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		want string // part of the error; "" = accepted
	}{
		{"Note.md", ""},
		{"résumé.md", ""},
		{"2026-03-09.md", ""},
		{"Meeting (2).md", ""},
		{"#tag & [brackets].md", ""},
		{".gitignore", ""},
		{"CONTEXT.md", ""}, // starts like CON, is not CON
		{"console", ""},
		{"COM10.md", ""},
		{"LPT0", ""},
		{"con.md", "reserved by Windows"},
		{"CON", "reserved by Windows"},
		{"Nul.txt", "reserved by Windows"},
		{"aux.tar.gz", "reserved by Windows"},
		{"PRN .md", "reserved by Windows"},
		{"com1", "reserved by Windows"},
		{"LPT9.md", "reserved by Windows"},
		{"com²", "reserved by Windows"},
		{"Note.", "ends in a dot or a space"},
		{"Note ", "ends in a dot or a space"},
		{"...", "ends in a dot or a space"},
		{"a:b.md", `contains ':'`},
		{"why?.md", `contains '?'`},
		{"a*b", `contains '*'`},
		{`say "hi".md`, `contains '"'`},
		{"a<b>.md", `contains '<'`},
		{"a|b.md", `contains '|'`},
		{`folder\note.md`, "backslash"},
		{"tab\there.md", "control character"},
		{"bell\a.md", "control character"},
	}
	for _, tt := range tests {
		err := checkName("x/"+tt.name, tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q: refused: %v", tt.name, err)
		case tt.want != "" && err == nil:
			t.Errorf("%q: accepted, want an error containing %q", tt.name, tt.want)
		case tt.want != "":
			if !errors.Is(err, ErrInvalidPath) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "x/"+tt.name) {
				t.Errorf("%q: error %q, want ErrInvalidPath containing %q and the path", tt.name, err, tt.want)
			}
		}
	}
}

func TestHasExtension(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"a.md", true}, {"photo.JPEG", true}, {"clip.mp4", true}, {"x.canvas", true}, {".gitignore", true},
		{"Bayes naïf", false}, {"Meeting 2.5", false}, {"v1.0 draft", false}, {"a.", false},
		{"a.verylongextension", false}, {"a.é", false}, {"Inbox/Sans extension", false}, {"dir.d/file", false},
	}
	for _, tt := range tests {
		if got := HasExtension(tt.name); got != tt.want {
			t.Errorf("HasExtension(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCreateRefusesClashes drives every entry point that creates a path
// against names that clash with existing ones up to case and Unicode form,
// or that Windows cannot hold: each is refused naming the existing path,
// and nothing is written or recorded.
func TestCreateRefusesClashes(t *testing.T) {
	ctx := context.Background()
	nfd := norm.NFD.String
	write := func(mode WriteMode) func(v *Vault, p string) error {
		return func(v *Vault, p string) error {
			_, err := v.WriteFileMode(ctx, p, []byte("stub\n"), mode)
			return err
		}
	}
	create := func(v *Vault, p string) error {
		_, err := v.CreateFile(ctx, p, func(rel string) string { return "create " + rel }, []byte("stub\n"))
		return err
	}
	mkdirOp := func(v *Vault, p string) error {
		_, _, err := v.CreateDirectory(ctx, p)
		return err
	}
	renameTo := func(v *Vault, p string) error {
		_, err := v.RenameFile(ctx, "Inbox/draft.md", p, nil)
		return err
	}
	ops := []struct {
		name string
		do   func(v *Vault, p string) error
	}{
		{"write overwrite", write(Overwrite)},
		{"write create", write(CreateOnly)},
		{"write append", write(Append)},
		{"create file", create},
		{"create directory", mkdirOp},
		{"rename target", renameTo},
	}
	tests := []struct {
		path     string
		kind     error
		existing string // named in the message
		instead  string
	}{
		{"RÉSUMÉ.md", ErrExists, "résumé.md", "write to résumé.md instead"},
		{nfd("RÉSUMÉ.md"), ErrExists, "résumé.md", "write to résumé.md instead"},
		{"Résumé.md", ErrExists, "résumé.md", "only in case or Unicode form"},
		{"projets/été 2026/Nouveau.md", ErrExists, "Projets", "write to Projets/été 2026/Nouveau.md instead"},
		{"Projets/" + nfd("Été") + "/x.md", ErrExists, "Projets/été", "write to Projets/été/x.md instead"},
		{"inbox/new.md", ErrExists, "Inbox", "the folder inbox already exists as Inbox"},
		{"Projets/CON.md", ErrInvalidPath, "CON.md", "reserved by Windows"},
		{"aux/x.md", ErrInvalidPath, "aux", "reserved by Windows"},
		{"Notes./x.md", ErrInvalidPath, "Notes.", "ends in a dot"},
		{"Q: why?.md", ErrInvalidPath, "Q: why?.md", "contains ':'"},
		{`Projets\x.md`, ErrInvalidPath, "backslash", "separate folders with /"},
		{"Target.md/x.md", ErrInvalidPath, "Target.md would be a new folder", "did you mean Target/x.md?"},
		{"Projets/A.MD/b.md/x.md", ErrInvalidPath, "Projets/A.MD would be a new folder", "did you mean Projets/A/b/x.md?"},
	}
	for _, op := range ops {
		v, root := newTestVault(t, Options{})
		recorded := 0
		v.SetRecorder(recorderFunc(func(string, []string) (string, error) { recorded++; return "c1", nil }))
		mkfile(t, root, nfd("résumé.md"), "the real one\n")
		mkfile(t, root, "Projets/été/a.md", "a\n")
		mkfile(t, root, "Inbox/draft.md", "draft\n")
		v.dropping.Wait() // earlier changes' backups are removed in the background
		before := snapshot(t, root)
		for _, tt := range tests {
			err := op.do(v, tt.path)
			checkClientError(t, err, tt.kind, tt.path, root)
			// Existing names are shown as stored (here in NFD).
			if msg := norm.NFC.String(errText(err)); err != nil && (!strings.Contains(msg, tt.existing) || !strings.Contains(msg, tt.instead)) {
				t.Errorf("%s %q: error %q, want it to name %q and say %q", op.name, tt.path, err, tt.existing, tt.instead)
			}
		}
		sameSnapshot(t, before, snapshot(t, root))
		if recorded != 0 {
			t.Errorf("%s: %d change(s) recorded by refused writes", op.name, recorded)
		}
	}
}

// TestCreateAllowed shows what the clash check lets through: the existing
// spelling (in either Unicode form), new names beside existing ones, a
// case-only rename of a file itself, and writes to existing files whose
// names the check would refuse today.
func TestCreateAllowed(t *testing.T) {
	ctx := context.Background()
	v, root := newTestVault(t, Options{})
	mkfile(t, root, norm.NFD.String("résumé.md"), "old\n")
	mkfile(t, root, "Projets/a.md", "a\n")
	mkfile(t, root, "Legacy/CON.md", "from a Linux-only past\n")
	steps := []struct {
		name string
		do   func() (string, error) // the path that must now exist
	}{
		{"existing file, other Unicode form", func() (string, error) {
			w, err := v.WriteFile(ctx, "résumé.md", []byte("new\n"))
			return w.Path.Rel, err
		}},
		{"into the existing folder", func() (string, error) {
			w, err := v.WriteFile(ctx, "Projets/été 2026/Nouveau.md", []byte("x\n"))
			return w.Path.Rel, err
		}},
		{"a new name beside", func() (string, error) {
			w, err := v.WriteFile(ctx, "Projets/résumé 2.md", []byte("x\n"))
			return w.Path.Rel, err
		}},
		{"existing reserved name", func() (string, error) {
			w, err := v.WriteFile(ctx, "Legacy/CON.md", []byte("still writable\n"))
			return w.Path.Rel, err
		}},
		{"case-only rename of itself", func() (string, error) {
			w, err := v.RenameFile(ctx, "résumé.md", "Résumé.md", nil)
			return w.Path.Rel, err
		}},
		{"into an existing folder named like a note", func() (string, error) {
			if err := os.Mkdir(filepath.Join(root, "Old.md"), 0o755); err != nil {
				t.Fatal(err)
			}
			w, err := v.WriteFile(ctx, "Old.md/x.md", []byte("x\n"))
			return w.Path.Rel, err
		}},
		{"a folder named like a note on purpose", func() (string, error) {
			p, _, err := v.CreateDirectory(ctx, "Projets/Box.md")
			return p.Rel, err
		}},
		{"a folder with a dot", func() (string, error) {
			w, err := v.WriteFile(ctx, "v1.2/notes.md", []byte("x\n"))
			return w.Path.Rel, err
		}},
		{"existing folder", func() (string, error) {
			p, created, err := v.CreateDirectory(ctx, "Projets")
			if created {
				t.Error("CreateDirectory(Projets) created it again")
			}
			return p.Rel, err
		}},
	}
	for _, s := range steps {
		rel, err := s.do()
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if !exists(root, rel) {
			t.Errorf("%s: %s does not exist", s.name, rel)
		}
	}
	if exists(root, norm.NFD.String("résumé.md")) {
		t.Error("the case-only rename left the old name behind")
	}
}

func TestRenameNoteWithoutExtension(t *testing.T) {
	ctx := context.Background()
	v, root := newTestVault(t, Options{})
	mkfile(t, root, "Zettel/Bayes naïf.md", "[[x]]\n")
	mkfile(t, root, "Files/LICENSE", "text\n")
	v.dropping.Wait() // earlier changes' backups are removed in the background
	before := snapshot(t, root)
	for _, target := range []string{"Zettel/Bayes naïf", "Zettel/Bayes 2.5", "Other/Bayes naïf"} {
		_, err := v.RenameFile(ctx, "Zettel/Bayes naïf.md", target, nil)
		checkClientError(t, err, ErrInvalidPath, target, root)
		if err != nil && !strings.Contains(err.Error(), "Rename it to "+target+".md instead") {
			t.Errorf("%s: error %q does not suggest %s.md", target, err, target)
		}
	}
	sameSnapshot(t, before, snapshot(t, root))
	// Deliberate changes stay possible: an extension, or a file that was
	// never a note.
	for _, r := range [][2]string{{"Zettel/Bayes naïf.md", "Zettel/Bayes naïf.txt"}, {"Files/LICENSE", "Files/COPYING"}} {
		if _, err := v.RenameFile(ctx, r[0], r[1], nil); err != nil {
			t.Errorf("rename %s -> %s: %v", r[0], r[1], err)
		}
	}
}

// FuzzCheckName checks that a name checkName accepts holds nothing
// Windows refuses, and that every refusal is a client error naming the
// path.
func FuzzCheckName(f *testing.F) {
	for _, s := range []string{"Note.md", "CON", "lpt3.txt", "a:b", "x.", "x ", "tab\t", "résumé.md", "com¹.md", `a\b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) || name == "" || strings.Contains(name, "/") {
			return
		}
		err := checkName("dir/"+name, name)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) || !strings.Contains(err.Error(), "dir/"+name) {
				t.Fatalf("%q: error %q", name, err)
			}
			return
		}
		if strings.ContainsAny(name, forbiddenChars) || strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
			t.Fatalf("%q accepted", name)
		}
		for _, r := range name {
			if r < 0x20 {
				t.Fatalf("%q accepted with a control character", name)
			}
		}
		stem, _, _ := strings.Cut(name, ".")
		if windowsReserved[strings.ToLower(strings.TrimRight(stem, " "))] {
			t.Fatalf("%q accepted: a device name", name)
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
