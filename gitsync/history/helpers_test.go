package history

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// gitErr runs the git CLI in dir, isolated from the machine's
// configuration, and returns its trimmed output.
func gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	env := []string{"HOME=" + filepath.Join(os.TempDir(), "gitsync-test-home"), "GIT_CONFIG_NOSYSTEM=1"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// noteLines is a note of n numbered lines.
func noteLines(n int, name string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%s line %d\n", name, i)
	}
	return b.String()
}
