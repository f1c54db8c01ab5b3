package vaultgen

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// CommitPacked makes dir a git repository holding everything in it in one
// commit, packed as a cloned vault is, for benchmarks that measure the
// server on a vault as users have one. It runs the git command line with
// no user or system configuration and gc.auto=0, so that no later commit
// starts a background `git gc --auto` under the figures.
func CommitPacked(dir string) error {
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"config", "gc.auto", "0"},
		{"add", "-A"},
		{"-c", "user.name=vaultgen", "-c", "user.email=vaultgen@localhost", "commit", "-q", "-m", "generated vault"},
		{"gc", "-q"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}
