package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/spf13/pflag"

	"vaultmcp/internal/config"
	"vaultmcp/internal/oauth"
)

// maxClockSkew is how far the clock may be from a server's Date header:
// JWTs and OAuth tokens carry times, and a clock further off makes
// clients see them expired or not yet valid.
const maxClockSkew = time.Minute

// doctor checks a configuration the way serve would use it and prints one
// line per check: ✓, or ✗ with how to fix it, or - when a check does not
// apply.
type doctor struct {
	out    io.Writer
	now    func() time.Time
	client *http.Client
	failed int
}

func (d *doctor) pass(check, format string, args ...any) {
	fmt.Fprintf(d.out, "✓ %-12s %s\n", check, fmt.Sprintf(format, args...))
}

func (d *doctor) skip(check, format string, args ...any) {
	fmt.Fprintf(d.out, "- %-12s %s\n", check, fmt.Sprintf(format, args...))
}

// fail reports a failed check: what is wrong, then how to fix it.
func (d *doctor) fail(check, problem, fix string) {
	d.failed++
	fmt.Fprintf(d.out, "✗ %-12s %s\n", check, problem)
	if fix != "" {
		fmt.Fprintf(d.out, "  %-12s fix: %s\n", "", fix)
	}
}

// doctorCommand runs `vaultmcp doctor [flags]`; it takes serve's flags,
// so it reads the same configuration serve would.
func doctorCommand(ctx context.Context, fs *pflag.FlagSet, args []string, stdout io.Writer) error {
	config.Flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil
		}
		return err
	}
	if err := httpAddrArg(fs); err != nil {
		return err
	}
	d := &doctor{out: stdout, now: time.Now, client: &http.Client{Timeout: 15 * time.Second}}
	return d.run(ctx, fs)
}

func (d *doctor) run(ctx context.Context, fs *pflag.FlagSet) error {
	cfg, err := config.Load(fs)
	if err != nil {
		d.fail("config", err.Error(), "correct the setting named above in the file or the VAULTMCP_* variable")
		return d.result()
	}
	if cfg.File != "" {
		d.pass("config", "%s parses", cfg.File)
	} else {
		d.pass("config", "no config file; defaults and VAULTMCP_* variables")
	}
	if repo, ok := d.checkVault(cfg); ok {
		d.checkRemote(ctx, cfg, repo)
	}
	d.checkIdentity(cfg)
	if cfg.HTTP.Addr != "" {
		d.checkHTTP(cfg)
	}
	d.checkClock(ctx, cfg)
	d.checkRunning(ctx, cfg)
	return d.result()
}

func (d *doctor) result() error {
	if d.failed > 0 {
		return fmt.Errorf("doctor: %d check(s) failed", d.failed)
	}
	return nil
}

// checkVault checks the vault folder and opens its repository: nil, true
// for a folder serve will make a repository of (git init, or a clone of
// git.remote into an empty one); false when the vault cannot be used.
func (d *doctor) checkVault(cfg *config.Config) (*gogit.Repository, bool) {
	dir := cfg.Vault.Path
	if dir == "" {
		dir = config.DefaultVaultDir()
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && cfg.Vault.Path == "":
		d.pass("vault", "%s does not exist yet; serve creates the default vault there", dir)
		return nil, true
	case err != nil:
		d.fail("vault", fmt.Sprintf("vault folder %s: %v", dir, err), "set vault.path (or --vault) to your vault, or create it with vaultmcp init")
		return nil, false
	case !fi.IsDir():
		d.fail("vault", dir+" is not a folder", "set vault.path to the vault's folder")
		return nil, false
	}
	d.pass("vault", "%s", dir)
	repo, err := gogit.PlainOpen(dir)
	if errors.Is(err, gogit.ErrRepositoryNotExists) {
		d.pass("git", "%s is not a git repository yet; serve makes it one (a clone of git.remote when the folder is empty)", dir)
		return nil, true
	}
	if err != nil {
		d.fail("git", fmt.Sprintf("repository %s: %v", dir, err), "repair the repository (git fsck), or move the folder away and clone the remote again")
		return nil, false
	}
	d.pass("git", "%s is a git repository", dir)
	return repo, true
}

