// Package auth decides who is calling the HTTP side and under which access
// scope. One Authenticator serves /mcp and /api/* alike; it knows three
// kinds of credential, all presented as "Authorization: Bearer …":
//
//   - static API tokens ("vmcp_…"), configured by name as the SHA-256 of
//     the token, so the configuration holds nothing that grants access;
//   - login JWTs: a configured user posts name and password (bcrypt,
//     cost 12) to /api/auth/login and gets an HS256 JWT with an issuer,
//     an audience and an expiry, all checked on every use, and refused once
//     the user is no longer configured;
//   - OAuth access tokens, checked by a Verifier (the built-in
//     authorization server of package oauth, or an external one's JWKS),
//     which also checks they were issued for this server (the audience).
//
// Every identity carries its access scope: the server's own rules narrowed
// by the credential's (read_only, allow, deny), so a credential can only
// ever see and do less than the server allows. Tokens are compared in
// constant time, an unknown user costs a login the same bcrypt work as a
// known one, and a failed check says only that the credential is missing
// or invalid.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/bcrypt"

	"vaultmcp/vault/access"
)

// PasswordCost is the bcrypt cost of password hashes.
const PasswordCost = 12

// MinSecretBytes is the shortest JWT secret accepted: HS256 is as strong
// as its key, and a short key is guessed offline from any JWT it signed.
const MinSecretBytes = 32

// TokenPrefix starts every static API token, so a token is recognised in
// a log or a leak report, and told apart from a JWT without parsing.
const TokenPrefix = "vmcp_"

// Kind is the kind of credential an identity presented.
type Kind string

// The kinds of identity.
const (
	KindToken     Kind = "token"
	KindUser      Kind = "user"  // a login JWT
	KindOAuth     Kind = "oauth" // an OAuth access token
	KindAnonymous Kind = "anonymous"
)

// Identity is an authenticated caller.
type Identity struct {
	Kind Kind
	// Name is the token's or user's name; "" for anonymous callers.
	Name string
	// Scope is what the caller may see and do: the server's scope
	// narrowed by the credential's.
	Scope *access.Scope
	// Client names the OAuth client an OAuth identity acts through; ""
	// for other kinds.
	Client string
	// StepUp is the OAuth scope that would let this identity change the
	// vault, when its token lacks it but its user may write; "" when
	// asking for more would not help.
	StepUp string
}

// String names the identity for logs and rate limits: "token:n8n".
func (id Identity) String() string {
	if id.Kind == KindAnonymous {
		return string(KindAnonymous)
	}
	return string(id.Kind) + ":" + id.Name
}

// Token is a configured static API token.
type Token struct {
	Name string
	// Hash is HashToken of the token.
	Hash  string
	Rules access.Rules
}

// User is a configured user who logs in with a password.
type User struct {
	Name string
	// PasswordHash is a bcrypt hash (HashPassword).
	PasswordHash string
	Rules        access.Rules
}

// Verifier checks an OAuth access token and returns what it grants. It
// must check the token's audience against the resource the request is
// for (ResourceFrom).
type Verifier interface {
	VerifyAccessToken(ctx context.Context, token string) (Grant, error)
}

// Grant is what an OAuth access token stands for.
type Grant struct {
	// User is the configured user who signed in.
	User string
	// ClientID and ClientName name the client the user let in.
	ClientID, ClientName string
	// ReadOnly is set when the token was granted without the scope to
	// write (the user chose read-only access for the client).
	ReadOnly bool
}

// ScopeWrite is the OAuth scope a read-only grant lacks.
const ScopeWrite = "vault:write"

