package oauth

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of what a client may register: every field a stranger can send
// has one.
const (
	maxNameLen      = 200
	maxRedirectURIs = 10
	maxURILen       = 2000
	maxListLen      = 10
	// maxMetadataBytes bounds what one client adds to the state file.
	maxMetadataBytes = 8 << 10
)

// registration is an RFC 7591 client registration request and response,
// and the fields of a client metadata document that this server reads.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	ApplicationType         string   `json:"application_type,omitempty"`

	ClientID              string `json:"client_id,omitempty"`
	ClientSecret          string `json:"client_secret,omitempty"`
	ClientIDIssuedAt      int64  `json:"client_id_issued_at,omitempty"`
	ClientSecretExpiresAt *int64 `json:"client_secret_expires_at,omitempty"`
}

// registrationError is an RFC 7591 §3.2.2 error.
type registrationError struct {
	code, desc string
}

func (e *registrationError) Error() string { return e.desc }

func badMetadata(format string, args ...any) error {
	return &registrationError{"invalid_client_metadata", fmt.Sprintf(format, args...)}
}

func badRedirect(format string, args ...any) error {
	return &registrationError{"invalid_redirect_uri", fmt.Sprintf(format, args...)}
}

// check validates the metadata a client registers or publishes, and
// returns its authentication method and application type with their
// defaults filled in. confidentialOK is false for metadata documents,
// which describe public clients only.
func (reg *registration) check(schemes []string, confidentialOK bool) (method, appType string, err error) {
	if utf8.RuneCountInString(reg.ClientName) > maxNameLen {
		return "", "", badMetadata("client_name is longer than %d characters", maxNameLen)
	}
	if !utf8.ValidString(reg.ClientName) || strings.IndexFunc(reg.ClientName, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		// A name is shown on the sign-in page and in a terminal by
		// `vaultmcp oauth list`: no escape sequences, no bidi overrides.
		return "", "", badMetadata("client_name must be plain text, without control or formatting characters")
	}
	size := len(reg.ClientName) + len(reg.ClientURI) + len(reg.Scope)
	for _, u := range reg.RedirectURIs {
		size += len(u)
	}
	if size > maxMetadataBytes {
		return "", "", badMetadata("the client's names and addresses add up to more than %d bytes", maxMetadataBytes)
	}
	if len(reg.ClientURI) > maxURILen {
		return "", "", badMetadata("client_uri is longer than %d characters", maxURILen)
	}
	if reg.ClientURI != "" {
		if u, err := url.Parse(reg.ClientURI); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return "", "", badMetadata("client_uri must be an http or https URL")
		}
	}
	if len(reg.Scope) > maxURILen {
		return "", "", badMetadata("scope is longer than %d characters", maxURILen)
	}
	if len(reg.GrantTypes) > maxListLen || len(reg.ResponseTypes) > maxListLen {
		return "", "", badMetadata("grant_types and response_types hold at most %d entries", maxListLen)
	}
	if len(reg.RedirectURIs) == 0 {
		return "", "", badRedirect("redirect_uris is required")
	}
	if len(reg.RedirectURIs) > maxRedirectURIs {
		return "", "", badRedirect("at most %d redirect_uris may be registered", maxRedirectURIs)
	}
	appType = reg.ApplicationType
	switch appType {
	case "web", "native":
	case "":
		// Clients older than application_type: a loopback or private-use
		// redirect is a native app's (RFC 8252), anything else a web
		// client's.
		appType = "web"
		for _, u := range reg.RedirectURIs {
			if p, err := url.Parse(u); err == nil && p.Scheme != "https" {
				appType = "native"
			}
		}
	default:
		return "", "", badMetadata("application_type must be web or native, not %q", truncate(appType, 40))
	}
	for _, u := range reg.RedirectURIs {
		if err := checkRedirect(u, appType, schemes); err != nil {
			return "", "", err
		}
	}
	method = reg.TokenEndpointAuthMethod
	switch method {
	case "":
		method = "none"
		if confidentialOK && reg.ClientSecret != "" {
			method = "client_secret_basic"
		}
	case "none":
	case "client_secret_post", "client_secret_basic":
		if !confidentialOK {
			return "", "", badMetadata("a client metadata document describes a public client: token_endpoint_auth_method must be none")
		}
	default:
		return "", "", badMetadata("token_endpoint_auth_method must be none, client_secret_post or client_secret_basic")
	}
	for _, g := range reg.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return "", "", badMetadata("grant_types may hold authorization_code and refresh_token only")
		}
	}
	for _, rt := range reg.ResponseTypes {
		if rt != "code" {
			return "", "", badMetadata("response_types may hold code only")
		}
	}
	return method, appType, nil
}

