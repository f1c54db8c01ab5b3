package config

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHTTPDefaults(t *testing.T) {
	isolate(t)
	c, err := Load(flags(t))
	if err != nil {
		t.Fatal(err)
	}
	h := c.HTTP
	if h.Addr != "" || h.Auth != "required" || h.JWTExpiry != 30*time.Minute || h.MaxBodyBytes != 4<<20 ||
		len(h.Users) != 0 || len(h.Tokens) != 0 || h.OAuth.Enabled || c.Access.ReadOnly {
		t.Errorf("defaults: %+v %+v", h, c.Access)
	}
}

func TestHTTPFlag(t *testing.T) {
	isolate(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--http"}, DefaultHTTPAddr},
		{[]string{"--http=127.0.0.1:9999"}, "127.0.0.1:9999"},
		{nil, ""},
	} {
		c, err := Load(flags(t, tt.args...))
		if err != nil {
			t.Fatal(err)
		}
		if c.HTTP.Addr != tt.want {
			t.Errorf("%q: addr %q, want %q", tt.args, c.HTTP.Addr, tt.want)
		}
	}
}

const hashA = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestHTTPFromEnvironment(t *testing.T) {
	isolate(t)
	t.Setenv("VAULTMCP_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("VAULTMCP_HTTP_AUTH", "none")
	t.Setenv("VAULTMCP_ACCESS_READ_ONLY", "true")
	t.Setenv("VAULTMCP_ACCESS_DENY", "Private, Journal/secret")
	t.Setenv("VAULTMCP_HTTP_CORS_ORIGINS", `["http://localhost:5678"]`)
	t.Setenv("VAULTMCP_HTTP_TOKENS", `[{"name": "n8n", "hash": "`+hashA+`", "read_only": true, "allow": ["Journal"]}]`)
	t.Setenv("VAULTMCP_HTTP_JWT_EXPIRY", "5m")
	t.Setenv("VAULTMCP_HTTP_OAUTH_ENABLED", "true")
	t.Setenv("VAULTMCP_HTTP_USERS", `[{"name": "admin", "password_hash": "$2a$04$abcdefghijklmnopqrstuv"}]`)
	c, err := Load(flags(t))
	if err != nil {
		t.Fatal(err)
	}
	h := c.HTTP
	if h.Addr != "127.0.0.1:0" || h.Auth != "none" || !c.Access.ReadOnly || h.JWTExpiry != 5*time.Minute || !h.OAuth.Enabled {
		t.Errorf("got %+v / %+v", h, c.Access)
	}
	if !slices.Equal(c.Access.Deny, []string{"Private", "Journal/secret"}) {
		t.Errorf("access.deny = %q", c.Access.Deny)
	}
	if !slices.Equal(h.CORSOrigins, []string{"http://localhost:5678"}) {
		t.Errorf("cors_origins = %q", h.CORSOrigins)
	}
	if len(h.Tokens) != 1 || h.Tokens[0].Name != "n8n" || h.Tokens[0].Hash != hashA || !h.Tokens[0].ReadOnly ||
		!slices.Equal(h.Tokens[0].Allow, []string{"Journal"}) {
		t.Errorf("tokens = %+v", h.Tokens)
	}
}

func TestHTTPFromFile(t *testing.T) {
	dir := isolate(t)
	file := writeFile(t, filepath.Join(dir, "vaultmcp.yaml"), `
http:
  addr: 127.0.0.1:8000
  users:
    - name: admin
      password_hash: "$2a$12$abcdefghijklmnopqrstuuJ3yqlKx4c8oqQd1t5x2H7Qn7X9C5bxu"
      deny: [Private]
  tokens:
    - name: n8n
      hash: `+hashA+`
access:
  allow: [Journal, Projects]
`)
	c, err := Load(flags(t, "--config", file))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.HTTP.Users) != 1 || c.HTTP.Users[0].Name != "admin" || !slices.Equal(c.HTTP.Users[0].Deny, []string{"Private"}) {
		t.Errorf("users = %+v", c.HTTP.Users)
	}
	if len(c.HTTP.Tokens) != 1 || !slices.Equal(c.Access.Allow, []string{"Journal", "Projects"}) {
		t.Errorf("tokens %+v, allow %q", c.HTTP.Tokens, c.Access.Allow)
	}
}

