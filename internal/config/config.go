// Package config loads vaultmcp's configuration with viper: flags over
// environment (VAULTMCP_*, plus OBSIDIAN_VAULT_PATH and
// VAULT_PATH, which other Obsidian MCP servers read) over a vaultmcp.yaml file over defaults.
package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"vaultmcp/vault"
)

// Config is the whole configuration. Field tags are the keys in
// vaultmcp.yaml; the environment spells them VAULTMCP_SECTION_KEY.
type Config struct {
	Vault  Vault  `mapstructure:"vault"`
	Git    Git    `mapstructure:"git"`
	Log    Log    `mapstructure:"log"`
	Limits Limits `mapstructure:"limits"`
	// Access is the server's own access scope, for every transport.
	Access Access `mapstructure:"access"`
	// HTTP configures the HTTP transport (serve --http).
	HTTP HTTP `mapstructure:"http"`
	// File is the config file that was read, "" if none.
	File string `mapstructure:"-"`
}

// Vault configures the vault on disk.
type Vault struct {
	// Path is the vault folder. Empty means the default local vault.
	Path string `mapstructure:"path"`
	// Hidden are directory names refused in paths and skipped everywhere.
	Hidden []string `mapstructure:"hidden"`
	// Skip are directory names left out of scans and listings.
	Skip []string `mapstructure:"skip"`
	// MaxReadBytes caps what read_file returns of one file.
	MaxReadBytes int64 `mapstructure:"max_read_bytes"`
}

// Git configures history and sync.
type Git struct {
	// Remote is the URL to push to and pull from; empty = the vault's own
	// origin remote if it has one, else local commits only.
	Remote string `mapstructure:"remote"`
	// Branch is the branch to commit on; empty = the branch checked out in
	// the vault (git's init.defaultBranch, else main, for a new one).
	Branch string `mapstructure:"branch"`
	// AuthorName and AuthorEmail sign every commit the server makes.
	AuthorName  string `mapstructure:"author_name"`
	AuthorEmail string `mapstructure:"author_email"`
	// AuthorEmails maps the names of HTTP credentials (token and user
	// names) to the email their commits are authored with; a name not
	// listed is name@vaultmcp.invalid.
	AuthorEmails map[string]string `mapstructure:"author_emails"`
	// SyncInterval is how often to pull; 0 turns periodic pulls off.
	SyncInterval time.Duration `mapstructure:"sync_interval"`
	// Push turns pushing after each commit on or off.
	Push bool `mapstructure:"push"`
	// SSHKey is a private key file for SSH remotes; empty uses the SSH agent.
	SSHKey string `mapstructure:"ssh_key"`
	// SSHKeyPassphrase unlocks SSHKey.
	SSHKeyPassphrase string `mapstructure:"ssh_key_passphrase"`
	// KnownHosts is the known_hosts file checked for SSH remotes.
	KnownHosts string `mapstructure:"known_hosts"`
	// Token is an HTTPS access token, sent as the basic-auth password.
	Token string `mapstructure:"token"`
	// TokenFile names a file holding Token (a mounted secret); Load reads
	// it into Token. Setting both is an error.
	TokenFile string `mapstructure:"token_file"`
	// Username goes with Token (most hosts accept any non-empty name).
	Username string `mapstructure:"username"`
	// Fsync flushes every commit to disk before a write is reported done.
	Fsync bool `mapstructure:"fsync"`
	// NetworkTimeout bounds each fetch and push.
	NetworkTimeout time.Duration `mapstructure:"network_timeout"`
	// MassDeletionFiles and MassDeletionPercent are the thresholds above
	// which a deletion found by the external-changes scan is held back
	// until confirmed; AllowMassDeletion commits it anyway.
	MassDeletionFiles   int  `mapstructure:"mass_deletion_files"`
	MassDeletionPercent int  `mapstructure:"mass_deletion_percent"`
	AllowMassDeletion   bool `mapstructure:"allow_mass_deletion"`
	// GCInterval is how often loose objects are packed; 0 turns it off.
	GCInterval time.Duration `mapstructure:"gc_interval"`
}