// checkRedirect accepts a redirect URI by its scheme, from a list
// (RFC 9700 §4.1, RFC 8252): https; plain http only to a loopback
// address, and only for a native app; a private-use scheme (one with a
// dot, as RFC 8252 §7.1 asks, or one configured) only for a native app.
// Nothing else: no javascript:, data:, blob: or an app launcher's scheme,
// and no fragment.
func checkRedirect(raw, appType string, schemes []string) error {
	if len(raw) > maxURILen {
		return badRedirect("a redirect URI is longer than %d characters", maxURILen)
	}
	if i := strings.IndexFunc(raw, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"<>\\^`{|}", r) }); i >= 0 {
		return badRedirect("redirect URI %q holds a character a URI may not (RFC 3986): percent-encode it", truncate(raw, 100))
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || !u.IsAbs() {
		return badRedirect("redirect URI %q is not an absolute URL", truncate(raw, 100))
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return badRedirect("redirect URI %q must not have a fragment", truncate(raw, 100))
	}
	if u.User != nil {
		return badRedirect("redirect URI %q must not hold a user name or password", truncate(raw, 100))
	}
	scheme := strings.ToLower(u.Scheme)
	switch {
	case scheme == "https":
		if u.Host == "" {
			return badRedirect("redirect URI %q names no host", truncate(raw, 100))
		}
	case scheme == "http":
		if !loopbackHost(u.Hostname()) {
			return badRedirect("redirect URI %q: plain http is allowed only to a loopback address (localhost, 127.0.0.1, [::1])", truncate(raw, 100))
		}
		if appType != "native" {
			return badRedirect("redirect URI %q: a web client's redirect URIs must be https (register with application_type native for a loopback redirect)", truncate(raw, 100))
		}
	case strings.Contains(scheme, ".") || slices.Contains(schemes, scheme):
		if appType != "native" {
			return badRedirect("redirect URI %q: a private-use scheme is for native apps (application_type native)", truncate(raw, 100))
		}
	default:
		return badRedirect("redirect URI %q: scheme %q is not allowed; use https, http to a loopback address, or a private-use scheme such as com.example.app: (RFC 8252)", truncate(raw, 100), truncate(u.Scheme, 40))
	}
	return nil
}

func loopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// register is dynamic client registration (RFC 7591).
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "use POST")
		return
	}
	if s.opts.LimitRegister != nil && !s.opts.LimitRegister(w, r) {
		return
	}
	var req registration
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(&req); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeError(w, http.StatusRequestEntityTooLarge, "invalid_client_metadata", fmt.Sprintf("the registration is larger than %d bytes", maxBody))
			return
		}
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON client registration")
		return
	}
	method, appType, err := req.check(s.opts.RedirectSchemes, true)
	if err != nil {
		var re *registrationError
		errors.As(err, &re)
		writeError(w, http.StatusBadRequest, re.code, re.desc)
		return
	}
	now := s.now()
	c := &Client{
		ID: randomHex(16), Name: req.ClientName, URI: req.ClientURI, AuthMethod: method, ApplicationType: appType,
		RedirectURIs: slices.Clone(req.RedirectURIs), Created: now, LastUsed: now,
	}
	resp := req
	resp.ClientSecret = ""
	if method != "none" {
		secret := randomToken(32)
		sum := sha256.Sum256([]byte(secret))
		c.SecretHash = sum[:]
		resp.ClientSecret = secret
		never := int64(0)
		resp.ClientSecretExpiresAt = &never
	}
	if err := s.state.update(func(st *State) error {
		st.Clients[c.ID] = c
		return nil
	}); err != nil {
		s.log.Error("oauth: registering a client", "err", err)
		writeError(w, http.StatusInternalServerError, "server_error", "the registration could not be saved")
		return
	}
	audited(r, "oauth-client:"+c.ID, "oauth.register", c.ID)
	resp.ClientID = c.ID
	resp.ClientIDIssuedAt = now.Unix()
	resp.TokenEndpointAuthMethod = method
	resp.ApplicationType = appType
	resp.GrantTypes = []string{"authorization_code", "refresh_token"}
	resp.ResponseTypes = []string{"code"}
	resp.Scope = strings.Join([]string{ScopeRead, ScopeWrite, OfflineAccess}, " ")
	writeJSON(w, http.StatusCreated, resp)
}

// lookupClient finds a client by its id: one registered here, or, for an
// https URL, the client its metadata document describes.
func (s *Server) lookupClient(r *http.Request, id string) (*Client, error) {
	if id == "" {
		return nil, errors.New("the request names no client_id")
	}
	if len(id) > maxURILen {
		return nil, errors.New("the client_id is too long")
	}
	if isMetadataURL(id) {
		if s.opts.LimitRegister != nil && !s.docs.cached(id) {
			// A fetch costs this server a connection: counted as a
			// registration.
			if !s.opts.LimitRegister(discardLimit{}, r) {
				return nil, errors.New("too many new clients from this address; try again in a minute")
			}
		}
		c, err := s.docs.client(r.Context(), id, s.opts.RedirectSchemes)
		var fe *fetchError
		if errors.As(err, &fe) {
			// How a fetch failed (refused, timed out, which address a
			// name has) says things about this server's network: the
			// caller learns only that it failed.
			s.log.Info("oauth: client metadata document", "client_id", truncate(id, 200), "err", fe.cause)
		}
		return c, err
	}
	var c *Client
	s.state.view(func(st *State) {
		if found := st.Clients[id]; found != nil {
			cp := *found
			c = &cp
		}
	})
	if c == nil {
		return nil, errors.New("the application is not registered here (its registration may have expired after 30 days unused, or been revoked); connect it again")
	}
	return c, nil
}

// discardLimit takes the headers and answer of a rate limit check whose
// refusal is reported another way.
type discardLimit struct{}

func (discardLimit) Header() http.Header         { return http.Header{} }
func (discardLimit) Write(b []byte) (int, error) { return len(b), nil }
func (discardLimit) WriteHeader(int)             {}

// touchClient records a client's use and, for one known by its metadata
// document, what the document said, so `vaultmcp oauth list` can name it.
func touchClient(st *State, c *Client, now time.Time) {
	if kept := st.Clients[c.ID]; kept != nil && !c.FromMetadata {
		kept.LastUsed = now
		return
	}
	cp := *c
	if kept := st.Clients[c.ID]; kept != nil {
		cp.Created = kept.Created
	} else {
		cp.Created = now
	}
	cp.LastUsed = now
	st.Clients[c.ID] = &cp
}

// displayName is how the sign-in page and `vaultmcp oauth list` name a
// client.
func (c *Client) displayName() string {
	if c.Name != "" {
		return c.Name
	}
	if c.FromMetadata {
		if u, err := url.Parse(c.ID); err == nil {
			return u.Host
		}
	}
	return "An application"
}
