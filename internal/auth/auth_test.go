package auth

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/crypto/bcrypt"

	"vaultmcp/vault/access"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// testHash is a cheap bcrypt hash: cost 12 would make every test slow.
func testHash(t testing.TB, pw string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func newAuth(t testing.TB, c *clock) (*Authenticator, string) {
	t.Helper()
	tok, hash, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{
		Tokens:    []Token{{Name: "n8n", Hash: hash, Rules: access.Rules{ReadOnly: true}}},
		Users:     []User{{Name: "admin", PasswordHash: testHash(t, "s3cret"), Rules: access.Rules{Allow: []string{"Journal"}}}},
		JWTSecret: []byte("0123456789abcdef0123456789abcdef"),
		Issuer:    "vaultmcp", Audience: "vaultmcp",
		Server: access.MustNew("this server", access.Rules{Deny: []string{"Private"}}),
		Now:    c.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, tok
}

func TestVerify(t *testing.T) {
	c := &clock{t: time.Now()}
	a, tok := newAuth(t, c)
	id, err := a.Verify(context.Background(), tok)
	if err != nil || id.Kind != KindToken || id.Name != "n8n" || !id.Scope.ReadOnly() || id.Scope.Visible("Private/x.md") {
		t.Fatalf("token: %+v, %v", id, err)
	}
	jwtTok, ttl, err := a.Login("admin", "s3cret")
	if err != nil || ttl != 30*time.Minute {
		t.Fatalf("login: %v %v", ttl, err)
	}
	id, err = a.Verify(context.Background(), jwtTok)
	if err != nil || id.Kind != KindUser || id.Name != "admin" || id.Scope.Visible("Home.md") || !id.Scope.Visible("Journal/a.md") {
		t.Fatalf("jwt: %+v, %v", id, err)
	}
	if id.String() != "user:admin" {
		t.Errorf("String = %q", id.String())
	}

	c.t = c.t.Add(31 * time.Minute)
	if _, err := a.Verify(context.Background(), jwtTok); !errors.Is(err, ErrInvalid) {
		t.Errorf("expired JWT: %v", err)
	}
	c.t = c.t.Add(-31 * time.Minute)

	sign := func(claims jwt.RegisteredClaims, method jwt.SigningMethod, key any) string {
		s, err := jwt.NewWithClaims(method, claims).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := jwt.RegisteredClaims{Subject: "admin", Issuer: "vaultmcp", Audience: jwt.ClaimStrings{"vaultmcp"},
		IssuedAt: jwt.NewNumericDate(c.t), ExpiresAt: jwt.NewNumericDate(c.t.Add(time.Minute))}
	secret := []byte("0123456789abcdef0123456789abcdef")
	bad := map[string]string{
		"wrong audience": sign(func() jwt.RegisteredClaims { g := good; g.Audience = jwt.ClaimStrings{"other"}; return g }(), jwt.SigningMethodHS256, secret),
		"wrong issuer":   sign(func() jwt.RegisteredClaims { g := good; g.Issuer = "evil"; return g }(), jwt.SigningMethodHS256, secret),
		"no expiry":      sign(func() jwt.RegisteredClaims { g := good; g.ExpiresAt = nil; return g }(), jwt.SigningMethodHS256, secret),
		"wrong secret":   sign(good, jwt.SigningMethodHS256, []byte("another secret, not the server's")),
		"alg none":       sign(good, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType),
		"unknown user":   sign(func() jwt.RegisteredClaims { g := good; g.Subject = "mallory"; return g }(), jwt.SigningMethodHS256, secret),
		"unknown token":  TokenPrefix + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"garbage":        "not a token",
	}
	for name, tok := range bad {
		if _, err := a.Verify(context.Background(), tok); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Verify = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := a.Verify(context.Background(), sign(good, jwt.SigningMethodHS256, secret)); err != nil {
		t.Errorf("a well-formed JWT was refused: %v", err)
	}
}

func TestLoginAndHeader(t *testing.T) {
	a, _ := newAuth(t, &clock{t: time.Now()})
	for _, c := range [][2]string{{"admin", "wrong"}, {"nobody", "s3cret"}, {"admin", ""}} {
		if _, _, err := a.Login(c[0], c[1]); !errors.Is(err, ErrInvalid) {
			t.Errorf("login %q/%q: %v", c[0], c[1], err)
		}
	}
	r := httptest.NewRequest("GET", "/mcp", nil)
	if _, err := a.Authenticate(r); !errors.Is(err, ErrNoCredential) {
		t.Errorf("no header: %v", err)
	}
	r.Header.Set("Authorization", "Basic abc")
	if _, err := a.Authenticate(r); !errors.Is(err, ErrInvalid) {
		t.Errorf("basic auth: %v", err)
	}
	anon, err := New(Options{Anonymous: true, Server: access.MustNew("s", access.Rules{ReadOnly: true})})
	if err != nil {
		t.Fatal(err)
	}
	id, err := anon.Authenticate(httptest.NewRequest("GET", "/mcp", nil))
	if err != nil || id.Kind != KindAnonymous || !id.Scope.ReadOnly() {
		t.Errorf("anonymous: %+v %v", id, err)
	}
}

func TestHashes(t *testing.T) {
	tok, hash, err := NewToken()
	if err != nil || !strings.HasPrefix(tok, TokenPrefix) || HashToken(tok) != hash || !strings.HasPrefix(hash, "sha256:") {
		t.Fatalf("NewToken: %q %q %v", tok, hash, err)
	}
	if _, err := HashPassword(nil); err == nil {
		t.Error("empty password hashed")
	}
	if _, err := HashPassword([]byte(strings.Repeat("x", 73))); err == nil {
		t.Error("over-long password hashed")
	}
	h, err := HashPassword([]byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	if cost, _ := bcrypt.Cost([]byte(h)); cost != PasswordCost {
		t.Errorf("cost %d, want %d", cost, PasswordCost)
	}
	if _, err := New(Options{Tokens: []Token{{Name: "x", Hash: "plain"}}}); err == nil {
		t.Error("a token with a malformed hash was accepted")
	}
}

// FuzzAuthenticate sends arbitrary Authorization headers: nothing panics,
// and only the configured token or a JWT this server signed gets in.
func FuzzAuthenticate(f *testing.F) {
	c := &clock{t: time.Now()}
	a, tok := newAuth(f, c)
	jwtTok, _, err := a.Login("admin", "s3cret")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", "Bearer", "Bearer ", "bearer x", "Basic YWRtaW46eA==", "Bearer " + TokenPrefix,
		"Bearer " + TokenPrefix + "nonsense", "Bearer a.b.c", "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9.",
		"Bearer " + tok + "x", "Bearer " + jwtTok[:len(jwtTok)-2], "Bearer  " + tok, "Bearer\t" + tok} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest("GET", "/mcp", nil)
		r.Header.Set("Authorization", header)
		id, err := a.Authenticate(r)
		if err != nil {
			return
		}
		bearer := strings.TrimSpace(header[min(len(header), len("Bearer ")):])
		if bearer != tok && bearer != jwtTok {
			t.Errorf("Authorization %q got in as %+v", header, id)
		}
	})
}

func TestJWTSecretRotation(t *testing.T) {
	c := &clock{t: time.Now()}
	oldSecret, newSecret := []byte(strings.Repeat("o", 32)), []byte(strings.Repeat("n", 32))
	users := []User{{Name: "admin", PasswordHash: testHash(t, "s3cret")}}
	before, err := New(Options{Users: users, JWTSecret: oldSecret, Issuer: "i", Audience: "a", Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	oldJWT, _, err := before.Login("admin", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	after, err := New(Options{Users: users, JWTSecret: newSecret, JWTOldSecrets: [][]byte{oldSecret}, Issuer: "i", Audience: "a", Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := after.Verify(context.Background(), oldJWT); err != nil || id.Name != "admin" {
		t.Errorf("a JWT signed with the old secret after the rotation: %+v %v", id, err)
	}
	newJWT, _, err := after.Login("admin", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := before.Verify(context.Background(), newJWT); !errors.Is(err, ErrInvalid) {
		t.Errorf("the new JWT was not signed with the new secret: %v", err)
	}
	if _, err := after.Verify(context.Background(), newJWT); err != nil {
		t.Errorf("the new JWT: %v", err)
	}
}

func TestShortJWTSecretRefused(t *testing.T) {
	for _, o := range []Options{
		{JWTSecret: []byte("too short")},
		{JWTSecret: []byte(strings.Repeat("n", 32)), JWTOldSecrets: [][]byte{[]byte("short")}},
		{JWTOldSecrets: [][]byte{[]byte(strings.Repeat("o", 32))}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%q, old %q) accepted", o.JWTSecret, o.JWTOldSecrets)
		}
	}
}
