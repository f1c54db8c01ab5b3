package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"

	"vaultmcp/vault/access"
)

// DefaultHTTPAddr is where `serve --http` listens when given no address.
const DefaultHTTPAddr = "127.0.0.1:8000"

// Access is the server's own access scope, applied to every transport and
// every credential (package access).
type Access struct {
	// ReadOnly refuses every change and leaves the writing tools out of
	// tools/list.
	ReadOnly bool `mapstructure:"read_only"`
	// Allow, when not empty, serves only the folders (globs) listed.
	Allow []string `mapstructure:"allow"`
	// Deny hides the folders (globs) listed, whatever Allow says.
	Deny []string `mapstructure:"deny"`
}

// HTTP configures the streamable HTTP transport and the REST API.
type HTTP struct {
	// Addr is where to listen; "" serves over stdio instead.
	Addr string `mapstructure:"addr"`
	// Auth is "required" (every /mcp and /api call needs a credential) or
	// "none" (loopback addresses only).
	Auth string `mapstructure:"auth"`
	// PublicURL is the server's address as clients reach it (behind a
	// reverse proxy, say https://vault.example.com); it names the OAuth
	// resource. Empty means the scheme and address it listens on.
	PublicURL string `mapstructure:"public_url"`
	// Users may log in (POST /api/auth/login, the OAuth login page).
	Users []User `mapstructure:"users"`
	// Tokens are static API tokens, stored as hashes.
	Tokens []Token `mapstructure:"tokens"`
	// JWTSecret signs the login JWTs (HS256): one secret, or a list for
	// rotation whose first signs and all verify. Each is at least
	// MinJWTSecretBytes long. Empty means a random secret per run, so
	// tokens end with the process.
	JWTSecret Secrets `mapstructure:"jwt_secret"`
	// JWTExpiry is how long a login JWT is valid.
	JWTExpiry time.Duration `mapstructure:"jwt_expiry"`
	// JWTIssuer and JWTAudience are set in and required of every JWT.
	JWTIssuer   string `mapstructure:"jwt_issuer"`
	JWTAudience string `mapstructure:"jwt_audience"`
	// CORSOrigins are the browser origins allowed cross-origin; none = CORS off.
	CORSOrigins []string `mapstructure:"cors_origins"`
	// AllowedHosts are Host header values accepted besides the loopback
	// names (the reverse proxy's public name).
	AllowedHosts []string `mapstructure:"allowed_hosts"`
	// TrustedProxies are reverse proxies (IPs or CIDRs) whose
	// X-Forwarded-For names the client, for rate limits and the audit log.
	TrustedProxies []string `mapstructure:"trusted_proxies"`
	// TLSCert and TLSKey serve HTTPS when both are set.
	TLSCert string `mapstructure:"tls_cert"`
	TLSKey  string `mapstructure:"tls_key"`
	// AllowPlaintext lets the server serve plain HTTP on an address other
	// than loopback: a TLS-terminating reverse proxy sits in front, so
	// credentials never travel in clear.
	AllowPlaintext bool `mapstructure:"allow_plaintext"`
	// AuditLog is a file that gets one JSON line per authenticated call;
	// empty = no audit log.
	AuditLog string `mapstructure:"audit_log"`
	// AuditMaxBytes is the size at which the audit log is rotated (the
	// last few files kept); 0 never rotates.
	AuditMaxBytes int64 `mapstructure:"audit_max_bytes"`
	// MaxBodyBytes caps an authenticated request body (413 beyond).
	MaxBodyBytes int64 `mapstructure:"max_body_bytes"`
	// MCPRateLimit is how many /mcp calls a minute one credential may
	// make (429 beyond); 0 = no limit.
	MCPRateLimit int `mapstructure:"mcp_rate_limit"`
	// MaxSessions is how many MCP sessions one credential may hold; one
	// more ends its least recently used one.
	MaxSessions int `mapstructure:"max_sessions"`
	// Timeouts of the HTTP server. WriteTimeout does not apply to SSE
	// streams, which stay open.
	ReadHeaderTimeout time.Duration `mapstructure:"read_header_timeout"`
	ReadTimeout       time.Duration `mapstructure:"read_timeout"`
	WriteTimeout      time.Duration `mapstructure:"write_timeout"`
	IdleTimeout       time.Duration `mapstructure:"idle_timeout"`
	// ShutdownTimeout bounds the wait for in-flight requests at shutdown.
	ShutdownTimeout time.Duration `mapstructure:"shutdown_timeout"`
	// OAuth configures OAuth 2.1 for MCP clients that discover auth.
	OAuth OAuth `mapstructure:"oauth"`
}