// Options configure an Authenticator.
type Options struct {
	Tokens []Token
	Users  []User
	// JWTSecret signs login JWTs (at least MinSecretBytes); empty means a
	// random secret.
	JWTSecret []byte
	// JWTOldSecrets verify login JWTs too, signed before a rotation.
	JWTOldSecrets [][]byte
	// JWTExpiry is a login JWT's lifetime (30 minutes when 0).
	JWTExpiry time.Duration
	// Issuer and Audience are written into and required of login JWTs.
	Issuer, Audience string
	// Server is the server's own scope, which every identity narrows.
	Server *access.Scope
	// Anonymous lets requests without a credential in, under the server's
	// scope (http.auth: none).
	Anonymous bool
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

// Authenticator checks credentials. It is safe for concurrent use.
type Authenticator struct {
	opts   Options
	oauth  Verifier
	tokens []token
	users  map[string]user
	secret []byte

	dummyOnce sync.Once
	dummy     []byte // a bcrypt hash compared against for unknown users
}

type token struct {
	name  string
	hash  []byte // the raw SHA-256
	scope *access.Scope
}

type user struct {
	name  string
	hash  []byte
	scope *access.Scope
}

// Errors of Authenticate; both mean 401.
var (
	ErrNoCredential = errors.New("missing credential: send Authorization: Bearer <token>")
	ErrInvalid      = errors.New("invalid or expired credential")
)

// New builds an Authenticator.
func New(opts Options) (*Authenticator, error) {
	if opts.JWTExpiry <= 0 {
		opts.JWTExpiry = 30 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	a := &Authenticator{opts: opts, users: map[string]user{}, secret: opts.JWTSecret}
	for i, sec := range append([][]byte{opts.JWTSecret}, opts.JWTOldSecrets...) {
		if len(sec) < MinSecretBytes && (i > 0 || len(sec) > 0) {
			return nil, fmt.Errorf("auth: a JWT secret is %d bytes; it must be at least %d", len(sec), MinSecretBytes)
		}
	}
	if len(a.secret) == 0 && len(opts.JWTOldSecrets) > 0 {
		return nil, errors.New("auth: old JWT secrets need a current one to sign")
	}
	if len(a.secret) == 0 {
		a.secret = make([]byte, 32)
		if _, err := rand.Read(a.secret); err != nil {
			return nil, fmt.Errorf("auth: random JWT secret: %w", err)
		}
	}
	for _, t := range opts.Tokens {
		if err := a.AddToken(t); err != nil {
			return nil, err
		}
	}
	for _, u := range opts.Users {
		scope, err := access.New(fmt.Sprintf("the user %q", u.Name), u.Rules)
		if err != nil {
			return nil, fmt.Errorf("auth: user %s: %w", u.Name, err)
		}
		a.users[u.Name] = user{name: u.Name, hash: []byte(u.PasswordHash), scope: opts.Server.Narrow(scope)}
	}
	return a, nil
}

// AddToken accepts one more static token. Call it before serving (the
// generated token of a loopback run).
func (a *Authenticator) AddToken(t Token) error {
	raw, ok := strings.CutPrefix(t.Hash, "sha256:")
	sum, err := hex.DecodeString(raw)
	if !ok || err != nil || len(sum) != sha256.Size {
		return fmt.Errorf("auth: token %s: hash must be sha256:<64 hex digits>", t.Name)
	}
	scope, err := access.New(fmt.Sprintf("the token %q", t.Name), t.Rules)
	if err != nil {
		return fmt.Errorf("auth: token %s: %w", t.Name, err)
	}
	a.tokens = append(a.tokens, token{name: t.Name, hash: sum, scope: a.opts.Server.Narrow(scope)})
	return nil
}

// SetOAuth makes the authenticator accept OAuth access tokens checked by
// v (the authorization server needs the authenticator for its login page,
// so it comes second). Call it before serving.
func (a *Authenticator) SetOAuth(v Verifier) { a.oauth = v }

// HasCredentials reports whether any credential can authenticate: a
// token or a user (who may log in, or authorize an OAuth client).
func (a *Authenticator) HasCredentials() bool {
	return len(a.tokens) > 0 || len(a.users) > 0
}

// Anonymous reports whether requests without a credential are let in.
func (a *Authenticator) Anonymous() bool { return a.opts.Anonymous }

// Authenticate returns the caller of r. Without a credential it is the
// anonymous identity when Anonymous is set, else ErrNoCredential.
func (a *Authenticator) Authenticate(r *http.Request) (Identity, error) {
	bearer, err := bearerToken(r)
	if err != nil {
		return Identity{}, err
	}
	if bearer == "" {
		if a.opts.Anonymous {
			return Identity{Kind: KindAnonymous, Scope: a.opts.Server}, nil
		}
		return Identity{}, ErrNoCredential
	}
	return a.Verify(r.Context(), bearer)
}

// Verify returns the identity a bearer token stands for.
func (a *Authenticator) Verify(ctx context.Context, bearer string) (Identity, error) {
	if strings.HasPrefix(bearer, TokenPrefix) {
		sum := sha256.Sum256([]byte(bearer))
		var found *token
		for i := range a.tokens {
			// Every configured hash is compared, in constant time.
			if subtle.ConstantTimeCompare(a.tokens[i].hash, sum[:]) == 1 {
				found = &a.tokens[i]
			}
		}
		if found == nil {
			return Identity{}, ErrInvalid
		}
		return Identity{Kind: KindToken, Name: found.name, Scope: found.scope}, nil
	}
	if name, err := a.parseJWT(bearer); err == nil {
		if u, ok := a.users[name]; ok {
			return Identity{Kind: KindUser, Name: name, Scope: u.scope}, nil
		}
		return Identity{}, ErrInvalid
	}
	if a.oauth != nil {
		g, err := a.oauth.VerifyAccessToken(ctx, bearer)
		if err != nil {
			return Identity{}, ErrInvalid
		}
		// A user taken out of the configuration loses access at once.
		u, ok := a.users[g.User]
		if !ok {
			return Identity{}, ErrInvalid
		}
		id := Identity{Kind: KindOAuth, Name: g.User, Scope: u.scope, Client: g.ClientName}
		if g.ReadOnly && !u.scope.ReadOnly() {
			id.Scope = u.scope.Narrow(readOnlyGrant)
			id.StepUp = ScopeWrite
		}
		return id, nil
	}
	return Identity{}, ErrInvalid
}

// readOnlyGrant narrows a user's scope under a token granted without
// vault:write; it names the reason in refusals.
var readOnlyGrant = access.MustNew("this connection (its sign-in granted read-only access, scope vault:read)", access.Rules{ReadOnly: true})

// bearerToken reads the Authorization header; "" when there is none.
func bearerToken(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", nil
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", fmt.Errorf("%w: the Authorization header must read \"Bearer <token>\"", ErrInvalid)
	}
	return strings.TrimSpace(tok), nil
}

