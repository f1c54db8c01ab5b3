package syncfs

import (
	"os"
	"testing"
)

func TestReleaseAtLeast(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		release string
		want    bool
	}{
		{"5.8.0", true},
		{"5.7.19", false},
		{"5.10.0-28-amd64", true},
		{"6.18.44-fc-v769", true},
		{"4.18.0-513.el8.x86_64", false},
		{"5.4.0-150-generic", false},
		{"5.8", true},
		{"5.8-rc1", true},
		{"5.15+", true},
		{"10.0.0", true},
		{"6", false},
		{"", false},
		{"x.y.z", false},
	} {
		if got := releaseAtLeast(c.release, 5, 8); got != c.want {
			t.Errorf("releaseAtLeast(%q, 5, 8) = %v, want %v", c.release, got, c.want)
		}
	}
}

// The test's own temporary folder is on a local file system of the
// machine: syncfs is usable there on a kernel new enough, and a Sync
// succeeds.
func TestUsableHere(t *testing.T) {
	t.Parallel()
	f, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Logf("usable: %v (kernel new enough: %v)", Usable(f), kernelReportsErrors())
	if err := Sync(f); err != nil {
		t.Fatal(err)
	}
}