// User is a person who logs in with a password.
type User struct {
	Name string `mapstructure:"name" yaml:"name"`
	// PasswordHash is a bcrypt hash (vaultmcp hash-password).
	PasswordHash string `mapstructure:"password_hash" yaml:"password_hash"`
	// The user's access scope, narrowing the server's.
	ReadOnly bool     `mapstructure:"read_only" yaml:"read_only"`
	Allow    []string `mapstructure:"allow" yaml:"allow"`
	Deny     []string `mapstructure:"deny" yaml:"deny"`
}

// Token is a static API token, stored as its hash (vaultmcp token create).
type Token struct {
	Name string `mapstructure:"name" yaml:"name"`
	// Hash is "sha256:" and the hex SHA-256 of the token.
	Hash string `mapstructure:"hash" yaml:"hash"`
	// The token's access scope, narrowing the server's.
	ReadOnly bool     `mapstructure:"read_only" yaml:"read_only"`
	Allow    []string `mapstructure:"allow" yaml:"allow"`
	Deny     []string `mapstructure:"deny" yaml:"deny"`
}

// OAuth configures the OAuth 2.1 side of /mcp. With Enabled the server is
// its own small authorization server (authorization code with PKCE,
// client metadata documents and dynamic registration, the configured
// users' sign-in page); its tokens are valid only for this server's /mcp
// (their audience). docs/connectors.md describes it.
type OAuth struct {
	Enabled bool `mapstructure:"enabled"`
	// TokenExpiry is the lifetime of the access tokens the built-in server
	// issues.
	TokenExpiry time.Duration `mapstructure:"token_expiry"`
	// GrantLifetime ends a connector's grant this long after its user
	// signed in, however often it refreshes; 0 means no limit (a grant
	// unused for 30 days ends anyway).
	GrantLifetime time.Duration `mapstructure:"grant_lifetime"`
	// StateFile keeps registered clients, grants and signing keys across
	// restarts; empty means $XDG_STATE_HOME/vaultmcp/oauth.json.
	StateFile string `mapstructure:"state_file"`
	// AllowPrivateClientMetadata lets a client_id name a metadata
	// document over plain http or on a private or loopback address (for
	// tests and private networks; off, such fetches are refused).
	AllowPrivateClientMetadata bool `mapstructure:"allow_private_client_metadata"`
	// RedirectSchemes are private-use redirect URI schemes accepted
	// besides those with a dot in them (RFC 8252), e.g. [cursor].
	RedirectSchemes []string `mapstructure:"redirect_schemes"`
}

func setHTTPDefaults(v interface{ SetDefault(string, any) }) {
	v.SetDefault("access.read_only", false)
	v.SetDefault("access.allow", []string{})
	v.SetDefault("access.deny", []string{})
	v.SetDefault("http.addr", "")
	v.SetDefault("http.auth", "required")
	v.SetDefault("http.public_url", "")
	v.SetDefault("http.users", []User{})
	v.SetDefault("http.tokens", []Token{})
	v.SetDefault("http.jwt_secret", "")
	v.SetDefault("http.jwt_expiry", 30*time.Minute)
	v.SetDefault("http.jwt_issuer", "vaultmcp")
	v.SetDefault("http.jwt_audience", "vaultmcp-api")
	v.SetDefault("http.cors_origins", []string{})
	v.SetDefault("http.allowed_hosts", []string{})
	v.SetDefault("http.trusted_proxies", []string{})
	v.SetDefault("http.tls_cert", "")
	v.SetDefault("http.tls_key", "")
	v.SetDefault("http.allow_plaintext", false)
	v.SetDefault("http.audit_log", "")
	v.SetDefault("http.audit_max_bytes", 100<<20)
	v.SetDefault("http.max_body_bytes", 4<<20)
	v.SetDefault("http.mcp_rate_limit", 1200)
	v.SetDefault("http.max_sessions", 100)
	v.SetDefault("http.read_header_timeout", 10*time.Second)
	v.SetDefault("http.read_timeout", 60*time.Second)
	v.SetDefault("http.write_timeout", 120*time.Second)
	v.SetDefault("http.idle_timeout", 120*time.Second)
	v.SetDefault("http.shutdown_timeout", 30*time.Second)
	v.SetDefault("http.oauth.enabled", false)
	v.SetDefault("http.oauth.token_expiry", time.Hour)
	v.SetDefault("http.oauth.grant_lifetime", 0)
	v.SetDefault("http.oauth.state_file", "")
	v.SetDefault("http.oauth.allow_private_client_metadata", false)
	v.SetDefault("http.oauth.redirect_schemes", []string{})
}