// CheckPassword reports whether password is the user's. An unknown user
// costs the same bcrypt work as a known one.
func (a *Authenticator) CheckPassword(name, password string) bool {
	u, ok := a.users[name]
	hash := u.hash
	if !ok {
		a.dummyOnce.Do(func() {
			a.dummy, _ = bcrypt.GenerateFromPassword([]byte("vaultmcp: no such user"), PasswordCost)
		})
		hash = a.dummy
	}
	err := bcrypt.CompareHashAndPassword(hash, []byte(password))
	return ok && err == nil
}

// UserScope returns a configured user's effective scope.
func (a *Authenticator) UserScope(name string) (*access.Scope, bool) {
	u, ok := a.users[name]
	return u.scope, ok
}

// Login checks a user's password and returns a signed JWT for them and
// its lifetime.
func (a *Authenticator) Login(name, password string) (string, time.Duration, error) {
	if !a.CheckPassword(name, password) {
		return "", 0, ErrInvalid
	}
	now := a.opts.Now()
	id := make([]byte, 12)
	if _, err := rand.Read(id); err != nil {
		return "", 0, err
	}
	claims := jwt.RegisteredClaims{
		Subject:   name,
		Issuer:    a.opts.Issuer,
		Audience:  jwt.ClaimStrings{a.opts.Audience},
		IssuedAt:  jwt.NewNumericDate(now),
		NotBefore: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(a.opts.JWTExpiry)),
		ID:        base64.RawURLEncoding.EncodeToString(id),
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(a.secret)
	if err != nil {
		return "", 0, fmt.Errorf("auth: sign JWT: %w", err)
	}
	return signed, a.opts.JWTExpiry, nil
}

// parseJWT checks a login JWT (signature, algorithm, issuer, audience,
// expiry) and returns its subject.
func (a *Authenticator) parseJWT(s string) (string, error) {
	var claims jwt.RegisteredClaims
	var key any = a.secret
	if len(a.opts.JWTOldSecrets) > 0 {
		keys := jwt.VerificationKeySet{Keys: []jwt.VerificationKey{a.secret}}
		for _, k := range a.opts.JWTOldSecrets {
			keys.Keys = append(keys.Keys, k)
		}
		key = keys
	}
	_, err := jwt.ParseWithClaims(s, &claims, func(*jwt.Token) (any, error) { return key, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(a.opts.Issuer),
		jwt.WithAudience(a.opts.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(a.opts.Now),
	)
	if err != nil {
		return "", err
	}
	return claims.Subject, nil
}

// NewToken returns a new random API token and the hash to configure.
func NewToken() (tok, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	tok = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return tok, HashToken(tok), nil
}

// HashToken is the configured form of a token: "sha256:" and its hex
// SHA-256. A token is 256 random bits, so a fast hash is enough: there is
// nothing to guess.
func HashToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// HashPassword returns the bcrypt hash (cost PasswordCost) of a password.
func HashPassword(password []byte) (string, error) {
	if len(password) == 0 {
		return "", errors.New("the password is empty")
	}
	if len(password) > 72 {
		return "", errors.New("the password is longer than 72 bytes, which bcrypt cannot hash")
	}
	h, err := bcrypt.GenerateFromPassword(password, PasswordCost)
	return string(h), err
}

type ctxKey struct{}

type resourceKey struct{}

// WithResource returns ctx naming the OAuth resource (the URL of /mcp as
// the client reached it) a request is for; Verifiers check tokens against
// it.
func WithResource(ctx context.Context, resource string) context.Context {
	return context.WithValue(ctx, resourceKey{}, resource)
}

// ResourceFrom returns the resource WithResource put into ctx.
func ResourceFrom(ctx context.Context) string {
	s, _ := ctx.Value(resourceKey{}).(string)
	return s
}

// WithIdentity returns ctx carrying id, and id's scope for the layers
// below (access.With).
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return access.With(context.WithValue(ctx, ctxKey{}, id), id.Scope)
}

// FromContext returns the identity ctx carries.
func FromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(ctxKey{}).(Identity)
	return id, ok
}