// Limits bound what one client, one tool answer, or one file in the vault
// can make the server do.
type Limits struct {
	// MaxResultBytes is the largest answer any tool returns: the last
	// guard behind every tool's own paging.
	MaxResultBytes int `mapstructure:"max_result_bytes"`
	// MaxWriteBytes caps the content write_file and edit_file may leave
	// in a file.
	MaxWriteBytes int64 `mapstructure:"max_write_bytes"`
	// MaxMessageBytes caps one JSON-RPC message from a client; a longer
	// one is refused unread and the session goes on.
	MaxMessageBytes int64 `mapstructure:"max_message_bytes"`
	// MaxNoteBytes is the largest note the index reads; larger notes are
	// known by name only (their links and tags are left out).
	MaxNoteBytes int64 `mapstructure:"max_note_bytes"`
	// MemoryBytes is the soft memory limit of the Go runtime
	// (debug.SetMemoryLimit): near it the garbage collector runs sooner
	// rather than letting the heap double, which keeps the peak resident
	// memory of a 10,000-note vault under 120 MB. The limit applied is
	// raised to about 1.5 times the live heap when that is more (a large
	// vault's index), and to twice it while a heap already past the limit
	// is growing (a large index being built), so the collector never runs
	// continuously; memory may then reach twice the live heap (package
	// memlimit).
	// 0 turns it off; the GOMEMLIMIT environment variable, when set, wins.
	MemoryBytes int64 `mapstructure:"memory_bytes"`
}

// DefaultMemoryBytes is limits.memory_bytes by default: 100 MiB.
const DefaultMemoryBytes = 100 << 20

// Log configures logging (to stderr: stdout carries the MCP stream).
type Log struct {
	// Level is debug, info, warn or error.
	Level string `mapstructure:"level"`
}

// Flags registers the command-line flags Load understands.
func Flags(fs *pflag.FlagSet) {
	fs.String("config", "", "config file (default: ./vaultmcp.yaml, then $XDG_CONFIG_HOME/vaultmcp/vaultmcp.yaml)")
	fs.String("vault", "", "vault folder (env VAULTMCP_VAULT_PATH, OBSIDIAN_VAULT_PATH or VAULT_PATH)")
	fs.String("log-level", "", "log level: debug, info, warn, error")
	fs.String("http", "", "serve over HTTP on this address instead of stdio (bare --http: "+DefaultHTTPAddr+")")
	fs.Lookup("http").NoOptDefVal = DefaultHTTPAddr
}

// flagKeys maps flags onto config keys.
var flagKeys = map[string]string{
	"vault":     "vault.path",
	"log-level": "log.level",
	"http":      "http.addr",
}

