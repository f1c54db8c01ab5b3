package store

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"vaultmcp/internal/testutil"
)

// The faults a test sets fail every object write, loose or packed, and
// BeforeCreate sees each object folder; without them writes work again.
func TestSetFaults(t *testing.T) {
	t.Parallel()
	o, dir := newTestObjects(t)
	full := errors.New("no space left on device")
	var folders []string
	o.SetFaults(&Faults{BeforeCreate: func(d string) { folders = append(folders, d) }})
	h, err := o.WriteLoose(plumbing.BlobObject, []byte("a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ".git", "objects", h.String()[:2]); len(folders) == 0 || folders[0] != want {
		t.Errorf("BeforeCreate saw %q, want %q first", folders, want)
	}

	o.SetFaults(&Faults{Write: full})
	tests := []struct {
		name  string
		write func() error
	}{
		{"loose", func() error { _, err := o.WriteLoose(plumbing.BlobObject, []byte("b\n")); return err }},
		{"pack", func() error {
			b := []byte("c\n")
			h := plumbing.ComputeHash(plumbing.BlobObject, b)
			return o.WritePack([]plumbing.Hash{h}, map[plumbing.Hash][]byte{h: b})
		}},
	}
	for _, tt := range tests {
		if err := tt.write(); !errors.Is(err, full) {
			t.Errorf("%s write with a full disk: %v, want %v", tt.name, err, full)
		}
	}

	o.SetFaults(nil)
	for _, tt := range tests {
		if err := tt.write(); err != nil {
			t.Errorf("%s write after the faults: %v", tt.name, err)
		}
	}
	if out, err := testutil.GitErr(dir, "fsck", "--strict"); err != nil {
		t.Errorf("git fsck: %v\n%s", err, out)
	}
}
