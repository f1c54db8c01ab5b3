package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
	"golang.org/x/term"

	"vaultmcp/gitsync"
	"vaultmcp/internal/auth"
	"vaultmcp/internal/config"
)

// initOptions are `vaultmcp init`'s flags, or the answers to its prompts.
type initOptions struct {
	vault, remote, branch            string
	gitToken, sshKey, knownHosts     string
	configFile, addr, publicURL      string
	user, token                      string
	authorName, authorEmail          string
	allowPlaintext, force, noPrompts bool
}

// initConfig is the file init writes: only the settings it was given.
type initConfig struct {
	Vault struct {
		Path string `yaml:"path"`
	} `yaml:"vault"`
	Git struct {
		Remote      string `yaml:"remote,omitempty"`
		Branch      string `yaml:"branch,omitempty"`
		Token       string `yaml:"token,omitempty"`
		SSHKey      string `yaml:"ssh_key,omitempty"`
		KnownHosts  string `yaml:"known_hosts,omitempty"`
		AuthorName  string `yaml:"author_name,omitempty"`
		AuthorEmail string `yaml:"author_email,omitempty"`
	} `yaml:"git"`
	HTTP struct {
		Addr           string         `yaml:"addr"`
		PublicURL      string         `yaml:"public_url,omitempty"`
		AllowPlaintext bool           `yaml:"allow_plaintext,omitempty"`
		Users          []config.User  `yaml:"users,omitempty"`
		Tokens         []config.Token `yaml:"tokens,omitempty"`
		OAuth          struct {
			Enabled bool `yaml:"enabled"`
		} `yaml:"oauth"`
	} `yaml:"http"`
}

// initCommand runs `vaultmcp init`: a vault (cloned or adopted), a config
// file, a first user or token, and the connector URL. On a terminal it
// asks for what the flags left out; the password is read without echo.
func initCommand(ctx context.Context, fs *pflag.FlagSet, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o initOptions
	fs.StringVar(&o.vault, "vault", "", "the vault folder: cloned from --remote when missing or empty, else adopted (default "+config.DefaultVaultDir()+")")
	fs.StringVar(&o.remote, "remote", "", "the vault's git remote (https://… or git@…); empty keeps commits local")
	fs.StringVar(&o.branch, "branch", "", "the branch to work on (default: the remote's)")
	fs.StringVar(&o.gitToken, "git-token", "", "an HTTPS access token for the remote")
	fs.StringVar(&o.sshKey, "ssh-key", "", "a private key file for an SSH remote (a deploy key with write access)")
	fs.StringVar(&o.knownHosts, "known-hosts", "", "the known_hosts file for an SSH remote")
	fs.StringVar(&o.configFile, "config", "", "the config file to write (default $XDG_CONFIG_HOME/vaultmcp/vaultmcp.yaml)")
	fs.StringVar(&o.addr, "http", config.DefaultHTTPAddr, "the address serve listens on")
	fs.StringVar(&o.publicURL, "public-url", "", "the address clients reach the server at, e.g. https://vault.example.com")
	fs.BoolVar(&o.allowPlaintext, "allow-plaintext", false, "a TLS proxy in front: serve plain HTTP on a non-loopback --http")
	fs.StringVar(&o.user, "user", "", "create this user (OAuth sign-in for connectors); the password is read without echo, or from stdin's first line")
	fs.StringVar(&o.token, "token", "", "create an API token with this name (printed once)")
	fs.StringVar(&o.authorName, "author-name", "", "the name on the server's commits")
	fs.StringVar(&o.authorEmail, "author-email", "", "the email on the server's commits")
	fs.BoolVar(&o.force, "force", false, "overwrite an existing config file")
	fs.BoolVar(&o.noPrompts, "no-prompts", false, "never ask, even on a terminal")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (init takes flags only)", fs.Arg(0))
	}
	in := newAsker(stdin, stderr, !o.noPrompts)
	if err := o.ask(fs, in); err != nil {
		return err
	}
	return o.run(ctx, in, stdout)
}

// asker reads answers: prompts on a terminal, else lines of stdin.
type asker struct {
	in       io.Reader
	lines    *bufio.Reader
	out      io.Writer
	terminal bool
	fd       int
}

