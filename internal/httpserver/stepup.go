package httpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"vaultmcp/internal/auth"
)

// An OAuth token granted read-only access (scope vault:read) to a user
// who may write is refused a change with 403 and an insufficient_scope
// challenge naming the scope that would allow it, so the client can ask
// the user for more (the MCP authorization spec's step-up), rather than
// with a tool error it cannot act on.

// stepUp answers a change asked with a read-only grant with the
// challenge. It runs after the credential, the rate limit and the body
// limit: the body it reads to tell is already capped.
func (s *Server) stepUp(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, ok := auth.FromContext(r.Context()); ok && id.StepUp != "" && s.changesVault(r) {
			s.insufficientScope(w, r, id.StepUp)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// changesVault reports whether a request would change the vault: a REST
// write, or an MCP tools/call of a tool not marked read-only. The body of
// an MCP request is read to tell, and put back for the handler.
func (s *Server) changesVault(r *http.Request) bool {
	if strings.HasPrefix(r.URL.Path, "/api/") {
		return r.Method == http.MethodPut || r.Method == http.MethodDelete
	}
	if r.URL.Path != "/mcp" || r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
	if err != nil {
		// The handler reads the rest and answers for it.
		return false
	}
	var calls []rpcCall
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		_ = json.Unmarshal(body, &calls)
	} else {
		var c rpcCall
		if json.Unmarshal(body, &c) == nil {
			calls = append(calls, c)
		}
	}
	for _, c := range calls {
		if c.Method == "tools/call" && s.writingTool(c.Params.Name) {
			return true
		}
	}
	return false
}

type rpcCall struct {
	Method string `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// writingTool reports whether a tool may change the vault: it is not
// marked read-only. An unknown tool is not: the MCP server answers that.
func (s *Server) writingTool(name string) bool {
	if s.opts.MCP == nil {
		return false
	}
	t := s.opts.MCP.GetTool(name)
	if t == nil {
		return false
	}
	ro := t.Tool.Annotations.ReadOnlyHint
	return ro == nil || !*ro
}

// insufficientScope answers 403 with the challenge for scope.
func (s *Server) insufficientScope(w http.ResponseWriter, r *http.Request, scope string) {
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%q, error="insufficient_scope", scope=%q, resource_metadata=%q, error_description="this sign-in granted read-only access"`,
		Name, scope, s.metadataURL(r)))
	detail(w, http.StatusForbidden, fmt.Sprintf("Forbidden: this connection's sign-in granted read-only access; changing the vault needs the scope %s (sign in again and allow changes)", scope))
}
