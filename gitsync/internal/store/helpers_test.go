package store

import (
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"vaultmcp/internal/testutil"
)

// newTestObjects initialises a repository in a new folder and returns the
// object store on it, and the folder.
func newTestObjects(t testing.TB) (*Objects, string) {
	t.Helper()
	dir := t.TempDir()
	testutil.Git(t, dir, "init", "--quiet")
	gitDir := filepath.Join(dir, ".git")
	st := filesystem.NewStorage(NewPlainFS(gitDir), cache.NewObjectLRU(16*cache.MiByte))
	return NewObjects(st, gitDir, ObjectsOptions{}), dir
}
