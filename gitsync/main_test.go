package gitsync

import (
	"os"
	"testing"
)

// TestMain keeps the machine's git configuration out of the tests: the
// package reads init.defaultBranch through the git CLI, and a developer's
// own setting would change which branch a new vault starts on.
func TestMain(m *testing.M) {
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Exit(m.Run())
}
