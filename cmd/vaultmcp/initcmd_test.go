package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/bcrypt"
)

// runInit runs `vaultmcp init` with args and stdin, in a temp dir with a
// temp home.
func runInit(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"init"}, args...), strings.NewReader(stdin), &out, &errOut, startHooks{})
	return out.String(), err
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInitByFlags: a clone of the remote, a config doctor passes, and a
// token printed once; all from flags, nothing asked.
func TestInitByFlags(t *testing.T) {
	_, remote := doctorSetup(t)
	base := t.TempDir()
	vault, cfg := filepath.Join(base, "vault"), filepath.Join(base, "etc", "vaultmcp.yaml")
	out, err := runInit(t, "", "--vault", vault, "--remote", remote, "--config", cfg, "--token", "laptop",
		"--public-url", "https://vault.example.com/")
	if err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(vault, "a.md")); err != nil {
		t.Errorf("the remote was not cloned: %v", err)
	}
	for _, want := range []string{"Connector URL: https://vault.example.com/mcp", "vmcp_", "vaultmcp doctor --config " + cfg} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	fi, err := os.Stat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("config mode %v, want 0600 (it may hold the remote's token)", fi.Mode().Perm())
	}
	if raw, _ := os.ReadFile(cfg); strings.Contains(string(raw), "vmcp_") {
		t.Errorf("the config holds the token itself, not its hash:\n%s", raw)
	}
	dout, err := runDoctor(t, "", "--config", cfg)
	if err != nil {
		t.Errorf("doctor on the config init wrote: %v\n%s", err, dout)
	}
}

// TestInitUserPassword: the password comes from stdin when it is not a
// terminal, and the config holds its bcrypt hash with OAuth on.
func TestInitUserPassword(t *testing.T) {
	base := t.TempDir()
	cfg := filepath.Join(base, "vaultmcp.yaml")
	out, err := runInit(t, "correct horse battery\n", "--vault", filepath.Join(base, "vault"), "--config", cfg, "--user", "ann")
	if err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	m := readYAML(t, cfg)
	http := m["http"].(map[string]any)
	users := http["users"].([]any)
	hash := users[0].(map[string]any)["password_hash"].(string)
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte("correct horse battery")) != nil {
		t.Errorf("the stored hash does not match the password")
	}
	if http["oauth"].(map[string]any)["enabled"] != true {
		t.Errorf("oauth not enabled for the user: %v", http)
	}
	if strings.Contains(out, "vmcp_") {
		t.Errorf("a token was made besides the user:\n%s", out)
	}
}

// TestInitNeverOverwrites: an existing config stays unless --force.
func TestInitNeverOverwrites(t *testing.T) {
	base := t.TempDir()
	cfg := filepath.Join(base, "vaultmcp.yaml")
	if err := os.WriteFile(cfg, []byte("mine: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vault := filepath.Join(base, "vault")
	if _, err := runInit(t, "", "--vault", vault, "--config", cfg); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("init over an existing config: %v, want a refusal naming --force", err)
	}
	if raw, _ := os.ReadFile(cfg); string(raw) != "mine: true\n" {
		t.Fatalf("the config was changed: %q", raw)
	}
	if _, err := os.Stat(vault); err == nil {
		t.Errorf("the refused init created the vault")
	}
	if out, err := runInit(t, "", "--vault", vault, "--config", cfg, "--force"); err != nil {
		t.Fatalf("init --force: %v\n%s", err, out)
	}
	if m := readYAML(t, cfg); m["mine"] != nil || m["vault"] == nil {
		t.Errorf("--force did not replace the config: %v", m)
	}
}

// TestInitAdopts: an existing repository is adopted as it is; a folder
// of files that is not one cannot take a clone.
func TestInitAdopts(t *testing.T) {
	vault, remote := doctorSetup(t)
	out, err := runInit(t, "", "--vault", vault, "--config", filepath.Join(t.TempDir(), "c.yaml"), "--remote", remote)
	if err != nil || !strings.Contains(out, "(adopted)") {
		t.Errorf("adopting a repository: %v\n%s", err, out)
	}
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "note.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runInit(t, "", "--vault", plain, "--config", filepath.Join(t.TempDir(), "c.yaml"), "--remote", remote)
	if err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("cloning into a folder of files: %v, want a refusal", err)
	}
}
