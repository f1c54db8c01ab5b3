package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/internal/auth"
	"vaultmcp/internal/config"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantOut string
		wantErr string
	}{
		{"version", []string{"version"}, "vaultmcp " + version, ""},
		{"help", []string{"help"}, "", ""},
		{"unknown command", []string{"frobnicate"}, "", `unknown command "frobnicate"`},
		{"bad flag", []string{"serve", "--no-such-flag"}, "", "unknown flag"},
		{"missing vault", []string{"serve", "--vault", "/nonexistent/vault"}, "", "Vault not found: /nonexistent/vault"},
		{"vault not a folder", []string{"serve", "--vault", os.DevNull}, "", "Vault is not a folder: " + os.DevNull},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errOut, startHooks{})
			if tt.wantErr == "" && err != nil {
				t.Fatalf("run(%q) = %v", tt.args, err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("run(%q) = %v, want an error containing %q", tt.args, err, tt.wantErr)
			}
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout = %q, want %q", out.String(), tt.wantOut)
			}
		})
	}
}

func TestEnsureDefaultVault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "vault")
	created, err := ensureDefaultVault(dir)
	if err != nil || !created {
		t.Fatalf("first call: created=%v err=%v", created, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "Welcome.md")); err != nil {
		t.Errorf("no welcome note: %v", err)
	}
	if created, err := ensureDefaultVault(dir); err != nil || created {
		t.Errorf("second call: created=%v err=%v", created, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ensureDefaultVault(file); err == nil {
		t.Error("a file where the vault should be was accepted")
	}
}

func TestServeHTTPExposure(t *testing.T) {
	hash := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		name    string
		env     []string
		args    []string
		wantErr string
	}{
		{"auth none off loopback", []string{"VAULTMCP_HTTP_AUTH", "none"}, []string{"--http", "0.0.0.0:0"}, "allowed only on a loopback address"},
		{"auth none on all interfaces", []string{"VAULTMCP_HTTP_AUTH", "none"}, []string{"--http", ":0"}, "allowed only on a loopback address"},
		{"no credential off loopback", nil, []string{"--http", "0.0.0.0:0"}, "no credential is configured"},
		{"bad address", []string{"VAULTMCP_HTTP_TOKENS", `[{"name": "t", "hash": "` + hash + `"}]`}, []string{"--http", "nonsense"}, "want host:port"},
		{"plain HTTP off loopback", []string{"VAULTMCP_HTTP_TOKENS", `[{"name": "t", "hash": "` + hash + `"}]`}, []string{"--http", "0.0.0.0:0"}, "set http.tls_cert and http.tls_key, or, when a reverse proxy in front terminates TLS, set http.allow_plaintext: true"},
		{"plain HTTP on all interfaces", []string{"VAULTMCP_HTTP_TOKENS", `[{"name": "t", "hash": "` + hash + `"}]`}, []string{"--http", ":0"}, "http.allow_plaintext"},
		{"no public name off loopback", []string{"VAULTMCP_HTTP_TOKENS", `[{"name": "t", "hash": "` + hash + `"}]`, "VAULTMCP_HTTP_ALLOW_PLAINTEXT", "true"}, []string{"--http", "0.0.0.0:0"}, "set http.public_url to the address clients use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			t.Setenv("XDG_DATA_HOME", t.TempDir())
			for i := 0; i+1 < len(tt.env); i += 2 {
				t.Setenv(tt.env[i], tt.env[i+1])
			}
			var out, errOut bytes.Buffer
			err := run(context.Background(), append([]string{"serve"}, tt.args...), strings.NewReader(""), &out, &errOut, startHooks{})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("run = %v, want an error containing %q", err, tt.wantErr)
			}
			// Refused before the vault was opened: the default vault was
			// not even created.
			if _, err := os.Stat(filepath.Join(os.Getenv("XDG_DATA_HOME"), "vaultmcp")); err == nil {
				t.Error("the core was built before the refusal")
			}
		})
	}
}

func TestCheckExposureOffLoopback(t *testing.T) {
	_, hash, err := auth.NewToken()
	if err != nil {
		t.Fatal(err)
	}
	authn, err := auth.New(auth.Options{Tokens: []auth.Token{{Name: "t", Hash: hash}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		h       config.HTTP
		wantErr string
	}{
		{"plain HTTP", config.HTTP{Addr: "0.0.0.0:8000", PublicURL: "https://v.example"}, "http.allow_plaintext"},
		{"no public name", config.HTTP{Addr: "0.0.0.0:8000", TLSCert: "c", TLSKey: "k"}, "http.public_url"},
		{"TLS and public URL", config.HTTP{Addr: "0.0.0.0:8000", TLSCert: "c", TLSKey: "k", PublicURL: "https://v.example"}, ""},
		{"proxy and allowed hosts", config.HTTP{Addr: "0.0.0.0:8000", AllowPlaintext: true, AllowedHosts: []string{"v.example"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.h.Auth = "required"
			err := checkExposure(tt.h, authn, false, io.Discard)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("checkExposure = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestCredentialCommands(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"token", "create", "n8n"}, strings.NewReader(""), &out, &errOut, startHooks{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "vmcp_") || !strings.Contains(out.String(), "name: n8n") || !strings.Contains(out.String(), "hash: sha256:") {
		t.Errorf("token create printed:\n%s", out.String())
	}
	if err := run(context.Background(), []string{"token", "create"}, strings.NewReader(""), &out, &errOut, startHooks{}); err == nil {
		t.Error("token create without a name worked")
	}
	out.Reset()
	if err := run(context.Background(), []string{"hash-password"}, strings.NewReader("s3cret\n"), &out, &errOut, startHooks{}); err != nil {
		t.Fatal(err)
	}
	if h := strings.TrimSpace(out.String()); !strings.HasPrefix(h, "$2a$12$") {
		t.Errorf("hash-password printed %q", h)
	}
	if err := run(context.Background(), []string{"hash-password"}, strings.NewReader("\n"), &out, &errOut, startHooks{}); err == nil {
		t.Error("an empty password was hashed")
	}
}

func TestVersionLine(t *testing.T) {
	defer func(v, c, d string) { version, commit, buildDate = v, c, d }(version, commit, buildDate)
	tests := []struct{ version, commit, date, want string }{
		{"0.1.0-dev", "", "", "vaultmcp 0.1.0-dev"},
		{"1.2.0", "0123abc", "2026-01-02T03:04:05Z", "vaultmcp 1.2.0 (commit 0123abc, built 2026-01-02T03:04:05Z)"},
		{"1.2.0", "0123abc", "", "vaultmcp 1.2.0 (commit 0123abc)"},
	}
	for _, tt := range tests {
		version, commit, buildDate = tt.version, tt.commit, tt.date
		if got := versionLine(); got != tt.want {
			t.Errorf("versionLine() = %q, want %q", got, tt.want)
		}
	}
}
