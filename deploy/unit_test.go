package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// maxExposure is the highest `systemd-analyze security` score the unit
// may have (0 is the most locked down, 10 the least); docs/deploy.md
// gives the current one.
const maxExposure = 1.5

// unitCopy writes vaultmcp.service into a temp dir with ExecStart naming
// an executable that exists (the test binary): verify warns about a
// missing one, and the real binary is installed only on the server.
func unitCopy(t *testing.T) (path, text string) {
	t.Helper()
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (Debian's systemd package has it)")
	}
	raw, err := os.ReadFile("vaultmcp.service")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Replace(string(raw), "ExecStart=/usr/local/bin/vaultmcp ", "ExecStart="+self+" ", 1)
	if text == string(raw) {
		t.Fatal("vaultmcp.service has no ExecStart=/usr/local/bin/vaultmcp line")
	}
	path = filepath.Join(t.TempDir(), "vaultmcp.service")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, string(raw)
}

// TestUnitVerifies runs systemd-analyze verify on the unit. It exits 0
// on unknown keys and bad values, printing only warnings, so any line
// naming the unit fails the test.
func TestUnitVerifies(t *testing.T) {
	path, _ := unitCopy(t)
	out, err := exec.Command("systemd-analyze", "verify", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "vaultmcp.service") {
			t.Errorf("systemd-analyze verify: %s", line)
		}
	}
}

// TestUnitHardening wants the protections docs/deploy.md promises in the
// unit, and its exposure score at most maxExposure.
func TestUnitHardening(t *testing.T) {
	path, text := unitCopy(t)
	for _, want := range []string{
		"User=vaultmcp",
		"ProtectSystem=strict",
		"ReadWritePaths=/srv/vaultmcp",
		"StateDirectory=vaultmcp",
		"NoNewPrivileges=yes",
		"PrivateTmp=yes",
		"ProtectHome=yes",
		"RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
		"SystemCallFilter=@system-service",
		"MemoryMax=",
		"Restart=on-failure",
		"TimeoutStopSec=",
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want)).MatchString(text) {
			t.Errorf("vaultmcp.service has no %s line", want)
		}
	}
	out, err := exec.Command("systemd-analyze", "security", "--offline=yes", path).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for vaultmcp.service: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	score, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("systemd-analyze security: %.1f", score)
	if score > maxExposure {
		t.Errorf("exposure level %.1f, want at most %.1f:\n%s", score, maxExposure, out)
	}
}
