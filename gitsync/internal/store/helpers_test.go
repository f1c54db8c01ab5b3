package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// newTestObjects initialises a repository in a new folder and returns the
// object store on it, and the folder.
func newTestObjects(t testing.TB) (*Objects, string) {
	t.Helper()
	dir := t.TempDir()
	if out, err := gitErr(dir, "init", "--quiet"); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	gitDir := filepath.Join(dir, ".git")
	st := filesystem.NewStorage(NewPlainFS(gitDir), cache.NewObjectLRU(16*cache.MiByte))
	return NewObjects(st, gitDir), dir
}

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
