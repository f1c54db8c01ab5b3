package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// isolate points every place Load looks at (working folder, user config
// folder, environment) at empty temporary ones, so the machine's own
// configuration cannot leak into a test.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "VAULTMCP_") || name == "OBSIDIAN_VAULT_PATH" || name == "VAULT_PATH" {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
	return dir
}

// flags returns a parsed flag set as the serve command builds it.
func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	Flags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDefaults(t *testing.T) {
	isolate(t)
	c, err := Load(flags(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.Vault.Path != "" || c.File != "" {
		t.Errorf("vault %q, file %q: want none", c.Vault.Path, c.File)
	}
	if !slices.Equal(c.Vault.Hidden, []string{".git", ".claude"}) || !slices.Equal(c.Vault.Skip, []string{".obsidian", ".trash"}) {
		t.Errorf("hidden %q, skip %q", c.Vault.Hidden, c.Vault.Skip)
	}
	if c.Vault.MaxReadBytes != 64<<10 || c.Limits.MaxResultBytes != 4<<20 || c.Git.SyncInterval != time.Minute || c.Git.Branch != "" ||
		!c.Git.Push || c.Log.Level != "info" || !c.Git.Fsync || c.Git.NetworkTimeout != 2*time.Minute ||
		c.Git.MassDeletionFiles != 200 || c.Git.MassDeletionPercent != 20 || c.Git.AllowMassDeletion || c.Git.GCInterval != time.Hour {
		t.Errorf("defaults: %+v", c)
	}
	if c.Limits != (Limits{MaxResultBytes: 4 << 20, MaxWriteBytes: 10 << 20, MaxMessageBytes: 10 << 20, MaxNoteBytes: 10 << 20, MemoryBytes: DefaultMemoryBytes}) {
		t.Errorf("default limits: %+v", c.Limits)
	}
	// No flag set at all works too.
	if _, err := Load(nil); err != nil {
		t.Errorf("Load(nil): %v", err)
	}
}

func TestPrecedence(t *testing.T) {
	const file = "vault:\n  path: /from/file\nlog:\n  level: warn\ngit:\n  sync_interval: 5m\n"
	tests := []struct {
		name      string
		env       map[string]string
		args      []string
		vault     string
		level     string
		syncEvery time.Duration
	}{
		{"file over default", nil, nil, "/from/file", "warn", 5 * time.Minute},
		{"env over file", map[string]string{"VAULTMCP_VAULT_PATH": "/from/env", "VAULTMCP_LOG_LEVEL": "debug", "VAULTMCP_GIT_SYNC_INTERVAL": "10s"},
			nil, "/from/env", "debug", 10 * time.Second},
		{"flag over env", map[string]string{"VAULTMCP_VAULT_PATH": "/from/env", "VAULTMCP_LOG_LEVEL": "debug"},
			[]string{"--vault", "/from/flag", "--log-level", "error"}, "/from/flag", "error", 5 * time.Minute},
		{"seed variable over file", map[string]string{"OBSIDIAN_VAULT_PATH": "/obsidian"}, nil, "/obsidian", "warn", 5 * time.Minute},
		{"VAULT_PATH over file", map[string]string{"VAULT_PATH": "/vault-path"}, nil, "/vault-path", "warn", 5 * time.Minute},
		{"OBSIDIAN_VAULT_PATH over VAULT_PATH", map[string]string{"OBSIDIAN_VAULT_PATH": "/obsidian", "VAULT_PATH": "/vault-path"},
			nil, "/obsidian", "warn", 5 * time.Minute},
		{"VAULTMCP_VAULT_PATH over both", map[string]string{"VAULTMCP_VAULT_PATH": "/ours", "OBSIDIAN_VAULT_PATH": "/obsidian", "VAULT_PATH": "/vault-path"},
			nil, "/ours", "warn", 5 * time.Minute},
		{"empty variable does not count", map[string]string{"VAULTMCP_VAULT_PATH": "", "VAULT_PATH": "/vault-path"},
			nil, "/vault-path", "warn", 5 * time.Minute},
		{"flag over every variable", map[string]string{"VAULTMCP_VAULT_PATH": "/ours", "OBSIDIAN_VAULT_PATH": "/obsidian"},
			[]string{"--vault=/flag"}, "/flag", "warn", 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			cfgFile := writeFile(t, filepath.Join(dir, "vaultmcp.yaml"), file)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := Load(flags(t, tt.args...))
			if err != nil {
				t.Fatal(err)
			}
			if c.File != cfgFile && c.File != "vaultmcp.yaml" {
				t.Errorf("File = %q, want the one in the working folder", c.File)
			}
			if c.Vault.Path != tt.vault || c.Log.Level != tt.level || c.Git.SyncInterval != tt.syncEvery {
				t.Errorf("got vault %q level %q sync %v, want %q %q %v",
					c.Vault.Path, c.Log.Level, c.Git.SyncInterval, tt.vault, tt.level, tt.syncEvery)
			}
		})
	}
}

func TestConfigFileLocations(t *testing.T) {
	dir := isolate(t)
	// The user config folder is used when the working folder has none.
	user := writeFile(t, filepath.Join(dir, "xdg", "vaultmcp", "vaultmcp.yaml"), "vault:\n  path: /user\n")
	c, err := Load(flags(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.Vault.Path != "/user" || c.File != user {
		t.Errorf("user config: vault %q file %q", c.Vault.Path, c.File)
	}
	// The working folder wins over the user config folder.
	writeFile(t, filepath.Join(dir, "vaultmcp.yaml"), "vault:\n  path: /cwd\n")
	if c, err = Load(flags(t)); err != nil || c.Vault.Path != "/cwd" {
		t.Errorf("cwd config: %+v, %v", c, err)
	}
	// A named file wins over both, by flag or by VAULTMCP_CONFIG.
	named := writeFile(t, filepath.Join(dir, "elsewhere", "my.yaml"), "vault:\n  path: /named\n")
	if c, err = Load(flags(t, "--config", named)); err != nil || c.Vault.Path != "/named" || c.File != named {
		t.Errorf("--config: %+v, %v", c, err)
	}
	t.Setenv("VAULTMCP_CONFIG", named)
	if c, err = Load(flags(t)); err != nil || c.Vault.Path != "/named" {
		t.Errorf("VAULTMCP_CONFIG: %+v, %v", c, err)
	}
}

func TestFileValues(t *testing.T) {
	dir := isolate(t)
	writeFile(t, filepath.Join(dir, "vaultmcp.yaml"), `vault:
  path: ~/notes
  hidden: [.git, .claude, private]
  skip: [.obsidian]
  max_read_bytes: 1024
limits:
  max_write_bytes: 2048
  max_message_bytes: 4096
  max_note_bytes: 512
git:
  remote: git@example.com:me/vault.git
  branch: trunk
  push: false
  ssh_key: ~/.ssh/id_ed25519
`)
	c, err := Load(flags(t))
	if err != nil {
		t.Fatal(err)
	}
	if c.Vault.Path != filepath.Join(dir, "notes") {
		t.Errorf("~ not expanded: %q", c.Vault.Path)
	}
	if c.Git.SSHKey != filepath.Join(dir, ".ssh", "id_ed25519") {
		t.Errorf("ssh_key: %q", c.Git.SSHKey)
	}
	if !slices.Equal(c.Vault.Hidden, []string{".git", ".claude", "private"}) || !slices.Equal(c.Vault.Skip, []string{".obsidian"}) {
		t.Errorf("hidden %q skip %q", c.Vault.Hidden, c.Vault.Skip)
	}
	if c.Limits != (Limits{MaxResultBytes: 4 << 20, MaxWriteBytes: 2048, MaxMessageBytes: 4096, MaxNoteBytes: 512, MemoryBytes: DefaultMemoryBytes}) {
		t.Errorf("limits: %+v", c.Limits)
	}
	if c.Vault.MaxReadBytes != 1024 || c.Git.Branch != "trunk" || c.Git.Push || c.Git.Remote != "git@example.com:me/vault.git" {
		t.Errorf("%+v", c)
	}
	// Lists also come from the environment, comma-separated.
	t.Setenv("VAULTMCP_VAULT_HIDDEN", ".git,secret")
	if c, err = Load(flags(t)); err != nil || !slices.Equal(c.Vault.Hidden, []string{".git", "secret"}) {
		t.Errorf("hidden from env: %q, %v", c.Vault.Hidden, err)
	}
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		file string
		args []string
		want []string // parts of the error
	}{
		{"negative sync interval", map[string]string{"VAULTMCP_GIT_SYNC_INTERVAL": "-5s"}, "", nil,
			[]string{"git.sync_interval must not be negative", "-5s"}},
		{"sync interval not a duration", nil, "git:\n  sync_interval: soon\n", nil,
			[]string{"sync_interval"}},
		{"bad log level flag", nil, "", []string{"--log-level", "loud"},
			[]string{"log.level must be debug, info, warn or error", `"loud"`}},
		{"bad log level in file", nil, "log:\n  level: verbose\n", nil,
			[]string{"log.level", `"verbose"`}},
		{"zero read limit", map[string]string{"VAULTMCP_VAULT_MAX_READ_BYTES": "0"}, "", nil,
			[]string{"vault.max_read_bytes must be positive"}},
		{"mass deletion percent over 100", nil, "git:\n  mass_deletion_percent: 150\n", nil,
			[]string{"git.mass_deletion_percent must be between 1 and 100", "150"}},
		{"zero network timeout", map[string]string{"VAULTMCP_GIT_NETWORK_TIMEOUT": "0s"}, "", nil,
			[]string{"git.network_timeout must be positive"}},
		{"zero write limit", nil, "limits:\n  max_write_bytes: 0\n", nil,
			[]string{"limits.max_write_bytes must be positive"}},
		{"negative message limit", map[string]string{"VAULTMCP_LIMITS_MAX_MESSAGE_BYTES": "-1"}, "", nil,
			[]string{"limits.max_message_bytes must be positive"}},
		{"zero result limit", map[string]string{"VAULTMCP_LIMITS_MAX_RESULT_BYTES": "0"}, "", nil,
			[]string{"limits.max_result_bytes must be positive"}},
		{"several problems at once", map[string]string{"VAULTMCP_GIT_SYNC_INTERVAL": "-1m", "VAULTMCP_LOG_LEVEL": "x"}, "", nil,
			[]string{"sync_interval", "log.level"}},
		{"broken YAML", nil, "vault: [unclosed\n", nil,
			[]string{"config file", "vaultmcp.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			if tt.file != "" {
				writeFile(t, filepath.Join(dir, "vaultmcp.yaml"), tt.file)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, err := Load(flags(t, tt.args...))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestNamedConfigMissing(t *testing.T) {
	dir := isolate(t)
	missing := filepath.Join(dir, "nope.yaml")
	_, err := Load(flags(t, "--config", missing))
	if err == nil || !strings.Contains(err.Error(), "config file "+missing) {
		t.Errorf("--config missing: %v", err)
	}
	t.Setenv("VAULTMCP_CONFIG", missing)
	_, err = Load(flags(t))
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("VAULTMCP_CONFIG missing: %v", err)
	}
}

func TestDefaultVaultDir(t *testing.T) {
	isolate(t)
	t.Setenv("XDG_DATA_HOME", "/data")
	if got := DefaultVaultDir(); got != "/data/vaultmcp/vault" {
		t.Errorf("with XDG_DATA_HOME: %q", got)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultVaultDir(); got != "/home/u/.local/share/vaultmcp/vault" {
		t.Errorf("without XDG_DATA_HOME: %q", got)
	}
}

// TestEveryKeyFromEnvironment sets each key through VAULTMCP_* and reads
// it back: viper only reads the environment for keys it has a default for,
// so a key left without one silently ignores its variable.
func TestEveryKeyFromEnvironment(t *testing.T) {
	tests := []struct {
		env, value string
		got        func(*Config) any
		want       any
	}{
		{"VAULTMCP_VAULT_PATH", "/v", func(c *Config) any { return c.Vault.Path }, "/v"},
		{"VAULTMCP_VAULT_MAX_READ_BYTES", "99", func(c *Config) any { return c.Vault.MaxReadBytes }, int64(99)},
		{"VAULTMCP_LIMITS_MAX_RESULT_BYTES", "5000", func(c *Config) any { return c.Limits.MaxResultBytes }, 5000},
		{"VAULTMCP_GIT_REMOTE", "https://example.com/v.git", func(c *Config) any { return c.Git.Remote }, "https://example.com/v.git"},
		{"VAULTMCP_GIT_BRANCH", "notes", func(c *Config) any { return c.Git.Branch }, "notes"},
		{"VAULTMCP_GIT_AUTHOR_NAME", "Ada", func(c *Config) any { return c.Git.AuthorName }, "Ada"},
		{"VAULTMCP_GIT_AUTHOR_EMAIL", "ada@example.com", func(c *Config) any { return c.Git.AuthorEmail }, "ada@example.com"},
		{"VAULTMCP_GIT_SYNC_INTERVAL", "2m", func(c *Config) any { return c.Git.SyncInterval }, 2 * time.Minute},
		{"VAULTMCP_GIT_PUSH", "false", func(c *Config) any { return c.Git.Push }, false},
		{"VAULTMCP_GIT_SSH_KEY", "/k", func(c *Config) any { return c.Git.SSHKey }, "/k"},
		{"VAULTMCP_GIT_SSH_KEY_PASSPHRASE", "pw", func(c *Config) any { return c.Git.SSHKeyPassphrase }, "pw"},
		{"VAULTMCP_GIT_KNOWN_HOSTS", "/kh", func(c *Config) any { return c.Git.KnownHosts }, "/kh"},
		{"VAULTMCP_GIT_TOKEN", "tok", func(c *Config) any { return c.Git.Token }, "tok"},
		{"VAULTMCP_GIT_USERNAME", "me", func(c *Config) any { return c.Git.Username }, "me"},
		{"VAULTMCP_LOG_LEVEL", "debug", func(c *Config) any { return c.Log.Level }, "debug"},
		{"VAULTMCP_LIMITS_MAX_WRITE_BYTES", "11", func(c *Config) any { return c.Limits.MaxWriteBytes }, int64(11)},
		{"VAULTMCP_LIMITS_MAX_MESSAGE_BYTES", "12", func(c *Config) any { return c.Limits.MaxMessageBytes }, int64(12)},
		{"VAULTMCP_LIMITS_MAX_NOTE_BYTES", "13", func(c *Config) any { return c.Limits.MaxNoteBytes }, int64(13)},
		{"VAULTMCP_LIMITS_MEMORY_BYTES", "0", func(c *Config) any { return c.Limits.MemoryBytes }, int64(0)},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			isolate(t)
			t.Setenv(tt.env, tt.value)
			c, err := Load(flags(t))
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.got(c); got != tt.want {
				t.Errorf("%s=%s gave %v, want %v", tt.env, tt.value, got, tt.want)
			}
		})
	}
}

func TestGitTokenFile(t *testing.T) {
	tests := []struct {
		name    string
		content string // "" = no file written
		token   string // git.token set beside it
		want    string // the token Load gives
		wantErr string
	}{
		{name: "read, line end trimmed", content: "ghp_secret\n", want: "ghp_secret"},
		{name: "CRLF trimmed", content: "ghp_secret\r\n", want: "ghp_secret"},
		{name: "missing file", wantErr: "git.token_file"},
		{name: "empty", content: "\n", wantErr: "is empty"},
		{name: "two lines", content: "a\nb\n", wantErr: "more than one line"},
		{name: "too big", content: strings.Repeat("x", maxSecretFileBytes+1), wantErr: "over 64 KiB"},
		{name: "both set", content: "a\n", token: "b", wantErr: "both set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			f := filepath.Join(dir, "token")
			if tt.content != "" {
				writeFile(t, f, tt.content)
			}
			t.Setenv("VAULTMCP_GIT_TOKEN_FILE", f)
			t.Setenv("VAULTMCP_GIT_TOKEN", tt.token)
			c, err := Load(flags(t))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Load: %v, want an error mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Git.Token != tt.want {
				t.Errorf("Token = %q, want %q", c.Git.Token, tt.want)
			}
		})
	}
}
