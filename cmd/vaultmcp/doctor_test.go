package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/config"
)

// git runs git in dir for a test's setup.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// doctorSetup is a vault with a commit, pushed to a bare remote on disk.
func doctorSetup(t *testing.T) (vault, remote string) {
	t.Helper()
	base := t.TempDir()
	vault, remote = filepath.Join(base, "vault"), filepath.Join(base, "remote.git")
	git(t, "", "init", "-q", "--bare", "-b", "main", remote)
	git(t, "", "init", "-q", "-b", "main", vault)
	if err := os.WriteFile(filepath.Join(vault, "a.md"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, vault, "add", "-A")
	git(t, vault, "commit", "-q", "-m", "first")
	git(t, vault, "remote", "add", "origin", remote)
	git(t, vault, "push", "-q", "origin", "main")
	return vault, remote
}

// runDoctor runs `vaultmcp doctor` with a config file holding yaml (none
// when empty) and the extra args.
func runDoctor(t *testing.T, yaml string, args ...string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	if yaml != "" {
		f := filepath.Join(dir, "vaultmcp.yaml")
		if err := os.WriteFile(f, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config", f)
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"doctor"}, args...), strings.NewReader(""), &out, &errOut, startHooks{})
	return out.String(), err
}

// selfSignedCert writes a certificate valid from notBefore to notAfter
// and its key.
func selfSignedCert(t *testing.T, notBefore, notAfter time.Time) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "vault.example.com"},
		DNSNames: []string{"vault.example.com"}, NotBefore: notBefore, NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// readOnlyGitHTTP serves the bare repositories under root with git
