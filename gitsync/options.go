package gitsync

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// Defaults used when the matching Options field is left at its zero value.
const (
	DefaultRemoteName    = "origin"
	DefaultBranch        = "main"
	DefaultAuthorName    = "vaultmcp"
	DefaultAuthorEmail   = "vaultmcp@localhost"
	DefaultMessagePrefix = "MCP: "
	DefaultSyncInterval  = 60 * time.Second
	// DefaultNetworkTimeout bounds one fetch or push.
	DefaultNetworkTimeout = 2 * time.Minute
	// DefaultMassDeletionFiles and DefaultMassDeletionPercent are the
	// mass-deletion guard's thresholds (see Options.MassDeletionFiles).
	DefaultMassDeletionFiles   = 200
	DefaultMassDeletionPercent = 20
	// DefaultGCInterval is how often loose objects are packed (see
	// Options.GCInterval).
	DefaultGCInterval = time.Hour
	// DefaultMaxFileBytes is the largest file the external-changes scan
	// commits (see Options.MaxFileBytes).
	DefaultMaxFileBytes = 10 << 20

	// ExternalChangesMessage is the message of the commit that picks up files
	// changed outside the server (Obsidian on the same disk, a text editor).
	ExternalChangesMessage = "vault: sync external changes"
)

// Options configure a Repo. Every field has a working zero value, so
// Options{Dir: dir} is a local-only repository that commits every change.
type Options struct {
	// Dir is the vault folder, which is (or becomes) the top of the git
	// worktree.
	Dir string
	// RemoteURL is the remote to clone from and sync with (ssh, https or a
	// local path). Empty means: use the repository's existing remote named
	// RemoteName if it has one, else commit locally only.
	RemoteURL string
	// RemoteName defaults to "origin".
	RemoteName string
	// Branch is the branch the server commits to and pushes. Empty means the
	// branch HEAD is on, the remote's default branch when cloning, or "main"
	// for a new repository.
	Branch string
	// AuthorName and AuthorEmail sign every commit as author and committer.
	AuthorName  string
	AuthorEmail string
	// MessagePrefix is put before the summary of each change Prepare and
	// Commit record ("MCP: ").
	MessagePrefix string
	// Auth holds the credentials for the remote.
	Auth Auth
	// SyncInterval is how often the remote is pulled: 0 means
	// DefaultSyncInterval, a negative value never (pulls still happen on
	// Start and when a push is rejected).
	SyncInterval time.Duration
	// NoPush turns the background push off (pushing is on by default); the
	// server then only pulls.
	NoPush bool
	// NetworkTimeout bounds each fetch and push (a clone gets five times
	// as long); 0 means DefaultNetworkTimeout.
	NetworkTimeout time.Duration
	// MassDeletionFiles and MassDeletionPercent set the mass-deletion
	// guard: when the external-changes scan finds more than
	// MassDeletionFiles tracked files gone at once, or more than
	// MassDeletionPercent percent of them (and at least five), or every
	// one of them, the deletion is held back: not committed, not pushed,
	// reported in Status until it is confirmed (ConfirmDeletion) or the
	// files come back. 0 means the defaults (200 files, 20 percent).
	MassDeletionFiles   int
	MassDeletionPercent int
	// AllowMassDeletion turns the guard off: deletions are committed
	// whatever their size.
	AllowMassDeletion bool
	// GCInterval is how often the background loop packs loose objects
	// (`git gc --auto` when git is installed, else go-git packs them); 0
	// means DefaultGCInterval, a negative value never.
	GCInterval time.Duration
	// LoadIndexLater leaves reading .git/index (about 2 ms per 1,000
	// files) out of Open: the first commit or sync reads it, and
	// CheckIndex reads it when the caller chooses, to refuse an
	// unreadable one as Open otherwise does. A server answering its first
	// client before any work that grows with the vault sets it.
	LoadIndexLater bool
	// MaxFileBytes is the largest file the external-changes scan hashes
	// and commits: a larger file dropped into the vault or grown there is
	// left out of commits (a tracked one keeps its committed version) and
	// logged once, so a multi-gigabyte file cannot exhaust memory or be
	// pushed to a forge that refuses it. 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// NoFsync skips flushing commits to disk (fsync). By default every
	// commit's objects, index and ref are flushed before it is reported
	// done, so a power loss cannot leave the branch pointing at an object
	// that never reached the disk; that costs a few milliseconds a write.
	NoFsync bool
	// Locker is the vault's write lock. The sync loop holds it whenever it
	// changes files in the worktree or commits external changes, so it never
	// interleaves with a vault write. Prepare, Publish and Commit must be
	// called with it held.
	// Nil means an internal lock (fine when nothing else writes).
	Locker sync.Locker
	// Changed is told which vault-relative paths a pull changed, removed or
	// created in the worktree, so the caller's index can refresh them. It is
	// called with Locker held and must neither take Locker nor call back
	// into Repo.
	Changed func(paths []string)
	// Logger receives sync events (pushes, pulls, conflicts). Nil discards.
	Logger *slog.Logger
	// Now is the clock, for tests; nil means time.Now.
	Now func() time.Time
}