// Load reads the configuration. fs holds flags registered by Flags and
// already parsed (nil for none). The environment is read through viper.
func Load(fs *pflag.FlagSet) (*Config, error) {
	v := viper.New()
	setDefaults(v)

	v.SetEnvPrefix("VAULTMCP")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	// Other Obsidian MCP servers name the vault by OBSIDIAN_VAULT_PATH or
	// VAULT_PATH, so configurations written for them work; ours wins when
	// several are set.
	if err := v.BindEnv("vault.path", "VAULTMCP_VAULT_PATH", "OBSIDIAN_VAULT_PATH", "VAULT_PATH"); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if fs != nil {
		for flag, key := range flagKeys {
			if f := fs.Lookup(flag); f != nil {
				if err := v.BindPFlag(key, f); err != nil {
					return nil, fmt.Errorf("config: flag --%s: %w", flag, err)
				}
			}
		}
	}

	named := os.Getenv("VAULTMCP_CONFIG")
	if fs != nil {
		if f := fs.Lookup("config"); f != nil && f.Value.String() != "" {
			named = f.Value.String()
		}
	}
	cfgFile, err := readFile(v, named)
	if err != nil {
		return nil, err
	}

	var c Config
	var md mapstructure.Metadata
	if err := v.Unmarshal(&c, viper.DecodeHook(decodeHook), func(dc *mapstructure.DecoderConfig) { dc.Metadata = &md }); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := unknownKeys(md.Unused, cfgFile); err != nil {
		return nil, err
	}
	c.File = cfgFile
	c.Vault.Path = expandHome(c.Vault.Path)
	c.Git.SSHKey = expandHome(c.Git.SSHKey)
	c.Git.KnownHosts = expandHome(c.Git.KnownHosts)
	c.Git.TokenFile = expandHome(c.Git.TokenFile)
	if err := c.Git.readTokenFile(); err != nil {
		return nil, err
	}
	c.HTTP.TLSCert = expandHome(c.HTTP.TLSCert)
	c.HTTP.TLSKey = expandHome(c.HTTP.TLSKey)
	c.HTTP.AuditLog = expandHome(c.HTTP.AuditLog)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// maxSecretFileBytes bounds a secret file read at start: a token is
// short, and a path naming the wrong file (a log, a disk image) must not
// be read whole.
const maxSecretFileBytes = 64 << 10

// readTokenFile fills Token from TokenFile, trimmed of the line end an
// editor or `echo` leaves.
func (g *Git) readTokenFile() error {
	if g.TokenFile == "" {
		return nil
	}
	if g.Token != "" {
		return fmt.Errorf("config: git.token and git.token_file are both set; keep one")
	}
	f, err := os.Open(g.TokenFile)
	if err != nil {
		return fmt.Errorf("config: git.token_file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return fmt.Errorf("config: git.token_file %s: %w", g.TokenFile, err)
	}
	if len(data) > maxSecretFileBytes {
		return fmt.Errorf("config: git.token_file %s is over %d KiB; it should hold only the token", g.TokenFile, maxSecretFileBytes>>10)
	}
	g.Token = strings.TrimSpace(string(data))
	if g.Token == "" {
		return fmt.Errorf("config: git.token_file %s is empty", g.TokenFile)
	}
	if strings.ContainsAny(g.Token, "\r\n") {
		return fmt.Errorf("config: git.token_file %s holds more than one line; it should hold only the token", g.TokenFile)
	}
	return nil
}

// setDefaults gives every key a default. Viper reads the environment only
// for keys it knows, so a key without one (git.token, say) could not be
// set through VAULTMCP_* at all.
func setDefaults(v *viper.Viper) {
	v.SetDefault("vault.path", "")
	v.SetDefault("vault.hidden", []string{".git", ".claude"})
	v.SetDefault("vault.skip", []string{".obsidian", ".trash"})
	// The same defaults as tools.DefaultMaxReadBytes and
	// tools.DefaultMaxResultBytes (config does not import tools).
	v.SetDefault("vault.max_read_bytes", 64<<10)
	v.SetDefault("limits.max_result_bytes", 4<<20)
	v.SetDefault("git.remote", "")
	v.SetDefault("git.branch", "")
	v.SetDefault("git.author_name", "vaultmcp")
	v.SetDefault("git.author_email", "vaultmcp@localhost")
	v.SetDefault("git.sync_interval", 60*time.Second)
	v.SetDefault("git.push", true)
	v.SetDefault("git.username", "git")
	v.SetDefault("git.token", "")
	v.SetDefault("git.token_file", "")
	v.SetDefault("git.ssh_key", "")
	v.SetDefault("git.ssh_key_passphrase", "")
	v.SetDefault("git.known_hosts", "")
	v.SetDefault("git.fsync", true)
	v.SetDefault("git.network_timeout", 2*time.Minute)
	v.SetDefault("git.mass_deletion_files", 200)
	v.SetDefault("git.mass_deletion_percent", 20)
	v.SetDefault("git.allow_mass_deletion", false)
	v.SetDefault("git.gc_interval", time.Hour)
	v.SetDefault("log.level", "info")
	v.SetDefault("limits.max_write_bytes", 10<<20)
	v.SetDefault("limits.max_message_bytes", 10<<20)
	v.SetDefault("limits.max_note_bytes", 10<<20)
	v.SetDefault("limits.memory_bytes", DefaultMemoryBytes)
	setHTTPDefaults(v)
}

// readFile merges the config file: the one named, else the first found in
// the default locations. A named file that is missing is an error; no
// file at the default locations is fine.
func readFile(v *viper.Viper, named string) (string, error) {
	if named != "" {
		v.SetConfigFile(named)
		if err := v.MergeInConfig(); err != nil {
			return "", fmt.Errorf("config file %s: %w", named, err)
		}
		return named, nil
	}
	for _, dir := range configDirs() {
		f := filepath.Join(dir, "vaultmcp.yaml")
		if _, err := os.Stat(f); err != nil {
			continue
		}
		v.SetConfigFile(f)
		if err := v.MergeInConfig(); err != nil {
			return "", fmt.Errorf("config file %s: %w", f, err)
		}
		return f, nil
	}
	return "", nil
}

func configDirs() []string {
	dirs := []string{"."}
	if d, err := os.UserConfigDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "vaultmcp"))
	}
	return append(dirs, "/etc/vaultmcp")
}

