package vault

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTempNameCarriesThePidAndFits: the temporary file of an atomic write
// names its process (the sync removes a dead process's leftovers) and
// stays a valid file name for the longest target names.
func TestTempNameCarriesThePidAndFits(t *testing.T) {
	pat := tempName(strings.Repeat("ü", 127) + ".md")
	if !strings.HasPrefix(pat, tempPrefix+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("tempName = %q", pat)
	}
	if n := len(pat) + 10; n > 255 {
		t.Errorf("temporary name of %d bytes", n)
	}
	if !utf8.ValidString(pat) {
		t.Errorf("tempName cut a character: %q", pat)
	}
	dir := t.TempDir()
	long := filepath.Join(dir, strings.Repeat("n", 250)+".md")
	if err := (&Vault{}).writeAtomic(long, []byte("x"), 0o644); err != nil {
		t.Errorf("writeAtomic on a 253-byte name: %v", err)
	}
}

// TestBackupNameCarriesThePidAndTarget: an undo backup names its process
// (the sync removes a dead process's backups, never a live one's) and its
// whole target; a target too long for that gets an error, not a cut name,
// so the change keeps its copy in memory instead.
func TestBackupNameCarriesThePidAndTarget(t *testing.T) {
	dir := t.TempDir()
	v := &Vault{}
	name, err := v.backupName(filepath.Join(dir, "2024-01-01.md"))
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(name)
	if want := tempPrefix + strconv.Itoa(os.Getpid()) + "-2024-01-01.md-"; !strings.HasPrefix(base, want) || !strings.HasSuffix(base, ".bak") {
		t.Errorf("backupName = %q, want %s<random>.bak", base, want)
	}
	if name, err := v.backupName(filepath.Join(dir, strings.Repeat("n", 250)+".md")); err == nil {
		t.Errorf("backupName of a 253-byte name = %q, want an error", filepath.Base(name))
	}
}