// checkRemote connects to the remote as fetch and push do (repo is nil
// for a vault that is no repository yet): its
// upload-pack (fetch) and its receive-pack (a dry-run push, which sends
// nothing), both with the configured credential.
func (d *doctor) checkRemote(ctx context.Context, cfg *config.Config, repo *gogit.Repository) {
	branch := cfg.Git.Branch
	if branch == "" {
		branch = "main"
		if repo != nil {
			if head, err := repo.Head(); err == nil && head.Name().IsBranch() {
				branch = head.Name().Short()
			}
		}
	}
	remote := cfg.Git.Remote
	if remote == "" && repo != nil {
		if r, err := repo.Remote("origin"); err == nil && len(r.Config().URLs) > 0 {
			remote = r.Config().URLs[0]
		}
	}
	if remote == "" {
		d.pass("remote", "none: commits on %s stay on this machine (set git.remote to back them up)", branch)
		return
	}
	shown := redactedURL(remote)
	ep, err := transport.NewEndpoint(remote)
	if err != nil {
		d.fail("remote", fmt.Sprintf("%s is not a URL git can use: %v", shown, err), "write git.remote as https://host/owner/notes.git or git@host:owner/notes.git")
		return
	}
	cl, err := client.NewClient(ep)
	if err != nil {
		d.fail("remote", fmt.Sprintf("%s: %v", shown, err), "use an https or ssh remote")
		return
	}
	auth := gitAuth(cfg)
	method, err := auth.Method(remote)
	if err != nil {
		d.fail("remote", fmt.Sprintf("credential for %s: %v", shown, err), "check git.ssh_key, git.ssh_key_passphrase and git.known_hosts")
		return
	}
	fix := "check the URL and the credential: git.token or git.token_file for https, git.ssh_key and git.known_hosts for ssh (the key must be allowed to write: a deploy key with write access)"
	ctx, cancel := context.WithTimeout(ctx, cfg.Git.NetworkTimeout)
	defer cancel()

	up, err := cl.NewUploadPackSession(ep, method)
	var refs map[string]string
	if err == nil {
		adv, aerr := up.AdvertisedReferencesContext(ctx)
		err = aerr
		if adv != nil {
			refs = map[string]string{}
			for name, h := range adv.References {
				refs[name] = h.String()
			}
		}
		up.Close()
	}
	switch {
	case errors.Is(err, transport.ErrEmptyRemoteRepository):
		d.pass("remote", "%s is reachable and empty; the first push fills it", shown)
	case err != nil:
		d.fail("remote", fmt.Sprintf("cannot fetch from %s: %v", shown, err), fix)
		return
	default:
		d.pass("remote", "%s is reachable and the credential can fetch", shown)
	}
	if h, ok := refs["refs/heads/"+branch]; ok {
		d.pass("branch", "%s is at %s on the remote", branch, h[:7])
	} else {
		d.pass("branch", "%s is not on the remote yet; the first push creates it", branch)
	}

	rp, err := cl.NewReceivePackSession(ep, method)
	if err == nil {
		_, err = rp.AdvertisedReferencesContext(ctx)
		rp.Close()
	}
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		d.fail("push", fmt.Sprintf("cannot push to %s (dry run): %v", shown, err), fix)
		return
	}
	if !cfg.Git.Push {
		d.pass("push", "the credential may push, but git.push is off: commits stay here")
		return
	}
	d.pass("push", "the credential may push to %s (dry run)", shown)
}

func (d *doctor) checkIdentity(cfg *config.Config) {
	name, email := cfg.Git.AuthorName, cfg.Git.AuthorEmail
	switch {
	case strings.TrimSpace(name) == "":
		d.fail("identity", "git.author_name is empty; commits need an author", "set git.author_name, e.g. vaultmcp on myserver")
	case !strings.Contains(email, "@") || strings.ContainsAny(email, "<> \n"):
		d.fail("identity", fmt.Sprintf("git.author_email %q is not an email address", email), "set git.author_email, e.g. vaultmcp@myserver")
	default:
		d.pass("identity", "commits are signed %s <%s>", name, email)
	}
}

