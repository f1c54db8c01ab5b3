package oauth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"vaultmcp/internal/auth"
)

// The scopes the server offers. A token without vault:write is read-only
// whatever the signed-in user may do; offline_access asks for a refresh
// token (which is given either way: a connector that must sign in again
// every hour is no use).
const (
	ScopeRead     = "vault:read"
	ScopeWrite    = "vault:write"
	OfflineAccess = "offline_access"
	// legacyScope is the one scope earlier versions offered: the vault
	// under the user's rules, writing included.
	legacyScope = "vault"
)

// The endpoints' paths.
const (
	MetadataPath  = "/.well-known/oauth-authorization-server"
	RegisterPath  = "/oauth/register"
	AuthorizePath = "/oauth/authorize"
	TokenPath     = "/oauth/token"
	RevokePath    = "/oauth/revoke"
)

// Lifetimes.
const (
	defaultTokenTTL = time.Hour
	refreshTTL      = 30 * 24 * time.Hour
	codeTTL         = 2 * time.Minute
	pageTTL         = 15 * time.Minute
	// stateCheckEvery is how often a token check looks whether
	// `vaultmcp oauth revoke` changed the state file.
	stateCheckEvery = time.Second
	// lastUsedEvery is how stale a grant's last use may get before a
	// token check writes it down.
	lastUsedEvery = 10 * time.Minute
)

// maxBody caps every request body the endpoints read: forms and
// registrations are small, and nobody is authenticated yet.
const maxBody = 64 << 10

// Options configure a Server.
type Options struct {
	// Auth checks the users' passwords and knows their scopes.
	Auth *auth.Authenticator
	// Base returns the server's public base URL for a request; the
	// issuer is Base and the resource Base + "/mcp".
	Base func(r *http.Request) string
	// StateFile keeps clients, grants and signing keys across restarts
	// (DefaultStateFile when empty).
	StateFile string
	// TokenTTL is an access token's lifetime (one hour when 0).
	TokenTTL time.Duration
	// GrantLifetime ends every grant this long after its sign-in, however
	// often it is refreshed; the user signs in again then. 0 means no
	// limit: a grant lives while it is refreshed at least once in 30 days.
	GrantLifetime time.Duration
	// AllowPrivateClientMetadata lets a client id name a metadata
	// document over plain http or on a private or loopback address
	// (tests, private networks).
	AllowPrivateClientMetadata bool
	// RedirectSchemes are private-use redirect URI schemes accepted
	// besides those RFC 8252 names (a scheme with a dot in it), for
	// clients that use a short one ("cursor").
	RedirectSchemes []string
	// LimitSignIn, LimitRegister and LimitToken, when set, are asked
	// before each password check, each registration or metadata fetch,
	// and each token or revocation request; they answer the request
	// themselves (429) and return false to stop it. A sign-in refused is
	// shown as the page again, not as their answer.
	LimitSignIn, LimitRegister, LimitToken func(w http.ResponseWriter, r *http.Request) bool
	// Logger gets unexpected failures; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// MetadataClient fetches client metadata documents; nil means one
	// guarded against reaching private addresses (tests replace it).
	MetadataClient *http.Client
}

// Server is the authorization server. It implements auth.Verifier.
type Server struct {
	opts  Options
	log   *slog.Logger
	now   func() time.Time
	state *store
	docs  *metadataDocs
	mux   *http.ServeMux

	backoff *backoff

	mu        sync.Mutex
	codes     map[string]*issuedCode // by the code's hash
	spent     map[string]int64       // pages used, by nonce, until they expire
	attempts  map[string]int         // wrong passwords, by page nonce
	lastCheck time.Time              // of the state file
	touching  bool                   // a last-used write is under way

	// refreshMu makes refreshes one at a time, so that a retried refresh
	// finds the answer its first try got (recent).
	refreshMu sync.Mutex
	recent    map[[32]byte]recentRefresh
}

var _ auth.Verifier = (*Server)(nil)

