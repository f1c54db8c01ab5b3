package httpserver

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/auth"
)

// routes assembles the mux and the chain every request passes.
func (s *Server) routes() http.Handler {
	// A body is read only once the caller is known: authenticated
	// routes check the credential (and the rate limit) first, public
	// ones cap what one address may have in flight and read little.
	public := func(h http.Handler) http.Handler {
		return s.anonymousSlot(s.limitBody(PublicBodyBytes, "fixed for requests without a credential", h))
	}
	body := func(h http.Handler) http.Handler { return s.limitBody(s.maxBody, "http.max_body_bytes", h) }
	mux := http.NewServeMux()
	mux.Handle("/health", methods(s.perIP(s.limHealth, public(http.HandlerFunc(s.health))), http.MethodGet, http.MethodHead))
	mux.Handle("/api/auth/login", methods(s.perIP(s.limLogin, public(http.HandlerFunc(s.login))), http.MethodPost))
	api := func(h http.Handler, allowed ...string) http.Handler {
		return s.authenticate(s.limAPI, methods(s.rateLimited(s.limAPI, body(s.stepUp(h))), allowed...))
	}
	for path, r := range s.apiRoutes() {
		mux.Handle(path, api(r.handler, r.methods...))
	}
	mux.Handle("/api/", s.authenticate(s.limAPI, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		detail(w, http.StatusNotFound, "No such endpoint: "+r.URL.Path)
	})))

	mux.Handle("/mcp", s.authenticate(s.limAPI, s.rateLimitedMCP(s.limMCP, body(s.stepUp(s.mcpHandler())))))

	prm := public(http.HandlerFunc(s.protectedResourceMetadata))
	mux.Handle(server.WellKnownProtectedResourcePath, prm)
	mux.Handle(server.WellKnownProtectedResourcePath+"/mcp", prm)
	if o := s.opts.OAuth; o != nil && o.Handler() != nil {
		for _, p := range o.Paths() {
			mux.Handle(p, public(o.Handler()))
		}
	}
	mux.Handle("/", public(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		detail(w, http.StatusNotFound, "Not found: "+r.URL.Path)
	})))
	return s.outer(s.guard(mux))
}

// methods answers 405 with the API's error body to other methods.
func methods(next http.Handler, allowed ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(allowed, r.Method) {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			detail(w, http.StatusMethodNotAllowed, "Method "+r.Method+" not allowed here; use "+strings.Join(allowed, " or "))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// mcpHandler is mcp-go's streamable HTTP server behind the session check:
// a notification stream (GET) or a session's end (DELETE) is only for
// the identity that opened the session. mcp-go checks POSTs itself,
// through the same sessions.
func (s *Server) mcpHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get(server.HeaderKeySessionID)
		if sid == "" && r.Method == http.MethodGet {
			// mcp-go would open a session for it, one per GET, outside
			// the cap on a credential's sessions.
			detail(w, http.StatusBadRequest, "GET /mcp needs the Mcp-Session-Id header of an initialized session: initialize first (POST)")
			return
		}
		if sid != "" && (r.Method == http.MethodGet || r.Method == http.MethodDelete) {
			id, _ := auth.FromContext(r.Context())
			if !s.sessions.owns(sid, id.String()) {
				detail(w, http.StatusNotFound, "Session not found: it ended, or it belongs to another credential; initialize a new one")
				return
			}
		}
		if r.Method == http.MethodGet {
			// A notification stream stays open for as long as the client
			// listens: the server's write timeout is for requests.
			_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		}
		s.mcp.ServeHTTP(w, r)
	})
}

// endSession ends a session mcp-go holds, as its DELETE does, with the
// server's own view of the sessions: the session cap evicted it.
func (s *Server) endSession(id string) {
	r, err := http.NewRequestWithContext(withServerView(context.Background()), http.MethodDelete, "/mcp", nil)
	if err != nil {
		return
	}
	r.Header.Set(server.HeaderKeySessionID, id)
	s.mcp.ServeHTTP(discard{header: http.Header{}}, r)
}

// discard is a ResponseWriter for requests the server makes of itself.
type discard struct{ header http.Header }

func (d discard) Header() http.Header         { return d.header }
func (d discard) Write(p []byte) (int, error) { return len(p), nil }
func (d discard) WriteHeader(int)             {}

// protectedResourceMetadata serves RFC 9728 metadata for /mcp, at the
// root and the path-qualified well-known URIs alike.
func (s *Server) protectedResourceMetadata(w http.ResponseWriter, r *http.Request) {
	cfg := server.ProtectedResourceMetadataConfig{
		Resource:               s.resourceURL(r),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "vaultmcp: an Obsidian vault over MCP",
	}
	if s.opts.OAuth != nil {
		cfg.AuthorizationServers = []string{s.opts.OAuth.Issuer(r)}
		cfg.ScopesSupported = s.opts.OAuth.ScopesSupported()
	}
	server.NewProtectedResourceMetadataHandler(cfg).ServeHTTP(w, r)
}

// health reports that the server is up, and its version; nothing about
// the vault.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "healthy", "server": Name, "version": s.opts.Version})
}
