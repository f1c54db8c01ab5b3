package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestConfigMistakesStopTheStart: each mistake in the configuration ends
// the start with a message saying what to fix, before the server answers
// anything or touches the vault: a misspelt key (which would otherwise
// serve the default vault, or make a token able to write), a vault path
// naming a file, a remote URL git cannot use, broken YAML.
func TestConfigMistakesStopTheStart(t *testing.T) {
	t.Parallel()
	v := newVault(t, map[string]string{"a.md": "a\n"})
	v.commitAll(t, "test setup")
	tests := []struct {
		name string
		yaml string
		args []string
		want []string
	}{
		{"misspelt vault path", "vault:\n  pth: " + v.Root + "\n", nil,
			[]string{"unknown setting vault.pth", "did you mean vault.path?"}},
		{"misspelt token scope", "vault:\n  path: " + v.Root + "\nhttp:\n  tokens:\n    - name: n8n\n      hash: sha256:" + strings.Repeat("0", 64) + "\n      readonly: true\n", nil,
			[]string{"http.tokens[0].readonly", "did you mean http.tokens[0].read_only?"}},
		{"vault is a file", "vault:\n  path: " + v.path("a.md") + "\n", nil,
			[]string{"Vault is not a folder"}},
		{"remote URL", "vault:\n  path: " + v.Root + "\ngit:\n  remote: \"ht!tp://host/notes.git\"\n", nil,
			[]string{"git.remote cannot be used", "not a URL git can use"}},
		{"broken YAML", "vault:\n  path: [" + v.Root + "\n", nil,
			[]string{"config file", "yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := v.snapshot(t)
			file := filepath.Join(t.TempDir(), "vaultmcp.yaml")
			if err := os.WriteFile(file, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			c := newServerConfig(t, v, []serverOption{withArgs("serve", "--config", file), withDirtyVault()})
			var stderr lockedBuffer
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := c.command(ctx, &stderr)
			cmd.Stdin = strings.NewReader("")
			out, err := cmd.Output()
			if err == nil {
				t.Fatalf("the server started and ended cleanly; stdout %q, stderr:\n%s", out, stderr.String())
			}
			for _, w := range tt.want {
				wantContains(t, "the message at start", stderr.String(), w)
			}
			if len(out) != 0 {
				t.Errorf("stdout %q: nothing may be answered", out)
			}
			if got := strings.TrimSpace(v.gitRun(t, "remote")); got != "" {
				t.Errorf("remotes %q were configured in the vault", got)
			}
			v.unchanged(t, before)
		})
	}
}
