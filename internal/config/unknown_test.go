package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownKeys: a misspelt key in the config file stops the start with
// its name and the nearest known key, instead of being dropped (a
// misspelt vault.path served the default vault; a misspelt read_only
// made a token that can write).
func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name string
		file string
		env  map[string]string
		want []string // parts of the error; nil = no error
		not  []string // what the error must not say
	}{
		{"vault path misspelt", "vault:\n  pth: /notes\n", nil,
			[]string{"vaultmcp.yaml", "unknown setting vault.pth", "did you mean vault.path?"}, nil},
		{"section misspelt", "valut:\n  path: /notes\n", nil,
			[]string{"unknown setting valut", "did you mean vault?"}, nil},
		{"token scope misspelt", "http:\n  tokens:\n    - name: n8n\n      hash: sha256:" + strings.Repeat("a", 64) + "\n      read_ony: true\n", nil,
			[]string{"unknown setting http.tokens[0].read_ony", "did you mean http.tokens[0].read_only?"}, nil},
		{"second entry", "http:\n  users:\n    - name: a\n      password_hash: x\n    - name: b\n      pasword_hash: y\n", nil,
			[]string{"http.users[1].pasword_hash", "did you mean http.users[1].password_hash?"}, nil},
		{"nested section", "http:\n  oauth:\n    enabeld: true\n", nil,
			[]string{"unknown setting http.oauth.enabeld", "did you mean http.oauth.enabled?"}, nil},
		{"nothing near", "git:\n  colour: blue\n", nil,
			[]string{"unknown setting git.colour"}, []string{"did you mean"}},
		{"short name suggests nothing", "vault:\n  x: 1\n", nil,
			[]string{"unknown setting vault.x"}, []string{"did you mean"}},
		{"every one named", "vault:\n  pth: /a\ngit:\n  remtoe: /b\n", nil,
			[]string{"vault.pth", "git.remtoe", "did you mean git.remote?"}, nil},
		{"token list from the environment", "", map[string]string{"VAULTMCP_HTTP_TOKENS": `[{"name": "n8n", "hash": "sha256:` + strings.Repeat("b", 64) + `", "readonly": true}]`},
			[]string{"unknown setting http.tokens[0].readonly", "did you mean http.tokens[0].read_only?"}, []string{"config file"}},
		{"known keys in any case", "Vault:\n  Path: /notes\nGIT:\n  Sync_Interval: 5m\n", nil, nil, nil},
		{"every documented section", "vault:\n  path: /n\n  hidden: [.git]\n  skip: []\n  max_read_bytes: 10\ngit:\n  push: false\n  gc_interval: 0s\nlog:\n  level: warn\nlimits:\n  memory_bytes: 0\naccess:\n  read_only: true\nhttp:\n  auth: required\n  oauth:\n    token_expiry: 5m\n", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := isolate(t)
			if tt.file != "" {
				writeFile(t, filepath.Join(dir, "vaultmcp.yaml"), tt.file)
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			_, err := Load(flags(t))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error %q says %q", err, n)
				}
			}
		})
	}
}

func TestWithoutIndexes(t *testing.T) {
	for in, want := range map[string]string{
		"vault.path":              "vault.path",
		"http.tokens[0].name":     "http.tokens[].name",
		"http.users[12].allow[3]": "http.users[].allow[]",
		"odd[":                    "odd[",
	} {
		if got := withoutIndexes(in); got != want {
			t.Errorf("withoutIndexes(%q) = %q, want %q", in, got, want)
		}
	}
}
