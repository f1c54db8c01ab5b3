package httpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vaultmcp/gitsync"
	"vaultmcp/internal/audit"
	"vaultmcp/internal/auth"
	"vaultmcp/internal/ratelimit"
	"vaultmcp/tools"
)

// writeJSON answers with status and v as JSON.
//
// Note text is sent as written: with the content type set to JSON (and
// nosniff on every answer) no browser reads it as HTML, so escaping <, >
// and & as json.Marshal does would only make the REST answer differ from
// the MCP one, and a note full of HTML or wikilinks larger.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		body.Reset()
		body.WriteString(`{"detail":"could not encode the answer"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body.Bytes())
}

// detail answers with the API's error body, {"detail": msg}.
func detail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"detail": msg})
}

// statusWriter remembers the status of a response. It passes Flush on
// (SSE needs it) and unwraps for http.ResponseController.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// outer is the start of the chain: panic recovery and the audit record,
// written when the response is done if the caller was authenticated.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every answer names its type; a browser must not guess another
		// (a note's text sent as JSON read as HTML, say).
		w.Header().Set("X-Content-Type-Options", "nosniff")
		sw := &statusWriter{ResponseWriter: w}
		rec := audit.NewRecord(audit.Entry{
			Time: s.opts.Now(), IP: s.clientIP(r), Method: r.Method, Endpoint: r.URL.Path,
		})
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("HTTP handler panicked", "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
				if sw.status == 0 {
					detail(sw, http.StatusInternalServerError, "Internal server error; the server logged the details")
				}
			}
			if id := rec.Identity(); id != "" {
				status := sw.status
				if status == 0 {
					status = http.StatusOK
				}
				e := rec.Finish(status, s.opts.Now())
				write := s.opts.Audit.Write
				if id == unauthenticated {
					// Counted per address and minute: anyone can send
					// these, as many as they like.
					e.IP = ipGroup(e.IP)
					write = s.opts.Audit.Refused
				}
				if err := write(e); err != nil {
					s.log.Warn("audit log write failed", "err", err)
				}
			}
		}()
		next.ServeHTTP(sw, r.WithContext(audit.With(r.Context(), rec)))
	})
}

// clientIP is the caller's address: the connection's peer, or, when the
// peer is a trusted proxy, the last address in X-Forwarded-For that is
// not a trusted proxy itself.
func (s *Server) clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(s.proxies) == 0 || !s.trusted(host) {
		return host
	}
	hops := strings.Split(r.Header.Get("X-Forwarded-For"), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if hop == "" {
			continue
		}
		if !s.trusted(hop) {
			return hop
		}
		host = hop
	}
	return host
}

func (s *Server) trusted(addr string) bool {
	ip := net.ParseIP(addr)
	if ip == nil {
		return false
	}
	for _, n := range s.proxies {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// guard is DNS-rebinding protection and CORS. A request whose Host is not
// an allowed host (checked when bound to loopback or when hosts are
// listed) or whose Origin is neither its own nor a listed one is refused
// with 403; a CORS preflight is answered for listed origins and refused
// for others.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r.Host) {
			detail(w, http.StatusForbidden, fmt.Sprintf("Forbidden: Host %q is not an allowed host of this server (see http.allowed_hosts)", r.Host))
			return
		}
		origin := r.Header.Get("Origin")
		listed := origin != "" && s.origins[strings.ToLower(strings.TrimSuffix(origin, "/"))]
		if r.Method == http.MethodOptions && origin != "" && r.Header.Get("Access-Control-Request-Method") != "" {
			if !listed && openToAnyOrigin(r.URL.Path) {
				// The OAuth endpoints and discovery documents carry no
				// ambient credential: a browser-based client of any
				// origin may call them.
				h := w.Header()
				h.Set("Access-Control-Allow-Origin", "*")
				h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Protocol-Version")
				h.Set("Access-Control-Max-Age", "600")
				w.WriteHeader(http.StatusNoContent)
				return
			}
			if !listed {
				detail(w, http.StatusForbidden, fmt.Sprintf("CORS preflight refused: origin %q is not allowed (see http.cors_origins)", origin))
				return
			}
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID, If-Match, If-None-Match, Idempotency-Key")
			h.Set("Access-Control-Max-Age", "600")
			h.Add("Vary", "Origin")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if origin != "" && !listed && !s.sameOrigin(r, origin) && !openToAnyOrigin(r.URL.Path) {
			detail(w, http.StatusForbidden, fmt.Sprintf("Forbidden: origin %q is not allowed (see http.cors_origins)", origin))
			return
		}
		if listed {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", origin)
			h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, WWW-Authenticate, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, ETag")
			h.Add("Vary", "Origin")
		}
		next.ServeHTTP(w, r)
	})
}

// openToAnyOrigin lists the public discovery documents and the OAuth
// endpoints, which any origin may use. None acts on a cookie or other
// ambient credential; the sign-in form is protected by its anti-forgery
// token instead, since a browser sends it with "Origin: null" under the
// page's no-referrer policy.
func openToAnyOrigin(path string) bool {
	return strings.HasPrefix(path, "/.well-known/") || strings.HasPrefix(path, "/oauth/")
}

// loopbackHosts are the names a loopback server answers to.
var loopbackHosts = map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}

func (s *Server) hostAllowed(host string) bool {
	if !s.loopback && len(s.opts.AllowedHosts) == 0 {
		return true
	}
	h := strings.ToLower(host)
	if s.hosts[h] {
		return true
	}
	name := h
	if hn, _, err := net.SplitHostPort(h); err == nil {
		name = hn
	}
	name = strings.Trim(name, "[]")
	return s.hosts[name] || (s.loopback && loopbackHosts[name])
}

// sameOrigin reports whether origin is the request's own scheme and Host.
func (s *Server) sameOrigin(r *http.Request, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host) && (u.Scheme == "http" || u.Scheme == "https")
}

// limitBody caps the body a handler may read at limit bytes, read as the
// handler reads it (nothing is buffered here): a body declared larger is
// refused with 413 before it is read, and a handler that reads past the
// limit of a body sent without a length has its answer replaced by the
// same 413, so it never acts on a body cut short. setting names the
// configuration that sets the limit, for the message.
func (s *Server) limitBody(limit int64, setting string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		tooLarge := func(w http.ResponseWriter) {
			detail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: the limit here is %d bytes (%s)", limit, setting))
		}
		if r.ContentLength > limit {
			tooLarge(w)
			return
		}
		lw := &limitWriter{ResponseWriter: w, tooLarge: tooLarge}
		r.Body = &limitedBody{ReadCloser: http.MaxBytesReader(w, r.Body, limit), over: &lw.over}
		next.ServeHTTP(lw, r)
	})
}

// limitedBody notes when its reader went past the limit.
type limitedBody struct {
	io.ReadCloser
	over *atomic.Bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var mbe *http.MaxBytesError
	if err != nil && errors.As(err, &mbe) {
		b.over.Store(true)
	}
	return n, err
}

// limitWriter answers 413 in place of whatever a handler answers after
// reading past the body limit.
type limitWriter struct {
	http.ResponseWriter
	tooLarge func(http.ResponseWriter)
	over     atomic.Bool
	started  bool // the handler's answer went out, or the 413 did
	replaced bool // the 413 went out: the handler's answer is dropped
}

// begin decides, at the handler's first write, whose answer is sent.
func (w *limitWriter) begin() {
	if w.started {
		return
	}
	w.started = true
	if w.over.Load() {
		w.replaced = true
		w.tooLarge(w.ResponseWriter)
	}
}

func (w *limitWriter) WriteHeader(code int) {
	w.begin()
	if !w.replaced {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *limitWriter) Write(p []byte) (int, error) {
	w.begin()
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *limitWriter) Flush() {
	w.begin()
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.replaced {
		f.Flush()
	}
}

func (w *limitWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// anonymousSlot bounds the requests one address (or IPv6 /64) may have in
// flight on the routes open without a credential: past the cap the
// request is refused with 429 before its body is read, so slow or held
// bodies from one address cannot pile up connections and memory.
func (s *Server) anonymousSlot(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ipKey(s.clientIP(r))
		if !s.anon.acquire(key) {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Connection", "close")
			writeJSON(w, http.StatusTooManyRequests, map[string]string{
				"error":  "Too many requests in flight",
				"detail": fmt.Sprintf("at most %d requests without a credential at once from one address", s.anon.max),
			})
			return
		}
		defer s.anon.release(key)
		next.ServeHTTP(w, r)
	})
}

// inFlight counts requests in progress per key, up to max each.
type inFlight struct {
	max int
	mu  sync.Mutex
	n   map[string]int
}

func (f *inFlight) acquire(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[key] >= f.max {
		return false
	}
	f.n[key]++
	return true
}

func (f *inFlight) release(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n[key] <= 1 {
		delete(f.n, key)
		return
	}
	f.n[key]--
}

// unauthenticated is the audit identity of a caller refused for want of
// a valid credential.
const unauthenticated = "unauthenticated"

// ipKey is the key of a client address for rate limits and caps.
func ipKey(addr string) string { return "ip:" + ipGroup(addr) }

// ipGroup is the address a client is counted under: the address itself
// for IPv4, its /64 for IPv6, since one host is commonly given a whole
// /64 and would otherwise count as many.
func ipGroup(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is4() {
		return ip.String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return addr
	}
	return p.String()
}

// authenticate requires a credential (unless the server runs without
// authentication) and puts the identity and its scope into the request
// context. A caller without a valid credential is rate limited by IP
// before being told 401, so guessing tokens costs what logging in does.
func (s *Server) authenticate(lim *ratelimit.Limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(auth.WithResource(r.Context(), s.resourceURL(r)))
		id, err := s.opts.Auth.Authenticate(r)
		rec := audit.From(r.Context())
		if err != nil {
			if rec != nil {
				rec.SetIdentity(unauthenticated)
			}
			if !s.allow(w, lim, ipKey(s.clientIP(r))) {
				return
			}
			s.unauthorized(w, r, err)
			return
		}
		if rec != nil {
			rec.SetIdentity(id.String())
		}
		// An HTTP client is remote: answers name files within the vault.
		ctx := tools.ForRemoteClient(auth.WithIdentity(r.Context(), id))
		if a, ok := s.commitAuthor(id, r); ok {
			ctx = gitsync.WithAuthor(ctx, a)
			rec.SetAuthor(a.Name)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// commitAuthor is who the changes of a call are authored by in the
// history: the credential's name (for an OAuth connector, the user and
// the client, "alice (Claude)"), with trailers naming the credential and,
// for the REST API, the client's User-Agent (the MCP server adds the MCP
// client's name from its session). Anonymous calls keep the configured
// author.
func (s *Server) commitAuthor(id auth.Identity, r *http.Request) (gitsync.Author, bool) {
	if id.Kind == auth.KindAnonymous || id.Name == "" {
		return gitsync.Author{}, false
	}
	name := id.Name
	if id.Client != "" {
		name += " (" + id.Client + ")"
	}
	email := s.opts.AuthorEmails[id.Name]
	if email == "" {
		email = gitsync.DisplayEmail(name)
	}
	a := gitsync.Author{Name: name, Email: email, Trailers: []gitsync.Trailer{{Key: gitsync.CredentialTrailer, Value: id.String()}}}
	if !strings.HasPrefix(r.URL.Path, "/mcp") {
		ua := r.UserAgent()
		if len(ua) > 100 {
			ua = ua[:100]
		}
		a = a.WithTrailer(gitsync.ClientTrailer, strings.TrimSpace("REST API "+ua))
	}
	return a, true
}

// unauthorized answers 401 with the challenge the MCP authorization spec
// asks for: where the protected resource metadata is.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, err error) {
	challenge := fmt.Sprintf(`Bearer realm=%q, resource_metadata=%q`, Name, s.metadataURL(r))
	msg := "Not authenticated: send Authorization: Bearer <token>"
	if errors.Is(err, auth.ErrInvalid) {
		challenge += `, error="invalid_token", error_description="the access token is invalid or expired"`
		msg = "Invalid or expired token"
	}
	w.Header().Set("WWW-Authenticate", challenge)
	detail(w, http.StatusUnauthorized, msg)
}

// rateLimited applies lim per identity (per IP for anonymous callers).
func (s *Server) rateLimited(lim *ratelimit.Limiter, next http.Handler) http.Handler {
	if lim == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ipKey(s.clientIP(r))
		if id, ok := auth.FromContext(r.Context()); ok && id.Kind != auth.KindAnonymous {
			key = id.String()
		}
		if s.allow(w, lim, key) {
			next.ServeHTTP(w, r)
		}
	})
}

// perIP applies lim per client IP, before authentication.
func (s *Server) perIP(lim *ratelimit.Limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.allow(w, lim, ipKey(s.clientIP(r))) {
			next.ServeHTTP(w, r)
		}
	})
}

// allow takes a request from key's bucket, sets the X-RateLimit-*
// headers, and answers 429 when the bucket is empty.
func (s *Server) allow(w http.ResponseWriter, lim *ratelimit.Limiter, key string) bool {
	if take(w, lim, key) {
		return true
	}
	writeJSON(w, http.StatusTooManyRequests, map[string]string{
		"error":  "Rate limit exceeded",
		"detail": lim.Rule().String(),
	})
	return false
}

// rateLimitedMCP applies lim per identity to /mcp, answering 429 with a
// JSON-RPC error body, which MCP clients show, and the same headers as
// the REST API's limits.
func (s *Server) rateLimitedMCP(lim *ratelimit.Limiter, next http.Handler) http.Handler {
	if lim == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := ipKey(s.clientIP(r))
		if id, ok := auth.FromContext(r.Context()); ok && id.Kind != auth.KindAnonymous {
			key = id.String()
		}
		if take(w, lim, key) {
			next.ServeHTTP(w, r)
			return
		}
		// The request's id is unknown: its body is not read for a call
		// that is refused anyway.
		writeJSON(w, http.StatusTooManyRequests, map[string]any{
			"jsonrpc": "2.0",
			"id":      nil,
			"error": map[string]any{
				"code":    rpcRateLimited,
				"message": "Rate limit exceeded: " + lim.Rule().String() + " per credential (http.mcp_rate_limit); retry after the Retry-After seconds",
			},
		})
	})
}

// rpcRateLimited is the JSON-RPC error code of a refused /mcp call, in the
// range JSON-RPC leaves to servers.
const rpcRateLimited = -32029

// take takes a request from key's bucket and sets the X-RateLimit-*
// headers, and Retry-After when it is refused.
func take(w http.ResponseWriter, lim *ratelimit.Limiter, key string) bool {
	d := lim.Allow(key)
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
	if d.Allowed {
		return true
	}
	h.Set("Retry-After", strconv.Itoa(int(d.RetryAfter.Round(time.Second)/time.Second)+1))
	return false
}