func newAsker(stdin io.Reader, stderr io.Writer, prompts bool) *asker {
	a := &asker{in: stdin, lines: bufio.NewReader(stdin), out: stderr}
	if f, ok := stdin.(*os.File); ok && prompts && term.IsTerminal(int(f.Fd())) {
		a.terminal, a.fd = true, int(f.Fd())
	}
	return a
}

// line asks a question on a terminal; def is the answer to an empty line.
func (a *asker) line(question, def string) (string, error) {
	if def != "" {
		fmt.Fprintf(a.out, "%s [%s]: ", question, def)
	} else {
		fmt.Fprintf(a.out, "%s: ", question)
	}
	s, err := a.lines.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if s = strings.TrimSpace(s); s == "" {
		return def, nil
	}
	return s, nil
}

// password reads a password: twice without echo on a terminal, else the
// first line of stdin (as hash-password does).
func (a *asker) password(user string) (string, error) {
	if !a.terminal {
		s, err := a.lines.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read the password from stdin: %w", err)
		}
		return strings.TrimRight(s, "\r\n"), nil
	}
	for {
		fmt.Fprintf(a.out, "Password for %s: ", user)
		p1, err := term.ReadPassword(a.fd)
		fmt.Fprintln(a.out)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		fmt.Fprint(a.out, "Again: ")
		p2, err := term.ReadPassword(a.fd)
		fmt.Fprintln(a.out)
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		if string(p1) == string(p2) {
			return string(p1), nil
		}
		fmt.Fprintln(a.out, "The two passwords differ; once more.")
	}
}

// ask fills in, on a terminal, what the flags left out.
func (o *initOptions) ask(fs *pflag.FlagSet, a *asker) error {
	if o.vault == "" && !a.terminal {
		o.vault = config.DefaultVaultDir()
	}
	if !a.terminal {
		return nil
	}
	questions := []struct {
		flag, question string
		value          *string
		def            string
	}{
		{"vault", "Vault folder", &o.vault, config.DefaultVaultDir()},
		{"remote", "Git remote to clone or push to (empty: none)", &o.remote, ""},
		{"public-url", "Public URL clients reach the server at (empty: " + o.addr + " only)", &o.publicURL, ""},
	}
	for _, q := range questions {
		if fs.Changed(q.flag) {
			continue
		}
		v, err := a.line(q.question, q.def)
		if err != nil {
			return err
		}
		*q.value = v
	}
	if !fs.Changed("user") && !fs.Changed("token") {
		v, err := a.line("User to sign in as in connectors (empty: create an API token instead)", "")
		if err != nil {
			return err
		}
		o.user = v
	}
	return nil
}