// checkHTTP checks what serve --http refuses or needs: a credential off
// loopback, TLS or a proxy, the public URL against the allowed hosts, the
// certificate, and the OAuth state file.
func (d *doctor) checkHTTP(cfg *config.Config) {
	h := cfg.HTTP
	loopback, err := loopbackAddr(h.Addr)
	if err != nil {
		d.fail("http", err.Error(), "set http.addr (or --http) to host:port")
		return
	}
	switch {
	case h.Auth == "none" && !loopback:
		d.fail("credentials", fmt.Sprintf("http.auth is none on %s, which is not loopback: anyone who reaches it could use the vault", h.Addr),
			"set http.auth: required and add a token (vaultmcp token create NAME) or users (vaultmcp hash-password)")
	case h.Auth == "none":
		d.pass("credentials", "none needed: http.auth is none on loopback %s", h.Addr)
	case len(h.Tokens)+len(h.Users) == 0 && !loopback:
		d.fail("credentials", fmt.Sprintf("no credential is configured for %s, which is not loopback; serve refuses to start", h.Addr),
			"add a token (vaultmcp token create NAME, then http.tokens) or users (vaultmcp hash-password, then http.users)")
	case len(h.Tokens)+len(h.Users) == 0:
		d.pass("credentials", "none configured; on loopback serve prints a token valid until it stops")
	default:
		d.pass("credentials", "%d token(s), %d user(s)", len(h.Tokens), len(h.Users))
	}
	if !loopback && h.TLSCert == "" && !h.AllowPlaintext {
		d.fail("tls", fmt.Sprintf("%s is not loopback and the server would speak plain HTTP there; serve refuses to start", h.Addr),
			"set http.tls_cert and http.tls_key, or http.allow_plaintext: true when a TLS proxy is in front (better: listen on 127.0.0.1 behind it)")
	}
	d.checkPublicURL(h, loopback)
	if h.TLSCert != "" {
		d.checkCertificate(h)
	}
	if h.OAuth.Enabled {
		d.checkOAuthState(h)
	}
}

func (d *doctor) checkPublicURL(h config.HTTP, loopback bool) {
	if h.PublicURL == "" {
		if !loopback && len(h.AllowedHosts) == 0 {
			d.fail("public_url", fmt.Sprintf("%s is not loopback and neither http.public_url nor http.allowed_hosts is set; serve refuses to start", h.Addr),
				"set http.public_url to the address clients use, e.g. https://vault.example.com")
			return
		}
		d.pass("public_url", "not set; clients' Host headers name the server (allowed: loopback %s)", strings.Join(h.AllowedHosts, " "))
		return
	}
	u, err := url.Parse(strings.TrimSuffix(h.PublicURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		d.fail("public_url", fmt.Sprintf("http.public_url %q is not an absolute http(s) URL of a host", h.PublicURL), "write it as https://vault.example.com, without a path")
		return
	}
	if len(h.AllowedHosts) > 0 && !slices.ContainsFunc(h.AllowedHosts, func(a string) bool {
		a = strings.ToLower(strings.TrimSpace(a))
		return a == strings.ToLower(u.Host) || a == strings.ToLower(u.Hostname())
	}) {
		d.fail("public_url", fmt.Sprintf("the host of http.public_url (%s) is not in http.allowed_hosts (%s): clients that come by those names get OAuth metadata naming another server", u.Host, strings.Join(h.AllowedHosts, ", ")),
			"add "+u.Hostname()+" to http.allowed_hosts, or correct http.public_url")
		return
	}
	if u.Scheme == "http" && !loopback {
		d.pass("public_url", "%s (plain http: connectors such as Claude's want https)", h.PublicURL)
		return
	}
	d.pass("public_url", "%s", h.PublicURL)
}

func (d *doctor) checkCertificate(h config.HTTP) {
	pair, err := tls.LoadX509KeyPair(h.TLSCert, h.TLSKey)
	if err != nil {
		d.fail("certificate", fmt.Sprintf("http.tls_cert %s with http.tls_key %s: %v", h.TLSCert, h.TLSKey, err), "point both at a readable PEM certificate and its key")
		return
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		d.fail("certificate", fmt.Sprintf("%s: %v", h.TLSCert, err), "use a valid PEM certificate")
		return
	}
	now := d.now()
	switch {
	case now.After(leaf.NotAfter):
		d.fail("certificate", fmt.Sprintf("%s expired on %s", h.TLSCert, leaf.NotAfter.UTC().Format(time.DateOnly)), "renew it (or let a proxy such as Caddy handle TLS)")
	case now.Before(leaf.NotBefore):
		d.fail("certificate", fmt.Sprintf("%s is valid only from %s", h.TLSCert, leaf.NotBefore.UTC().Format(time.RFC3339)), "check the clock, or the certificate's dates")
	default:
		d.pass("certificate", "%s valid until %s (%d days)", h.TLSCert, leaf.NotAfter.UTC().Format(time.DateOnly), int(leaf.NotAfter.Sub(now).Hours()/24))
	}
}

// checkOAuthState checks the OAuth state file as the server loads it: a
// folder no other user may write, and a regular file of the server's
// user that others cannot read.
func (d *doctor) checkOAuthState(h config.HTTP) {
	path := h.OAuth.StateFile
	if path == "" {
		p, err := oauth.DefaultStateFile()
		if err != nil {
			d.fail("oauth state", err.Error(), "set http.oauth.state_file")
			return
		}
		path = p
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
		d.fail("oauth state", fmt.Sprintf("the folder %s may be written by other users (mode %v); the server refuses to keep its signing key there", dir, fi.Mode().Perm()),
			"chmod 700 "+dir+", or set http.oauth.state_file to a file in a private folder")
		return
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.pass("oauth state", "%s does not exist yet; the server creates it", path)
		return
	case err != nil:
		d.fail("oauth state", err.Error(), "make the file readable by the server's user, or set http.oauth.state_file")
		return
	case !fi.Mode().IsRegular():
		d.fail("oauth state", fmt.Sprintf("%s is not a regular file (%v)", path, fi.Mode().Type()), "replace it with a file of its own (remove the link; clients sign in again)")
		return
	case !ownedByMe(fi):
		d.fail("oauth state", path+" belongs to another user; the server refuses it", "run doctor as the server's user, or chown the file to that user")
		return
	case fi.Mode().Perm()&0o077 != 0:
		d.fail("oauth state", fmt.Sprintf("%s is readable by others (mode %v): it holds the key that signs access tokens", path, fi.Mode().Perm()),
			"chmod 600 "+path+"; the key may have been read: to sign every client out, stop the server and remove the file")
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		d.fail("oauth state", err.Error(), "make the file readable by the server's user")
		return
	}
	if !json.Valid(raw) {
		d.fail("oauth state", path+" is not valid JSON", "restore it from a backup, or remove it (every client signs in again)")
		return
	}
	d.pass("oauth state", "%s (mode %v)", path, fi.Mode().Perm())
}

// checkClock compares the clock with the Date header of a server the
// configuration names: the https remote, else the public URL.
func (d *doctor) checkClock(ctx context.Context, cfg *config.Config) {
	var ref string
	for _, u := range []string{cfg.Git.Remote, cfg.HTTP.PublicURL} {
		if strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://") {
			ref = u
			break
		}
	}
	if ref == "" {
		d.skip("clock", "no http(s) remote or public URL to compare with; keep NTP on (timedatectl set-ntp true)")
		return
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, ref, nil)
	if err != nil {
		d.skip("clock", "cannot ask %s: %v", redactedURL(ref), err)
		return
	}
	res, err := d.client.Do(req)
	if err != nil {
		d.skip("clock", "%s did not answer (%v); keep NTP on", redactedURL(ref), err)
		return
	}
	res.Body.Close()
	date, err := http.ParseTime(res.Header.Get("Date"))
	if err != nil {
		d.skip("clock", "%s sent no Date header to compare with", redactedURL(ref))
		return
	}
	skew := d.now().Sub(date)
	if skew.Abs() > maxClockSkew {
		d.fail("clock", fmt.Sprintf("this clock is %s off %s's: JWTs and OAuth tokens would look expired or not yet valid", skew.Round(time.Second), redactedURL(ref)),
			"turn on time synchronisation (timedatectl set-ntp true, or chrony)")
		return
	}
	d.pass("clock", "within %s of %s", maxClockSkew, redactedURL(ref))
}

