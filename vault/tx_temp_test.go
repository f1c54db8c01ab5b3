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