func (o *initOptions) run(ctx context.Context, a *asker, stdout io.Writer) error {
	if o.configFile == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return fmt.Errorf("no config folder (%v): name the file with --config", err)
		}
		o.configFile = filepath.Join(dir, "vaultmcp", "vaultmcp.yaml")
	}
	if _, err := os.Lstat(o.configFile); err == nil && !o.force {
		return fmt.Errorf("%s exists; init never overwrites a config (use --force to replace it, or --config to write another)", o.configFile)
	}
	if o.user == "" && o.token == "" {
		o.token = "first"
	}
	if o.token != "" && !tokenName().MatchString(o.token) {
		return fmt.Errorf("token name %q: use letters, digits, '.', '_' and '-' (at most 64)", o.token)
	}
	var cfg initConfig
	if o.user != "" {
		pw, err := a.password(o.user)
		if err != nil {
			return err
		}
		hash, err := auth.HashPassword([]byte(pw))
		if err != nil {
			return fmt.Errorf("the password for %s: %w", o.user, err)
		}
		cfg.HTTP.Users = []config.User{{Name: o.user, PasswordHash: hash}}
		cfg.HTTP.OAuth.Enabled = true
	}
	var token string
	if o.token != "" {
		tok, hash, err := auth.NewToken()
		if err != nil {
			return err
		}
		token = tok
		cfg.HTTP.Tokens = []config.Token{{Name: o.token, Hash: hash}}
	}

	vault, err := filepath.Abs(o.vault)
	if err != nil {
		return err
	}
	how, err := o.prepareVault(ctx, vault)
	if err != nil {
		return err
	}

	cfg.Vault.Path = vault
	cfg.Git.Remote, cfg.Git.Branch = o.remote, o.branch
	cfg.Git.Token, cfg.Git.SSHKey, cfg.Git.KnownHosts = o.gitToken, o.sshKey, o.knownHosts
	cfg.Git.AuthorName, cfg.Git.AuthorEmail = o.authorName, o.authorEmail
	cfg.HTTP.Addr, cfg.HTTP.PublicURL, cfg.HTTP.AllowPlaintext = o.addr, strings.TrimSuffix(o.publicURL, "/"), o.allowPlaintext
	if err := writeConfig(o.configFile, cfg, o.force); err != nil {
		return err
	}

	base := cfg.HTTP.PublicURL
	if base == "" {
		base = "http://" + o.addr
	}
	fmt.Fprintf(stdout, "Vault: %s (%s)\nConfig: %s\n", vault, how, o.configFile)
	if token != "" {
		fmt.Fprintf(stdout, "\nToken %s (shown once; clients send it as \"Authorization: Bearer <token>\"):\n\n  %s\n", o.token, token)
	}
	fmt.Fprintf(stdout, "\nConnector URL: %s/mcp\n", base)
	if o.user != "" {
		fmt.Fprintf(stdout, "Connectors sign in as %s on the server's own page (OAuth).\n", o.user)
	}
	fmt.Fprintf(stdout, `
Next:
  1. vaultmcp doctor --config %[1]s
  2. vaultmcp serve --config %[1]s   (or the systemd unit / container in docs/deploy.md)
  3. put a TLS proxy in front (deploy/Caddyfile) unless the address is loopback only
  4. add the connector URL in your client (Claude: Settings → Connectors → Add custom connector)
`, o.configFile)
	return nil
}

// prepareVault clones the remote into a missing or empty folder, or
// adopts the folder as it is; it says which.
func (o *initOptions) prepareVault(ctx context.Context, dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("vault %s: %w", dir, err)
	case len(entries) > 0:
		if _, err := gogit.PlainOpen(dir); err != nil && o.remote != "" {
			return "adopted", fmt.Errorf("vault %s holds files but is not a git repository, so %s cannot be cloned into it: choose an empty folder, or run git init and add the remote there", dir, redactedURL(o.remote))
		}
		return "adopted", nil
	case o.remote == "":
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return "", fmt.Errorf("create the vault: %w", err)
		}
		return "new; serve makes it a git repository", nil
	}
	a := gitsync.Auth{SSHKeyFile: o.sshKey, SSHAgent: o.sshKey == "", Token: o.gitToken, Username: "git"}
	if o.knownHosts != "" {
		a.KnownHostsFiles = []string{o.knownHosts}
	}
	method, err := a.Method(o.remote)
	if err != nil {
		return "", fmt.Errorf("credential for %s: %w", redactedURL(o.remote), err)
	}
	opts := &gogit.CloneOptions{URL: o.remote, Auth: method}
	if o.branch != "" {
		opts.ReferenceName = plumbing.NewBranchReferenceName(o.branch)
		opts.SingleBranch = true
	}
	if _, err := gogit.PlainCloneContext(ctx, dir, false, opts); err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			// Nothing to clone: serve makes the repository and its
			// first push fills the remote.
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return "", fmt.Errorf("create the vault: %w", err)
			}
			return "new; the remote is empty", nil
		}
		return "", fmt.Errorf("clone %s into %s: %w (check the URL and --git-token or --ssh-key)", redactedURL(o.remote), dir, err)
	}
	return "cloned from " + redactedURL(o.remote), nil
}

// writeConfig writes the config file, private (it may hold the remote's
// token), and never over an existing one unless force.
func writeConfig(path string, cfg initConfig, force bool) error {
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return err
	}
	data = append([]byte("# Written by vaultmcp init; every setting: docs/deploy.md and internal/config.\n"), data...)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config folder: %w", err)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; init never overwrites a config (use --force to replace it)", path)
	}
	if err != nil {
		return fmt.Errorf("write the config: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
