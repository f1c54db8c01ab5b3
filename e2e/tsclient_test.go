package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptSDKClient drives the binary with the official MCP
// TypeScript SDK (e2e/ts/client.mjs), so `go test ./e2e` covers a second,
// independent client. The SDK comes from e2e/ts/package-lock.json via
// `make e2e-deps`; a missing install fails rather than skips, so CI can
// never pass without it.
func TestTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node not found: install Node.js 18 or later (make e2e-deps installs it on Debian)")
	}
	script, err := filepath.Abs(filepath.Join("ts", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join("ts", "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		t.Fatal("the MCP TypeScript SDK is not installed in e2e/ts/node_modules: run make e2e-deps (npm ci --prefix e2e/ts)")
	}

	const claude = "# Vault rules\nLink notes with [[wikilinks]].\n"
	v := newVault(t, map[string]string{"CLAUDE.md": claude, "ts/existing.md": "x\n"})
	cfg := newServerConfig(t, v, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, serverBin, v.Root)
	cmd.Env, cmd.Dir = cfg.env, cfg.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("TypeScript client failed (%v):\n%s", err, stderr.String())
		}
		t.Fatalf("run node: %v\n%s", err, stderr.String())
	}

	var report struct {
		OK           bool   `json:"ok"`
		Instructions string `json:"instructions"`
		Tools        []struct {
			Name string `json:"name"`
		} `json:"tools"`
		Steps []struct {
			Tool  string `json:"tool"`
			Error string `json:"error"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("TypeScript client report is not JSON: %v\n%s", err, stdout.String())
	}
	if !report.OK {
		t.Fatalf("TypeScript client did not finish: %s", stdout.String())
	}
	if report.Instructions != claude {
		t.Errorf("instructions seen by the SDK = %q, want the root CLAUDE.md", report.Instructions)
	}
	var names []string
	for _, tool := range report.Tools {
		names = append(names, tool.Name)
	}
	for name := range fileTools {
		if !slices.Contains(names, name) {
			t.Errorf("the SDK's tools/list lacks %s (got %s)", name, strings.Join(names, ", "))
		}
	}
	var errs int
	for _, s := range report.Steps {
		if s.Error != "" {
			errs++
		}
	}
	if len(report.Steps) < 14 || errs < 2 {
		t.Errorf("report has %d steps, %d of them errors; want the full round trip and its error cases", len(report.Steps), errs)
	}
	// What the round trip leaves on disk.
	if got := v.read(t, "ts/kept.md"); got != "kept\n" {
		t.Errorf("ts/kept.md = %q", got)
	}
	for _, gone := range []string{"ts/round.md", "ts/sub/renamed.md"} {
		if v.exists(gone) {
			t.Errorf("%s still exists after the round trip", gone)
		}
	}
	if fi, err := os.Stat(v.path("ts/sub")); err != nil || !fi.IsDir() {
		t.Errorf("ts/sub was not created: %v", err)
	}
}