// listFromString reads a list given as one string, as the environment
// gives every value: YAML or JSON ("[a, b]", `[{"name": …}]`), or for
// lists of strings also comma- or space-separated words.
func listFromString(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to.Kind() != reflect.Slice {
		return data, nil
	}
	s := strings.TrimSpace(data.(string))
	if s == "" {
		return reflect.MakeSlice(to, 0, 0).Interface(), nil
	}
	if strings.HasPrefix(s, "[") || strings.HasPrefix(s, "-") || to.Elem().Kind() == reflect.Struct {
		var out []any
		if err := yaml.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("not a list: %w", err)
		}
		return out, nil
	}
	if to.Elem().Kind() == reflect.String {
		return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }), nil
	}
	return data, nil
}

// Secrets are secret strings given as one string or a list. Unlike other
// lists, one string is never split (a secret may hold commas or spaces);
// a list in one string (the environment) is written as YAML: "[a, b]".
type Secrets []string

// secretsFromString reads Secrets given as one string.
func secretsFromString(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String || to != reflect.TypeFor[Secrets]() {
		return data, nil
	}
	s := data.(string)
	switch {
	case strings.TrimSpace(s) == "":
		return Secrets{}, nil
	case strings.HasPrefix(strings.TrimSpace(s), "["):
		var out []string
		if err := yaml.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("not a list of strings: %w", err)
		}
		return Secrets(out), nil
	}
	return Secrets{s}, nil
}

// MinJWTSecretBytes is the shortest JWT secret accepted: HS256 is only as
// strong as its key, and a short one can be guessed offline from any JWT.
const MinJWTSecretBytes = 32

// decodeHook is viper's default (durations, comma lists) with lists from
// the environment first.
var decodeHook = mapstructure.ComposeDecodeHookFunc(
	secretsFromString,
	listFromString,
	mapstructure.StringToTimeDurationHookFunc(),
)

// tokenHash is compiled on first use (only configs with tokens need it),
// not at every start.
var tokenHash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^sha256:[0-9a-f]{64}$`) })

// redirectScheme is a URI scheme as RFC 3986 spells it, in lowercase.
var redirectScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9+.-]{0,63}$`) })

