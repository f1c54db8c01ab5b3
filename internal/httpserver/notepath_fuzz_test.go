package httpserver

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"vaultmcp/internal/ratelimit"
)

// FuzzNotePath sends /api/notes/{path} requests with any request target,
// parsed as the server parses them, under a token scoped to Journal/.
// Whatever the encoding (percent escapes, dot segments, backslashes,
// Unicode forms, NUL), the answer is never a server error, never shows
// what the scope hides, and never a file outside the vault.
func FuzzNotePath(f *testing.F) {
	for _, s := range []string{
		"Journal/2024-01-01.md", "Private/diary.md", "Journal/../Private/diary.md", "Journal/%2e%2e/Private/diary.md",
		"%2e%2e/%2e%2e/etc/passwd", "Journal%2F..%2FPrivate%2Fdiary.md", "Journal\\..\\Private\\diary.md", "private/DIARY.md",
		"Journal/2024-01-01", ".git/config", "Journal/%00.md", "/etc/passwd", "Journal/..%c0%af../Private/diary.md",
	} {
		f.Add(s)
	}
	// Limits high enough that every input reaches the path decoding.
	e := newEnv(f, func(o *Options) {
		lim := DefaultLimits
		lim.API = ratelimit.Rule{PerMinute: 1 << 30, Burst: 1 << 30}
		o.Limits = &lim
	})
	h := e.srv.Handler()
	tok := e.tokens["journal"]
	f.Fuzz(func(t *testing.T, target string) {
		raw := "GET /api/notes/" + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + tok + "\r\n\r\n"
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return // not a request the server would read
		}
		req.RemoteAddr = "127.0.0.1:1"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		body := rec.Body.String()
		if rec.Code >= 500 {
			t.Fatalf("%q: %d %s", target, rec.Code, body)
		}
		if strings.Contains(body, "SECRETWORD") || strings.Contains(body, "root:x:0:0") || strings.Contains(body, "[core]") {
			t.Fatalf("%q showed what the scope hides: %d %s", target, rec.Code, body)
		}
	})
}
