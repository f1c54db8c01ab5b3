package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestVaultFromEnvironment checks that the vault can be named by each of
// the environment variables other Obsidian MCP servers use (OBSIDIAN_VAULT_PATH, VAULT_PATH), with no --vault flag.
func TestVaultFromEnvironment(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"VAULTMCP_VAULT_PATH", "OBSIDIAN_VAULT_PATH", "VAULT_PATH"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v := newVault(t, map[string]string{"from-env.md": name + "\n"}, withoutGit())
			s := startSession(t, v, withArgs("serve"), withEnv(name+"="+v.Root))
			if got := s.ok(t, "read_file", map[string]any{"path": "from-env.md"}); got != name+"\n" {
				t.Errorf("read_file = %q, want the vault named by %s", got, name)
			}
		})
	}
}

// TestDefaultVault checks that serving with no vault configured creates
// a local default vault with a welcome note (under XDG_DATA_HOME, which
// the harness points at a temp dir), makes it a git repository and serves
// it.
func TestDefaultVault(t *testing.T) {
	t.Parallel()
	v := newVault(t, nil, withoutGit()) // unused by the server; holds nothing
	data := t.TempDir()
	s := startSession(t, v, withArgs("serve"), withEnv("XDG_DATA_HOME="+data))
	listing := s.ok(t, "list_directory", map[string]any{"path": ""})
	wantContains(t, "default vault listing", listing, "[file] Welcome.md")
	text := s.ok(t, "read_file", map[string]any{"path": "Welcome.md"})
	wantContains(t, "welcome note", text, "vault")
	s.ok(t, "write_file", map[string]any{"path": "first.md", "content": "works\n"})
	dir := filepath.Join(data, "vaultmcp", "vault")
	if got, err := os.ReadFile(filepath.Join(dir, "first.md")); err != nil || string(got) != "works\n" {
		t.Errorf("default vault is not at $XDG_DATA_HOME/vaultmcp/vault: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		t.Errorf("default vault is not a git repository: %v", err)
	}
}
