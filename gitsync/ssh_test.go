package gitsync

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshGitServer is a minimal git-over-ssh server on loopback: it accepts one
// client key and runs git upload-pack / receive-pack for exec requests.
type sshGitServer struct {
	addr    string
	hostKey ssh.PublicKey
	ln      net.Listener
	wg      sync.WaitGroup
}

func newSSHGitServer(t *testing.T, clientKey ssh.PublicKey) *sshGitServer {
	t.Helper()
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if bytes.Equal(k.Marshal(), clientKey.Marshal()) {
				return nil, nil
			}
			return nil, errors.New("unknown key")
		},
	}
	cfg.AddHostKey(hostSigner)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sshGitServer{addr: ln.Addr().String(), hostKey: hostSigner.PublicKey(), ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(conn, cfg)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *sshGitServer) serve(conn net.Conn, cfg *ssh.ServerConfig) {
	defer conn.Close()
	_, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, chReqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer ch.Close()
			for req := range chReqs {
				if req.Type != "exec" || len(req.Payload) < 4 {
					req.Reply(req.Type == "env", nil)
					continue
				}
				command := string(req.Payload[4:])
				name, arg, _ := strings.Cut(command, " ")
				arg = strings.Trim(arg, "'")
				var sub string
				switch name {
				case "git-upload-pack":
					sub = "upload-pack"
				case "git-receive-pack":
					sub = "receive-pack"
				default:
					req.Reply(false, nil)
					return
				}
				req.Reply(true, nil)
				cmd := exec.Command("git", sub, arg)
				cmd.Env = gitEnv(os.TempDir())
				cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
				status := uint32(0)
				if err := cmd.Run(); err != nil {
					status = 1
				}
				var buf [4]byte
				binary.BigEndian.PutUint32(buf[:], status)
				ch.SendRequest("exit-status", false, buf[:])
				return
			}
		}()
	}
}

// writeKey writes an ed25519 private key in OpenSSH format, encrypted when
// passphrase is set, and returns its public key.
func writeKey(t *testing.T, file, passphrase string) ssh.PublicKey {
	t.Helper()
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	var block *pem.Block
	var err error
	if passphrase == "" {
		block, err = ssh.MarshalPrivateKey(priv, "")
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(priv, "", []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestSSHRemoteChecksKnownHosts(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	keyFile := filepath.Join(base, "id_ed25519")
	clientKey := writeKey(t, keyFile, "correct horse")
	srv := newSSHGitServer(t, clientKey)
	remote := filepath.Join(base, "remote.git")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	url := "ssh://git@" + srv.addr + remote

	known := filepath.Join(base, "known_hosts")
	if err := os.WriteFile(known, []byte(knownhosts.Line([]string{srv.addr}, srv.hostKey)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	auth := Auth{SSHKeyFile: keyFile, SSHKeyPassphrase: "correct horse", KnownHostsFiles: []string{known}}
	vault := filepath.Join(base, "vault")
	r := openRepo(t, Options{Dir: vault, RemoteURL: url, Auth: auth})
	record(t, r, "write a.md", "a.md", "a\n")
	if err := r.Push(context.Background()); err != nil {
		t.Fatalf("push over ssh: %v", err)
	}
	if err := r.Sync(context.Background()); err != nil {
		t.Fatalf("fetch over ssh: %v", err)
	}
	if got := git(t, remote, "log", "--format=%s", "main"); got != "MCP: write a.md" {
		t.Errorf("remote log = %q", got)
	}

	// A server whose key is not in known_hosts is refused.
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	otherSigner, _ := ssh.NewSignerFromKey(otherPriv)
	wrong := filepath.Join(base, "known_hosts_wrong")
	os.WriteFile(wrong, []byte(knownhosts.Line([]string{srv.addr}, otherSigner.PublicKey())+"\n"), 0o600)
	bad := auth
	bad.KnownHostsFiles = []string{wrong}
	_, err := Open(context.Background(), Options{Dir: filepath.Join(base, "clone2"), RemoteURL: url, Auth: bad, Logger: testLogger(t)})
	if err == nil || !strings.Contains(err.Error(), "key") {
		t.Fatalf("clone from a host with an unknown key: err = %v", err)
	}
	// A wrong passphrase is a clear error.
	bad = auth
	bad.SSHKeyPassphrase = "wrong"
	if _, err := bad.method(url); err == nil {
		t.Error("a wrong key passphrase was accepted")
	}
}

func TestAuthMethod(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	base := t.TempDir()
	keyFile := filepath.Join(base, "id")
	writeKey(t, keyFile, "")
	known := filepath.Join(base, "known_hosts")
	os.WriteFile(known, nil, 0o600)

	m, err := Auth{Token: "tok"}.method("https://example.com/me/vault.git")
	if ba, ok := m.(*githttp.BasicAuth); err != nil || !ok || ba.Username != "git" || ba.Password != "tok" {
		t.Errorf("token auth = %#v, %v", m, err)
	}
	m, err = Auth{Token: "tok", Username: "me"}.method("https://example.com/me/vault.git")
	if ba, ok := m.(*githttp.BasicAuth); err != nil || !ok || ba.Username != "me" {
		t.Errorf("token auth with user = %#v, %v", m, err)
	}
	if m, err := (Auth{}).method("/srv/git/vault.git"); m != nil || err != nil {
		t.Errorf("local path auth = %#v, %v", m, err)
	}
	if m, err := (Auth{}).method("https://example.com/public.git"); m != nil || err != nil {
		t.Errorf("anonymous https = %#v, %v", m, err)
	}
	for _, u := range []string{"git@github.com:me/vault.git", "ssh://git@github.com/me/vault.git"} {
		m, err := Auth{SSHKeyFile: keyFile, KnownHostsFiles: []string{known}}.method(u)
		pk, ok := m.(*gitssh.PublicKeys)
		if err != nil || !ok || pk.User != "git" || pk.HostKeyCallback == nil {
			t.Errorf("%s: key auth = %#v, %v", u, m, err)
		}
		if _, err := (Auth{KnownHostsFiles: []string{known}}).method(u); err == nil {
			t.Errorf("%s: ssh without key or agent accepted", u)
		}
	}
	if _, err := (Auth{Token: "tok"}).method("ftp://example.com/x"); err == nil {
		t.Error("a token with a non-http URL accepted")
	}
	if got := redactURL("https://me:secret@example.com/x.git"); strings.Contains(got, "secret") {
		t.Errorf("redactURL = %q", got)
	}
}
