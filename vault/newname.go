package vault

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// The vault is checked out on Linux, macOS and Windows (Obsidian desktop
// with obsidian-git), so a name this server creates must be one every one
// of them can hold. Linux takes almost anything; the others refuse or
// merge names, and a vault holding such a name breaks at checkout there:
// two names that differ only in case (or Unicode form) become one file on
// macOS and Windows, and one silently overwrites the other. These rules
// apply only to names being created: a file that already has such a name
// stays readable and writable.

// windowsReserved are the device names Windows refuses as file names, with
// or without an extension, in any case.
var windowsReserved = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true,
	"com6": true, "com7": true, "com8": true, "com9": true,
	"com¹": true, "com²": true, "com³": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true,
	"lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
	"lpt¹": true, "lpt²": true, "lpt³": true,
}

// forbiddenChars are the characters Windows refuses in a name ('/' cannot
// reach here: it separates components). Obsidian refuses '\' and ':' in
// note names too.
const forbiddenChars = `\<>:"|?*`

// checkName refuses a name that Windows cannot hold. given is the path as
// the client wrote it, for the message.
func checkName(given, name string) error {
	for _, r := range name {
		switch {
		case r == '\\':
			return newError(ErrInvalidPath, given, "Cannot create %s: the name %q contains a backslash, which Windows reads as a folder separator; separate folders with / (e.g. \"folder/note.md\")", given, name)
		case strings.ContainsRune(forbiddenChars, r):
			return newError(ErrInvalidPath, given, "Cannot create %s: the name %q contains %q, which Windows does not allow in file names (nor any of %s); the vault could not be checked out there", given, name, r, forbiddenChars)
		case r < 0x20 || r == 0x7f:
			return newError(ErrInvalidPath, given, "Cannot create %s: the name %q contains a control character (%U)", given, name, r)
		}
	}
	if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return newError(ErrInvalidPath, given, "Cannot create %s: the name %q ends in a dot or a space, which Windows drops from file names; the vault could not be checked out there", given, name)
	}
	stem, _, _ := strings.Cut(name, ".")
	if windowsReserved[strings.ToLower(strings.TrimRight(stem, " "))] {
		return newError(ErrInvalidPath, given, "Cannot create %s: %s is a device name reserved by Windows (CON, PRN, AUX, NUL, COM1–COM9, LPT1–LPT9, with any extension); the vault could not be checked out there. Choose another name", given, name)
	}
	return nil
}

// checkNoteNamedFolders refuses to make a folder named like a note on the
// way to a path (parts[i:len(parts)-1], the folders this change creates):
// `write_file Target.md/x.md` meant Target/x.md, or a note beside
// Target.md, almost always, and a folder named Target.md looks like a
// note in Obsidian's file list while no link can reach it. A folder
// already named so is used as it is, and create_directory may still name
// its last folder so on purpose.
func checkNoteNamedFolders(given string, parts []string, i int) error {
	for j := i; j < len(parts)-1; j++ {
		if !IsNote(parts[j]) {
			continue
		}
		instead := slices.Clone(parts)
		for k := i; k < len(parts)-1; k++ {
			if IsNote(instead[k]) {
				instead[k] = strings.TrimSuffix(instead[k], path.Ext(instead[k]))
			}
		}
		return newError(ErrInvalidPath, given, "Cannot create %s: %s would be a new folder, but its name ends in .md like a note's; did you mean %s?",
			given, path.Join(parts[:j+1]...), path.Join(instead...))
	}
	return nil
}

// sameName reports whether two names are one on a case-insensitive file
// system (macOS, Windows): equal after Unicode normalisation and case
// folding.
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	return strings.EqualFold(NFC(a), NFC(b))
}

// checkNew is the one check every change that creates a path goes
// through (a written file, a rename's target, a new folder). rel is the
// canonical vault-relative path, spelled as on disk up to its first
// missing component (as Resolve returns it); given is the client's
// spelling, for messages. Every missing component must be a name Windows
// can hold, and the first one must not clash with an existing sibling
// that differs from it only in case or Unicode form. Components below the
// first missing one go into folders this change creates, which are empty,
// so one directory is read in all. self, when not "", is the
// vault-relative path of the file being renamed: a case variant of itself
// is a deliberate rename, not a clash.
func (v *Vault) checkNew(given, rel, self string) error {
	if rel == "" {
		return nil
	}
	parts := strings.Split(rel, "/")
	dir := v.root
	for i, part := range parts {
		abs := filepath.Join(dir, part)
		_, err := os.Lstat(abs)
		if err == nil {
			dir = abs
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			// A parent that is a file, or unreadable: the operation
			// itself reports it with the right wording.
			return nil
		}
		for _, name := range parts[i:] {
			if err := checkName(given, name); err != nil {
				return err
			}
		}
		if err := checkNoteNamedFolders(given, parts, i); err != nil {
			return err
		}
		return v.checkClash(given, parts, i, dir, self)
	}
	return nil
}

// checkClash refuses to create parts[i] in dir (the folder parts[:i]
// names) when a sibling has the same name up to case and Unicode form.
func (v *Vault) checkClash(given string, parts []string, i int, dir, self string) error {
	f, err := os.Open(dir)
	if err != nil {
		return nil // the operation reports an unreadable folder itself
	}
	// Readdirnames neither sorts nor stats: a folder of 10,000 notes costs
	// one pass over its names.
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil
	}
	want := parts[i]
	var clash []string
	for _, name := range names {
		if name == want || IsTemp(name) || !sameName(name, want) {
			continue
		}
		existing := path.Join(path.Join(parts[:i]...), name)
		if existing == self {
			continue
		}
		clash = append(clash, existing)
	}
	if len(clash) == 0 {
		return nil
	}
	slices.Sort(clash) // the same answer on every call
	existing := clash[0]
	instead := path.Join(append([]string{existing}, parts[i+1:]...)...)
	differ := "only in case"
	if !strings.EqualFold(want, path.Base(existing)) {
		differ = "only in case or Unicode form"
	}
	what := "it"
	if i < len(parts)-1 {
		what = "the folder " + path.Join(parts[:i+1]...)
	}
	return newError(ErrExists, given, "Cannot create %s: %s already exists as %s; names that differ %s collide on macOS and Windows, where one would overwrite the other; write to %s instead",
		given, what, existing, differ, instead)
}

// IsNote reports whether the file name rel is a note: a Markdown file,
// the only kind the index reads.
func IsNote(rel string) bool {
	return strings.EqualFold(path.Ext(rel), ".md")
}

// HasExtension reports whether the file name rel ends in what reads as an
// extension: a dot followed by up to ten letters and digits, at least one
// a letter ("photo.jpeg", "data.json", "clip.mp4"). "Bayes naïf" and
// "Meeting 2.5" have none.
func HasExtension(rel string) bool {
	ext := path.Ext(rel)
	if len(ext) < 2 || len(ext) > 11 {
		return false
	}
	letter := false
	for _, r := range ext[1:] {
		switch {
		case r < unicode.MaxASCII && unicode.IsLetter(r):
			letter = true
		case r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return letter
}