// validateHTTP reports HTTP and access settings that cannot work. Whether
// the address may go without authentication is decided where it is
// resolved (package httpserver).
func (c *Config) validateHTTP() []error {
	var errs []error
	if _, err := access.New("the server", access.Rules{ReadOnly: c.Access.ReadOnly, Allow: c.Access.Allow, Deny: c.Access.Deny}); err != nil {
		errs = append(errs, fmt.Errorf("access: %w", err))
	}
	h := &c.HTTP
	switch h.Auth {
	case "required", "none":
	default:
		errs = append(errs, fmt.Errorf(`http.auth must be "required" or "none", got %q`, h.Auth))
	}
	if h.JWTExpiry <= 0 {
		errs = append(errs, fmt.Errorf("http.jwt_expiry must be positive, got %s", h.JWTExpiry))
	}
	if h.OAuth.TokenExpiry <= 0 {
		errs = append(errs, fmt.Errorf("http.oauth.token_expiry must be positive, got %s", h.OAuth.TokenExpiry))
	}
	if h.OAuth.GrantLifetime < 0 {
		errs = append(errs, fmt.Errorf("http.oauth.grant_lifetime must not be negative (0 means no limit), got %s", h.OAuth.GrantLifetime))
	} else if h.OAuth.GrantLifetime > 0 && h.OAuth.GrantLifetime < h.OAuth.TokenExpiry {
		errs = append(errs, fmt.Errorf("http.oauth.grant_lifetime (%s) is shorter than http.oauth.token_expiry (%s): users would sign in more often than tokens expire", h.OAuth.GrantLifetime, h.OAuth.TokenExpiry))
	}
	if h.MaxBodyBytes <= 0 {
		errs = append(errs, fmt.Errorf("http.max_body_bytes must be positive, got %d", h.MaxBodyBytes))
	}
	if h.MCPRateLimit < 0 {
		errs = append(errs, fmt.Errorf("http.mcp_rate_limit must be 0 (no limit) or positive, got %d", h.MCPRateLimit))
	}
	if h.MaxSessions <= 0 {
		errs = append(errs, fmt.Errorf("http.max_sessions must be positive, got %d", h.MaxSessions))
	}
	if h.AuditMaxBytes < 0 {
		errs = append(errs, fmt.Errorf("http.audit_max_bytes must be 0 (never rotate) or positive, got %d", h.AuditMaxBytes))
	}
	for i, sec := range h.JWTSecret {
		if len(sec) < MinJWTSecretBytes {
			name := "http.jwt_secret"
			if len(h.JWTSecret) > 1 {
				name = fmt.Sprintf("http.jwt_secret[%d]", i)
			}
			errs = append(errs, fmt.Errorf("%s is %d bytes; a JWT secret must be at least %d bytes (make one with: openssl rand -base64 32)", name, len(sec), MinJWTSecretBytes))
		}
	}
	if (h.TLSCert == "") != (h.TLSKey == "") {
		errs = append(errs, errors.New("http.tls_cert and http.tls_key go together: set both or neither"))
	}
	for i, sc := range h.OAuth.RedirectSchemes {
		if !redirectScheme().MatchString(sc) || sc == "http" || sc == "https" || sc == "javascript" || sc == "data" || sc == "file" || sc == "blob" {
			errs = append(errs, fmt.Errorf("http.oauth.redirect_schemes[%d]: %q is not a private-use scheme (lowercase letters, digits, +, - and ., starting with a letter; not http, https or a browser's own)", i, sc))
		}
	}
	if h.OAuth.Enabled && len(h.Users) == 0 {
		errs = append(errs, errors.New("http.oauth.enabled needs http.users: they are who signs in on the authorization page"))
	}
	names := map[string]bool{}
	for i, u := range h.Users {
		if u.Name == "" {
			errs = append(errs, fmt.Errorf("http.users[%d]: name is empty", i))
		} else if names["user "+u.Name] {
			errs = append(errs, fmt.Errorf("http.users[%d]: %q is listed twice", i, u.Name))
		}
		names["user "+u.Name] = true
		if !strings.HasPrefix(u.PasswordHash, "$2") {
			errs = append(errs, fmt.Errorf("http.users[%d] (%s): password_hash must be a bcrypt hash (make one with vaultmcp hash-password)", i, u.Name))
		}
		if _, err := access.New("", access.Rules{Allow: u.Allow, Deny: u.Deny}); err != nil {
			errs = append(errs, fmt.Errorf("http.users[%d] (%s): %w", i, u.Name, err))
		}
	}
	hashes := map[string]int{} // a token's hash -> its index
	for i, t := range h.Tokens {
		// One token matching two entries would get the scope of one of
		// them, silently: a read-only entry could be shadowed by a
		// full-access one, or the other way round.
		if j, ok := hashes[t.Hash]; ok && t.Hash != "" {
			errs = append(errs, fmt.Errorf("http.tokens[%d] (%s) has the same hash as http.tokens[%d] (%s), so one token would be both; give each entry a token of its own (vaultmcp token create)", i, t.Name, j, h.Tokens[j].Name))
		} else {
			hashes[t.Hash] = i
		}
		if t.Name == "" {
			errs = append(errs, fmt.Errorf("http.tokens[%d]: name is empty", i))
		} else if names["token "+t.Name] {
			errs = append(errs, fmt.Errorf("http.tokens[%d]: %q is listed twice", i, t.Name))
		}
		names["token "+t.Name] = true
		if !tokenHash().MatchString(t.Hash) {
			errs = append(errs, fmt.Errorf("http.tokens[%d] (%s): hash must be sha256:<64 hex digits> (make a token with vaultmcp token create)", i, t.Name))
		}
		if _, err := access.New("", access.Rules{Allow: t.Allow, Deny: t.Deny}); err != nil {
			errs = append(errs, fmt.Errorf("http.tokens[%d] (%s): %w", i, t.Name, err))
		}
	}
	return errs
}