// Auth holds credentials for the remote. Leave it empty for a local path
// remote or for an SSH agent found through SSH_AUTH_SOCK.
type Auth struct {
	// SSHKeyFile is a private key file for ssh remotes; SSHKeyPassphrase
	// unlocks it when it is encrypted.
	SSHKeyFile       string
	SSHKeyPassphrase string
	// SSHAgent uses the running ssh-agent (SSH_AUTH_SOCK) instead of a key
	// file.
	SSHAgent bool
	// SSHUser is the ssh login, "git" by default (or the user in the URL).
	SSHUser string
	// KnownHostsFiles are checked for the server's host key; empty means the
	// usual places (SSH_KNOWN_HOSTS, ~/.ssh/known_hosts,
	// /etc/ssh/ssh_known_hosts). Host keys are always checked.
	KnownHostsFiles []string
	// Token is an HTTPS access token, sent as the password of HTTP basic
	// auth, which is what GitHub, GitLab and Gitea accept.
	Token string
	// Username goes with Token; "git" by default (any non-empty name works
	// with the common forges).
	Username string
}

// normalized returns o with defaults filled in and Dir made absolute.
func (o Options) normalized() (Options, error) {
	if o.Dir == "" {
		return o, errors.New("gitsync: no vault folder given")
	}
	abs, err := filepath.Abs(o.Dir)
	if err != nil {
		return o, fmt.Errorf("gitsync: vault folder: %w", err)
	}
	o.Dir = abs
	if o.RemoteName == "" {
		o.RemoteName = DefaultRemoteName
	}
	if o.AuthorName == "" {
		o.AuthorName = DefaultAuthorName
	}
	if o.AuthorEmail == "" {
		o.AuthorEmail = DefaultAuthorEmail
	}
	if o.MessagePrefix == "" {
		o.MessagePrefix = DefaultMessagePrefix
	}
	if o.SyncInterval == 0 {
		o.SyncInterval = DefaultSyncInterval
	}
	if o.NetworkTimeout <= 0 {
		o.NetworkTimeout = DefaultNetworkTimeout
	}
	if o.MassDeletionFiles <= 0 {
		o.MassDeletionFiles = DefaultMassDeletionFiles
	}
	if o.MassDeletionPercent <= 0 {
		o.MassDeletionPercent = DefaultMassDeletionPercent
	}
	if o.GCInterval == 0 {
		o.GCInterval = DefaultGCInterval
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.Locker == nil {
		o.Locker = &sync.Mutex{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

// resolveLocalURL makes a remote that is a relative folder path absolute
// against the worktree, as git reads it (`git remote add origin
// ../vault.git`). go-git would resolve it against the server's working
// directory, which is wherever the MCP client happened to start it.
func resolveLocalURL(u, worktree string) string {
	if u == "" || strings.Contains(u, "://") || isSSHURL(u) || filepath.IsAbs(u) {
		return u
	}
	return filepath.Join(worktree, filepath.FromSlash(u))
}

// redactUnparsed hides the password of a URL url.Parse refused, which a
// typo elsewhere in it does not make any less secret: whatever follows
// the first ':' after "://" up to the last '@' (a password may hold '/',
// '#' or '?', as base64 credentials do). A URL with an '@' in its path is
// cut too much, which in a message is harmless.
func redactUnparsed(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	start := len(u) - len(rest)
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return u
	}
	colon := strings.IndexByte(rest[:at], ':')
	if colon < 0 {
		if tokenLike(rest[:at]) {
			return u[:start] + "xxxxx" + u[start+at:]
		}
		return u
	}
	user := rest[:colon]
	if tokenLike(user) {
		user = "xxxxx"
	}
	return u[:start] + user + ":xxxxx" + u[start+at:]
}

// tokenLike reports whether a URL's user name is likely an access token,
// as hosts let one be written (https://TOKEN@github.com/…,
// https://TOKEN:x-oauth-basic@github.com/…): a known token prefix, or 20
// characters and more, longer than people's user names.
func tokenLike(user string) bool {
	for _, prefix := range []string{"ghp_", "gho_", "ghu_", "ghs_", "github_pat_", "glpat-"} {
		if strings.HasPrefix(user, prefix) {
			return true
		}
	}
	return len(user) >= 20
}

// usableRemoteURL reports a remote URL no fetch or push could use: one
// that does not parse, or whose scheme go-git has no client for. Either is
// a mistake in the configuration, not a remote that is down, so it is said
// at start rather than logged at every push. The URL is shown redacted,
// and a parse error's own copy of it is left out: it may hold a token.
func usableRemoteURL(u string) error {
	ep, err := transport.NewEndpoint(u)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if strings.Contains(u, "@") {
			// The parser's reason may quote a piece of the password
			// (`invalid port ":ab" after host`).
			err = errors.New("it does not parse")
		}
		return fmt.Errorf("%q is not a URL git can use: %w (write it as https://host/owner/notes.git, git@host:owner/notes.git or a folder path)", redactURL(u), err)
	}
	if _, err := client.NewClient(ep); err != nil {
		return fmt.Errorf("%q: %w (use https, ssh, git or a folder path)", redactURL(u), err)
	}
	return nil
}

// isSSHURL tells whether u is an ssh URL, including the scp-like form
// user@host:path.
func isSSHURL(u string) bool {
	if strings.HasPrefix(u, "ssh://") || strings.HasPrefix(u, "git+ssh://") {
		return true
	}
	if strings.Contains(u, "://") {
		return false
	}
	ep, err := transport.NewEndpoint(u)
	return err == nil && ep.Protocol == "ssh"
}

// Method is the go-git auth method for remoteURL, as fetches and pushes
// use it (vaultmcp doctor tries the remote with it); nil for local paths
// and for https without a token.
func (a Auth) Method(remoteURL string) (transport.AuthMethod, error) {
	return a.method(remoteURL)
}

// method builds the go-git auth method for remoteURL. It returns nil (no
// auth) for local paths and for https without a token.
func (a Auth) method(remoteURL string) (transport.AuthMethod, error) {
	switch {
	case isSSHURL(remoteURL):
		user := a.SSHUser
		if user == "" {
			if ep, err := transport.NewEndpoint(remoteURL); err == nil && ep.User != "" {
				user = ep.User
			} else {
				user = "git"
			}
		}
		var (
			m   *gitssh.PublicKeys
			am  *gitssh.PublicKeysCallback
			err error
		)
		switch {
		case a.SSHKeyFile != "":
			m, err = gitssh.NewPublicKeysFromFile(user, a.SSHKeyFile, a.SSHKeyPassphrase)
			if err != nil {
				return nil, fmt.Errorf("ssh key %s: %w", a.SSHKeyFile, err)
			}
		case a.SSHAgent || os.Getenv("SSH_AUTH_SOCK") != "":
			am, err = gitssh.NewSSHAgentAuth(user)
			if err != nil {
				return nil, fmt.Errorf("ssh agent: %w", err)
			}
		default:
			return nil, errors.New("ssh remote needs an SSH key file or a running ssh-agent")
		}
		cb, err := gitssh.NewKnownHostsCallback(a.KnownHostsFiles...)
		if err != nil {
			return nil, fmt.Errorf("known_hosts: %w", err)
		}
		if m != nil {
			m.HostKeyCallback = cb
			return m, nil
		}
		am.HostKeyCallback = cb
		return am, nil
	case a.Token != "":
		u, err := url.Parse(remoteURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, errors.New("a token needs an http(s) remote URL")
		}
		user := a.Username
		if user == "" {
			user = "git"
		}
		return &githttp.BasicAuth{Username: user, Password: a.Token}, nil
	}
	return nil, nil
}

// redactURL hides the password of a URL, and a user name that is a
// token (tokenLike), for logs and status.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return redactUnparsed(u)
	}
	if p.User == nil {
		if _, rest, _ := strings.Cut(u, "://"); strings.Contains(rest, "@") {
			// A password of digits before a '/', '#' or '?' parses as a
			// port, the rest as path, query or fragment: no user, yet
			// the text holds a password.
			return redactUnparsed(u)
		}
		return u
	}
	user := p.User.Username()
	if tokenLike(user) {
		user = "xxxxx"
	}
	if _, ok := p.User.Password(); ok {
		p.User = url.UserPassword(user, "xxxxx")
	} else {
		p.User = url.User(user)
	}
	return p.String()
}