// checkRunning fetches the protected resource metadata from the public
// URL, the first thing a connector asks for, when the server answers
// there.
func (d *doctor) checkRunning(ctx context.Context, cfg *config.Config) {
	pub := strings.TrimSuffix(cfg.HTTP.PublicURL, "/")
	if pub == "" {
		d.skip("server", "no http.public_url to reach the server at")
		return
	}
	target := pub + "/.well-known/oauth-protected-resource"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		d.skip("server", "cannot ask %s: %v", target, err)
		return
	}
	res, err := d.client.Do(req)
	if err != nil {
		d.skip("server", "not answering at %s (not running?): %v", pub, err)
		return
	}
	defer res.Body.Close()
	var meta struct {
		Resource string `json:"resource"`
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode != http.StatusOK {
		d.fail("server", fmt.Sprintf("%s answered %s: connectors cannot discover how to sign in", target, res.Status),
			"let the proxy pass /.well-known/* and /oauth/* to the server, and turn off bot challenges for them")
		return
	}
	if err := json.Unmarshal(body, &meta); err != nil || !strings.HasPrefix(meta.Resource, pub) {
		d.fail("server", fmt.Sprintf("%s does not describe this server (resource %q)", target, meta.Resource),
			"check that the proxy sends this name to vaultmcp, and that http.public_url is the address clients use")
		return
	}
	d.pass("server", "answers at %s (resource %s)", pub, meta.Resource)
}

// redactedURL hides a password or token in a URL.
func redactedURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}