// http-backend, which lets anyone fetch but nobody push (receive-pack
// is off for unauthenticated requests).
func readOnlyGitHTTP(t *testing.T, root string) string {
	t.Helper()
	execPath := git(t, "", "--exec-path")
	h := &cgi.Handler{
		Path: filepath.Join(execPath, "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + t.TempDir()},
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

const oauthUser = "http:\n  oauth:\n    enabled: true\n    state_file: %s\n  users:\n    - name: ann\n      password_hash: $2a$10$abcdefghijklmnopqrstuv\n"

func TestDoctorGoodSetup(t *testing.T) {
	vault, _ := doctorSetup(t)
	out, err := runDoctor(t, "", "--vault", vault, "--http", "127.0.0.1:8000")
	if err != nil || strings.Contains(out, "✗") {
		t.Fatalf("doctor on a working setup: %v\n%s", err, out)
	}
	for _, check := range []string{"config", "vault", "git", "remote", "branch", "push", "identity", "credentials", "public_url"} {
		if !strings.Contains(out, "✓ "+check) {
			t.Errorf("no ✓ %s line:\n%s", check, out)
		}
	}
	if !strings.Contains(out, "main is at ") {
		t.Errorf("the branch on the remote is not named:\n%s", out)
	}
}

// TestDoctorFailures: each broken setup fails its own check, with a fix,
// and doctor exits non-zero.
func TestDoctorFailures(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	forbidden := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "blocked by a bot filter", http.StatusForbidden)
	}))
	defer forbidden.Close()

	tests := []struct {
		name  string
		setup func(t *testing.T) (yaml string, args []string)
		check string
	}{
		{"config does not parse", func(t *testing.T) (string, []string) {
			return "no_such_section:\n  key: 1\n", nil
		}, "config"},
		{"vault missing", func(t *testing.T) (string, []string) {
			return "", []string{"--vault", filepath.Join(t.TempDir(), "gone")}
		}, "vault"},
		{"vault is a file", func(t *testing.T) (string, []string) {
			f := filepath.Join(t.TempDir(), "vault.md")
			if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return "", []string{"--vault", f}
		}, "vault"},
		{"repository unreadable", func(t *testing.T) (string, []string) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("not a gitdir line\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return "", []string{"--vault", dir}
		}, "git"},
		{"remote unreachable", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			return "git:\n  remote: " + filepath.Join(t.TempDir(), "missing.git") + "\n", []string{"--vault", vault}
		}, "remote"},
		{"credential cannot push", func(t *testing.T) (string, []string) {
			vault, remote := doctorSetup(t)
			url := readOnlyGitHTTP(t, filepath.Dir(remote)) + "/" + filepath.Base(remote)
			return "git:\n  remote: " + url + "\n", []string{"--vault", vault}
		}, "push"},
		{"no commit identity", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			return "git:\n  author_email: nobody\n", []string{"--vault", vault}
		}, "identity"},
		{"no credential off loopback", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			return "http:\n  public_url: http://127.0.0.1:1\n  allow_plaintext: true\n", []string{"--vault", vault, "--http", "0.0.0.0:8000"}
		}, "credentials"},
		{"plain HTTP off loopback", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			return "http:\n  public_url: http://127.0.0.1:1\n  tokens:\n    - name: t\n      hash: sha256:" + strings.Repeat("ab", 32) + "\n",
				[]string{"--vault", vault, "--http", "0.0.0.0:8000"}
		}, "tls"},
		{"public_url not in allowed_hosts", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			return "http:\n  public_url: http://127.0.0.1:1\n  allowed_hosts: [vault.example.com]\n", []string{"--vault", vault, "--http", "127.0.0.1:8000"}
		}, "public_url"},
		{"certificate expired", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			cert, key := selfSignedCert(t, time.Now().Add(-48*time.Hour), time.Now().Add(-time.Hour))
			return "http:\n  tls_cert: " + cert + "\n  tls_key: " + key + "\n", []string{"--vault", vault, "--http", "127.0.0.1:8443"}
		}, "certificate"},
		{"oauth state readable by others", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			dir := t.TempDir()
			state := filepath.Join(dir, "oauth.json")
			if err := os.WriteFile(state, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(state, 0o644); err != nil {
				t.Fatal(err)
			}
			return strings.Replace(oauthUser, "%s", state, 1), []string{"--vault", vault, "--http", "127.0.0.1:8000"}
		}, "oauth state"},
		{"oauth state folder writable by others", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			return strings.Replace(oauthUser, "%s", filepath.Join(dir, "oauth.json"), 1), []string{"--vault", vault, "--http", "127.0.0.1:8000"}
		}, "oauth state"},
		{"oauth state not a regular file", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			dir := t.TempDir()
			state := filepath.Join(dir, "oauth.json")
			if err := os.Symlink(filepath.Join(dir, "elsewhere.json"), state); err != nil {
				t.Fatal(err)
			}
			return strings.Replace(oauthUser, "%s", state, 1), []string{"--vault", vault, "--http", "127.0.0.1:8000"}
		}, "oauth state"},
		{"metadata blocked in front of the server", func(t *testing.T) (string, []string) {
			vault, _ := doctorSetup(t)
			return "http:\n  public_url: " + forbidden.URL + "\n", []string{"--vault", vault, "--http", "127.0.0.1:8000"}
		}, "server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			yaml, args := tt.setup(t)
			out, err := runDoctor(t, yaml, args...)
			if err == nil {
				t.Errorf("doctor exited 0:\n%s", out)
			}
			line := "✗ " + tt.check + " "
			if !strings.Contains(out, line) {
				t.Fatalf("no %q line:\n%s", line, out)
			}
			if strings.Count(out, "✗") != 1 {
				t.Errorf("want only the %s check to fail:\n%s", tt.check, out)
			}
			if !strings.Contains(out, "fix: ") {
				t.Errorf("no fix given:\n%s", out)
			}
		})
	}
}

// TestDoctorClock: a clock an hour off a server's Date header fails.
func TestDoctorClock(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	cfg := &config.Config{Git: config.Git{Remote: srv.URL + "/notes.git"}}
	for _, tt := range []struct {
		offset time.Duration
		fail   bool
	}{{0, false}, {time.Hour, true}, {-time.Hour, true}} {
		var out bytes.Buffer
		d := &doctor{out: &out, now: func() time.Time { return time.Now().Add(tt.offset) }, client: srv.Client()}
		d.checkClock(context.Background(), cfg)
		if got := d.failed > 0; got != tt.fail || (tt.fail && !strings.Contains(out.String(), "fix: ")) {
			t.Errorf("clock %v off: failed=%v, want %v:\n%s", tt.offset, got, tt.fail, out.String())
		}
	}
}

// TestDoctorNewVault: a folder that is no repository yet passes, as
// serve makes it one.
func TestDoctorNewVault(t *testing.T) {
	out, err := runDoctor(t, "", "--vault", t.TempDir())
	if err != nil || !strings.Contains(out, "not a git repository yet") {
		t.Errorf("doctor on a new vault folder: %v\n%s", err, out)
	}
}