func TestHTTPValidate(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"VAULTMCP_HTTP_AUTH", "maybe"}, `http.auth must be "required" or "none"`},
		{[]string{"VAULTMCP_HTTP_TLS_CERT", "/c.pem"}, "http.tls_cert and http.tls_key go together"},
		{[]string{"VAULTMCP_HTTP_TOKENS", `[{"name": "x", "hash": "plain"}]`}, "hash must be sha256:"},
		{[]string{"VAULTMCP_HTTP_USERS", `[{"name": "x", "password_hash": "secret"}]`}, "must be a bcrypt hash"},
		{[]string{"VAULTMCP_ACCESS_ALLOW", "**"}, "access: allow pattern"},
		{[]string{"VAULTMCP_HTTP_JWT_EXPIRY", "0s"}, "http.jwt_expiry must be positive"},
		{[]string{"VAULTMCP_HTTP_OAUTH_ENABLED", "true"}, "http.oauth.enabled needs http.users"},
		{[]string{"VAULTMCP_HTTP_TOKENS", `[{"name": "x", "hash": "` + hashA + `"}, {"name": "x", "hash": "` + hashA + `"}]`}, `"x" is listed twice`},
		{[]string{"VAULTMCP_HTTP_TOKENS", `[{"name": "n8n", "hash": "` + hashA + `"}, {"name": "ro", "hash": "` + hashA + `", "read_only": true}]`}, `http.tokens[1] (ro) has the same hash as http.tokens[0] (n8n)`},
		{[]string{"VAULTMCP_HTTP_JWT_SECRET", "short secret"}, "http.jwt_secret is 12 bytes; a JWT secret must be at least 32 bytes"},
		{[]string{"VAULTMCP_HTTP_JWT_SECRET", "[" + strings.Repeat("s", 32) + ", short]"}, "http.jwt_secret[1] is 5 bytes"},
		{[]string{"VAULTMCP_HTTP_MCP_RATE_LIMIT", "-1"}, "http.mcp_rate_limit must be 0 (no limit) or positive"},
		{[]string{"VAULTMCP_HTTP_MAX_SESSIONS", "0"}, "http.max_sessions must be positive"},
		{[]string{"VAULTMCP_HTTP_AUDIT_MAX_BYTES", "-1"}, "http.audit_max_bytes must be 0"},
		{[]string{"VAULTMCP_HTTP_OAUTH_GRANT_LIFETIME", "-1h"}, "http.oauth.grant_lifetime must not be negative"},
		{[]string{"VAULTMCP_HTTP_OAUTH_GRANT_LIFETIME", "10m"}, "is shorter than http.oauth.token_expiry"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			isolate(t)
			t.Setenv(tt.env[0], tt.env[1])
			_, err := Load(flags(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestJWTSecretForms(t *testing.T) {
	long := "a secret, with commas and spaces, long enough"
	other := strings.Repeat("k", 32)
	for _, tt := range []struct {
		name, env, yaml string
		want            []string
	}{
		{"one string from the environment", long, "", []string{long}},
		{"a list from the environment", "[" + other + ", '" + long + "']", "", []string{other, long}},
		{"one string in the file", "", "http:\n  jwt_secret: '" + long + "'\n", []string{long}},
		{"a list in the file", "", "http:\n  jwt_secret: ['" + long + "', " + other + "]\n", []string{long, other}},
		{"none", "", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			args := []string{}
			if tt.env != "" {
				t.Setenv("VAULTMCP_HTTP_JWT_SECRET", tt.env)
			}
			if tt.yaml != "" {
				args = append(args, "--config", writeFile(t, filepath.Join(dir, "vaultmcp.yaml"), tt.yaml))
			}
			c, err := Load(flags(t, args...))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal([]string(c.HTTP.JWTSecret), tt.want) {
				t.Errorf("jwt_secret = %q, want %q", c.HTTP.JWTSecret, tt.want)
			}
		})
	}
}

func FuzzSecretsFromString(f *testing.F) {
	f.Add("a secret, with commas and spaces")
	f.Add("[one, 'two, three']")
	f.Add("[unclosed")
	f.Fuzz(func(t *testing.T, s string) {
		out, err := secretsFromString(reflect.TypeFor[string](), reflect.TypeFor[Secrets](), s)
		if strings.HasPrefix(strings.TrimSpace(s), "[") || strings.TrimSpace(s) == "" {
			return // a YAML list (or an error), or none
		}
		if err != nil || !slices.Equal(out.(Secrets), Secrets{s}) {
			t.Fatalf("%q: %v %v, want the string whole", s, out, err)
		}
	})
}
