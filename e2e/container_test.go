package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/internal/testutil"
)

// The image's user (Containerfile's USER).
const imageUID, imageGID = 65532, 65532

// podman runs podman with the test's own configuration and image store,
// leaving the machine's podman state alone.
type podman struct{ store string }

func (p podman) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command("podman", args...)
	cmd.Env = append(os.Environ(),
		"CONTAINERS_CONF="+filepath.Join(p.store, "containers.conf"),
		"CONTAINERS_STORAGE_CONF="+filepath.Join(p.store, "storage.conf"))
	return cmd
}

func (p podman) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := p.cmd(args...).CombinedOutput()
	if err != nil {
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestContainerImage builds the image with `make image` and runs it the
// way docs/deploy.md does: a vault and the state as volumes, the config
// partly from a mounted file (with the remote's token) and partly from
// the environment, a remote over smart HTTP. It checks /health, that a
// token-authenticated MCP write is committed and pushed, and that after
// SIGTERM (podman stop) the last write is on the remote and the
// container exited 0; and that the default command refuses to start
// without a credential or a public URL.
//
// The remote is served over HTTP on loopback rather than mounted as a
// folder: the image has no git binary, and go-git reaches a remote on
// disk through git's upload-pack and receive-pack. The container shares
// the host's network, so every connection the test makes stays on
// loopback; the server is started as the default command is, on all
// addresses, but on a free port.
func TestContainerImage(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Skip("podman is not installed (make image-deps installs it with runc); skipping the container image test")
	}
	if os.Getuid() != 0 {
		t.Skip("the container image test runs podman as root (its volumes are handed to the image's user); skipping")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	p := podman{store: t.TempDir()}
	const tag = "localhost/vaultmcp-e2e:test"
	start := time.Now()
	build := exec.Command("make", "-C", root, "image", "PODMAN_STORE="+p.store, "IMAGE="+tag,
		"IMAGE_CONTEXT="+filepath.Join(t.TempDir(), "context"), "DIST="+t.TempDir())
	if out, err := build.CombinedOutput(); err != nil {
		// make image writes the store's configuration before it builds.
		if info, ierr := p.cmd("info").CombinedOutput(); ierr != nil {
			t.Skipf("podman cannot run here (podman info: %v); skipping the container image test:\n%s", ierr, info)
		}
		t.Fatalf("make image: %v\n%s", err, out)
	}
	t.Logf("make image took %s; image size %s bytes", time.Since(start).Round(time.Second),
		p.run(t, "image", "inspect", "--format", "{{.Size}}", tag))

	// The remote: a bare repository behind git http-backend, taking a
	// token as forges do.
	v := newVault(t, map[string]string{"a.md": "a\n"})
	repos := filepath.Join(v.base, "repos")
	remote := filepath.Join(repos, "vault.git")
	gitCLI(t, "", "init", "-q", "--bare", "-b", "main", remote)
	gitCLI(t, remote, "config", "http.receivepack", "true")
	const gitToken = "not-a-real-git-token"
	srv := testutil.GitHTTPServer(t, repos, gitToken)
	remoteURL := srv.URL + "/vault.git"

	state := t.TempDir()
	if err := os.Chmod(state, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{v.Root, state} {
		if out, err := exec.Command("chown", "-R", fmt.Sprintf("%d:%d", imageUID, imageGID), dir).CombinedOutput(); err != nil {
			t.Fatalf("chown %s: %v\n%s", dir, err, out)
		}
	}
	const token = "vmcp_container-e2e-token-0123456789"
	sum := sha256.Sum256([]byte(token))
	cfgFile := filepath.Join(t.TempDir(), "vaultmcp.yaml")
	cfg := fmt.Sprintf("git:\n  remote: %s\n  token: %s\nhttp:\n  tokens:\n    - name: e2e\n      hash: sha256:%s\n",
		remoteURL, gitToken, hex.EncodeToString(sum[:]))
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--network", "host",
		"-v", v.Root + ":/vault", "-v", state + ":/state"}
	env := []string{"-e", "VAULTMCP_HTTP_PUBLIC_URL=https://vault.example.com", "-e", "VAULTMCP_HTTP_ALLOW_PLAINTEXT=true"}
	withConfig := []string{"-v", cfgFile + ":/etc/vaultmcp/vaultmcp.yaml:ro"}

	t.Run("refuses without a credential", func(t *testing.T) {
		args := append(append(append([]string{}, base...), "--rm"), env...)
		out, err := p.cmd(append(args, tag)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "no credential is configured") {
			t.Errorf("the default command started without a credential (%v):\n%s", err, out)
		}
	})
	t.Run("refuses without a public URL", func(t *testing.T) {
		args := append(append(append([]string{}, base...), "--rm", "-e", "VAULTMCP_HTTP_ALLOW_PLAINTEXT=true"), withConfig...)
		out, err := p.cmd(append(args, tag)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "http.public_url") {
			t.Errorf("the default command started without a public URL (%v):\n%s", err, out)
		}
	})

	name := fmt.Sprintf("vaultmcp-e2e-%d", os.Getpid())
	port := strings.TrimPrefix(freeLoopbackAddr(t), "127.0.0.1:")
	args := append(append(append(append([]string{}, base...), "-d", "--name", name), env...), withConfig...)
	p.run(t, append(args, tag, "serve", "--http", "0.0.0.0:"+port)...)
	t.Cleanup(func() { _ = p.cmd("rm", "-f", "-t", "0", name).Run() })
	logs := func() string {
		out, _ := p.cmd("logs", name).CombinedOutput()
		return string(out)
	}
	testutil.WaitFor(t, "the container serving", func() bool {
		if strings.Contains(logs(), `msg="serving over HTTP"`) {
			return true
		}
		if state, _ := p.cmd("inspect", "--format", "{{.State.Status}}", name).Output(); strings.TrimSpace(string(state)) == "exited" {
			t.Fatalf("the container exited:\n%s", logs())
		}
		return false
	})
	url := "http://127.0.0.1:" + port

	res, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"healthy"`) {
		t.Fatalf("/health = %d %s", res.StatusCode, body)
	}

	srvHandle := &httpServer{url: url, stderr: &lockedBuffer{}, vault: v}
	s := srvHandle.session(t, token)
	s.ok(t, "write_file", map[string]any{"path": "from-container.md", "content": "written in the container\n"})
	testutil.WaitFor(t, "the write on the remote", func() bool { return remoteHeadIs(t, remote, "MCP: write from-container.md") })

	// The last write before the stop is pushed on the way out.
	s.ok(t, "write_file", map[string]any{"path": "last.md", "content": "the last write\n"})
	s.c.Close()
	p.run(t, "stop", "-t", "60", name)
	if !remoteHeadIs(t, remote, "MCP: write last.md") {
		t.Errorf("after SIGTERM the remote is at %v, want the last write on it\n%s", remoteLog(t, remote), logs())
	}
	if code := p.run(t, "inspect", "--format", "{{.State.ExitCode}}", name); code != "0" {
		t.Errorf("the container exited %s after SIGTERM, want 0:\n%s", code, logs())
	}
}