// VaultOptions are the options the server opens the vault with; the
// bench's fresh index builds open it with the same ones.
func (c *Config) VaultOptions() vault.Options {
	return vault.Options{Hidden: c.Vault.Hidden, Skip: c.Vault.Skip, MaxWriteBytes: c.Limits.MaxWriteBytes}
}

// Validate reports configuration that cannot work.
func (c *Config) Validate() error {
	var errs []error
	if c.Vault.MaxReadBytes <= 0 {
		errs = append(errs, fmt.Errorf("vault.max_read_bytes must be positive, got %d", c.Vault.MaxReadBytes))
	}
	if c.Limits.MaxResultBytes <= 0 {
		errs = append(errs, fmt.Errorf("limits.max_result_bytes must be positive, got %d", c.Limits.MaxResultBytes))
	}
	for _, l := range []struct {
		key string
		n   int64
	}{
		{"limits.max_write_bytes", c.Limits.MaxWriteBytes},
		{"limits.max_message_bytes", c.Limits.MaxMessageBytes},
		{"limits.max_note_bytes", c.Limits.MaxNoteBytes},
	} {
		if l.n <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %d", l.key, l.n))
		}
	}
	if c.Limits.MemoryBytes < 0 {
		errs = append(errs, fmt.Errorf("limits.memory_bytes must not be negative (0 turns the limit off), got %d", c.Limits.MemoryBytes))
	}
	if c.Git.SyncInterval < 0 {
		errs = append(errs, fmt.Errorf("git.sync_interval must not be negative, got %s", c.Git.SyncInterval))
	}
	switch strings.ToLower(c.Log.Level) {
	case "debug", "info", "warn", "warning", "error":
	default:
		errs = append(errs, fmt.Errorf("log.level must be debug, info, warn or error, got %q", c.Log.Level))
	}
	if c.Git.NetworkTimeout <= 0 {
		errs = append(errs, fmt.Errorf("git.network_timeout must be positive, got %s", c.Git.NetworkTimeout))
	}
	if c.Git.MassDeletionFiles <= 0 {
		errs = append(errs, fmt.Errorf("git.mass_deletion_files must be positive, got %d", c.Git.MassDeletionFiles))
	}
	if c.Git.MassDeletionPercent <= 0 || c.Git.MassDeletionPercent > 100 {
		errs = append(errs, fmt.Errorf("git.mass_deletion_percent must be between 1 and 100, got %d", c.Git.MassDeletionPercent))
	}
	if c.Git.GCInterval < 0 {
		errs = append(errs, fmt.Errorf("git.gc_interval must not be negative, got %s", c.Git.GCInterval))
	}
	errs = append(errs, c.validateHTTP()...)
	return errors.Join(errs...)
}

// DefaultVaultDir is where the local default vault lives when none is
// configured: $XDG_DATA_HOME/vaultmcp/vault, else
// ~/.local/share/vaultmcp/vault.
func DefaultVaultDir() string {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "vaultmcp", "vault")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		home = os.TempDir()
	}
	return filepath.Join(home, ".local", "share", "vaultmcp", "vault")
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}
