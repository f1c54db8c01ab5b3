package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			var out, errOut bytes.Buffer
			err := run(context.Background(), tt.args, strings.NewReader(""), &out, &errOut)
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