// DefaultStateFile is where the state lives when no file is configured:
// $XDG_STATE_HOME/vaultmcp/oauth.json, or ~/.local/state/vaultmcp/ when
// XDG_STATE_HOME is not set.
func DefaultStateFile() (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("oauth: no state file configured (http.oauth.state_file) and no home folder: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "vaultmcp", "oauth.json"), nil
}

// New builds the authorization server and reads its state. A state file
// that exists but cannot be read is an error: starting without it would
// sign every connector out.
func New(opts Options) (*Server, error) {
	if opts.Auth == nil || opts.Base == nil {
		return nil, errors.New("oauth: Auth and Base are required")
	}
	if opts.TokenTTL <= 0 {
		opts.TokenTTL = defaultTokenTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.StateFile == "" {
		f, err := DefaultStateFile()
		if err != nil {
			return nil, err
		}
		opts.StateFile = f
	}
	st, err := openStore(opts.StateFile, opts.Now)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts: opts, log: opts.Logger, now: opts.Now, state: st,
		codes: map[string]*issuedCode{}, spent: map[string]int64{}, attempts: map[string]int{},
		recent: map[[32]byte]recentRefresh{}, backoff: newBackoff(),
	}
	s.docs = newMetadataDocs(opts.MetadataClient, opts.AllowPrivateClientMetadata, opts.Now)
	// A user taken out of the configuration takes their grants along.
	if err := st.update(func(state *State) error {
		for id, g := range state.Grants {
			if _, ok := opts.Auth.UserScope(g.User); !ok {
				delete(state.Grants, id)
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	s.lastCheck = s.now()

	mux := http.NewServeMux()
	mux.HandleFunc(MetadataPath, s.metadata)
	mux.HandleFunc(RegisterPath, s.register)
	mux.HandleFunc(AuthorizePath, s.authorize)
	mux.HandleFunc(TokenPath, s.token)
	mux.HandleFunc(RevokePath, s.revoke)
	s.mux = mux
	return s, nil
}

// Handler serves the authorization server's endpoints.
func (s *Server) Handler() http.Handler { return s.mux }

// Paths are the paths Handler serves.
func (s *Server) Paths() []string {
	return []string{MetadataPath, RegisterPath, AuthorizePath, TokenPath, RevokePath}
}

// StateFile is the file the grants are kept in.
func (s *Server) StateFile() string { return s.opts.StateFile }

// Issuer is the authorization server's issuer for a request: the public
// base URL.
func (s *Server) Issuer(r *http.Request) string { return s.opts.Base(r) }

// ScopesSupported are the scopes a protected resource's metadata names.
func (s *Server) ScopesSupported() []string { return []string{ScopeRead, ScopeWrite} }

func (s *Server) resource(r *http.Request) string { return s.opts.Base(r) + "/mcp" }

// checkState picks up, at most once a second, what another process
// (`vaultmcp oauth revoke`) wrote to the state file.
func (s *Server) checkState() {
	s.mu.Lock()
	due := s.now().Sub(s.lastCheck) >= stateCheckEvery || s.now().Before(s.lastCheck)
	if due {
		s.lastCheck = s.now()
	}
	s.mu.Unlock()
	if !due {
		return
	}
	if err := s.state.refresh(); err != nil {
		s.log.Error("oauth: reading the state file", "err", err)
	}
}

// randomToken returns n random bytes, URL-safe base64.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on the systems Go supports.
		panic(fmt.Sprintf("oauth: random: %v", err))
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("oauth: random: %v", err))
	}
	return hex.EncodeToString(b)
}

// parseScopes reads a scope parameter: the known scopes it names, in a
// fixed order. Unknown scopes are left out (RFC 6749 §3.3 lets a server
// grant less than asked; the answer says what was granted).
func parseScopes(raw string) (scopes []string, write bool) {
	words := strings.Fields(raw)
	if len(words) == 0 {
		return []string{ScopeRead, ScopeWrite, OfflineAccess}, true
	}
	has := func(s string) bool { return slices.Contains(words, s) }
	write = has(ScopeWrite) || has(legacyScope)
	scopes = []string{ScopeRead}
	if write {
		scopes = append(scopes, ScopeWrite)
	}
	return append(scopes, OfflineAccess), write
}

// audited records an OAuth event in the request's audit entry.
func audited(r *http.Request, identity, event, client string) {
	if rec := auditRecord(r); rec != nil {
		rec.SetIdentity(identity)
		rec.SetEvent(event, client)
	}
}

// VerifyAccessToken checks an access token issued here and returns its
// grant; see token.go for what a token holds.
func (s *Server) VerifyAccessToken(ctx context.Context, raw string) (auth.Grant, error) {
	s.checkState()
	if err := s.state.failing(); err != nil {
		return auth.Grant{}, fmt.Errorf("oauth: no grant is trusted while the state file cannot be read: %w", err)
	}
	return s.verify(ctx, raw)
}
