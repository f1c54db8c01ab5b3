package e2e

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReleaseReproducible builds the release binary of the checked-out
// commit twice, from two clones at different paths, and wants the same
// bytes; the binary is static and `version` names the commit and its
// time. Only the host's platform is built (PLATFORMS), which is what
// varies between two builds; the cross-compiled ones use the same flags.
func TestReleaseReproducible(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	platform := "linux/" + runtime.GOARCH
	var sums [][]byte
	var bins []string
	for _, name := range []string{"one", "second-clone"} {
		src := filepath.Join(t.TempDir(), name)
		gitCLI(t, "", "clone", "-q", root, src)
		dist := filepath.Join(t.TempDir(), "dist")
		cmd := exec.Command("make", "-C", src, "release", "PLATFORMS="+platform, "DIST="+dist)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make release in %s: %v\n%s", src, err, out)
		}
		sum, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, sum)
		matches, _ := filepath.Glob(filepath.Join(dist, "vaultmcp_*_linux_"+runtime.GOARCH))
		if len(matches) != 1 {
			t.Fatalf("dist holds %v, want one linux binary", matches)
		}
		bins = append(bins, matches[0])
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Fatalf("two builds of one commit differ:\n%s\n%s", sums[0], sums[1])
	}
	t.Logf("reproducible: %s", bytes.TrimSpace(sums[0]))

	f, err := elf.Open(bins[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s asks for a dynamic loader; release binaries are static", bins[0])
		}
	}

	describe := strings.TrimPrefix(gitCLI(t, root, "describe", "--tags", "--always"), "v")
	head := gitCLI(t, root, "rev-parse", "HEAD")
	epoch, err := strconv.ParseInt(gitCLI(t, root, "log", "-1", "--format=%ct"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(filepath.Base(bins[0]), "_"+describe+"_") {
		t.Errorf("binary %s is not named after git describe %q", filepath.Base(bins[0]), describe)
	}
	out, err := exec.Command(bins[0], "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	date := time.Unix(epoch, 0).UTC().Format(time.RFC3339)
	want := "vaultmcp " + describe + " (commit " + head + ", built " + date + ")\n"
	if string(out) != want {
		t.Errorf("version = %q, want %q", out, want)
	}
}
