package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A client may name itself by the https URL of a JSON document that
// describes it (a Client ID Metadata Document, which MCP clients try
// before dynamic registration). Fetching a URL a stranger chose is a way
// into the server's network, so the fetch is held tight.
const (
	docTimeout  = 5 * time.Second
	docMaxBytes = 64 << 10
	docMaxAge   = 24 * time.Hour
	docCacheMax = 256
)

// isMetadataURL reports whether a client_id is a URL naming a metadata
// document (as opposed to an id this server issued, which is hex).
func isMetadataURL(id string) bool {
	return strings.HasPrefix(id, "https://") || strings.HasPrefix(id, "http://")
}

// metadataDocs fetches and caches client metadata documents.
type metadataDocs struct {
	httpc        *http.Client
	allowPrivate bool
	now          func() time.Time

	mu    sync.Mutex
	cache map[string]cachedDoc
}

type cachedDoc struct {
	client  *Client
	expires time.Time
}

func newMetadataDocs(c *http.Client, allowPrivate bool, now func() time.Time) *metadataDocs {
	if c == nil {
		c = guardedClient(allowPrivate)
	}
	return &metadataDocs{httpc: c, allowPrivate: allowPrivate, now: now, cache: map[string]cachedDoc{}}
}

// guardedClient fetches over the public internet only: every address a
// connection is about to be made to (after DNS, so a name that resolves
// to a private address is caught, and on each attempt, so a second
// answer cannot swap one in) is checked; no proxy from the environment,
// no redirects, a short timeout.
func guardedClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{
		Timeout: docTimeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			if allowPrivate {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("refusing to connect to %s", address)
			}
			if !publicAddr(ap.Addr()) {
				return fmt.Errorf("refusing to fetch client metadata from %s, a private, loopback or reserved address", ap.Addr())
			}
			return nil
		},
	}
	return &http.Client{
		Timeout: docTimeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   docTimeout,
			ResponseHeaderTimeout: docTimeout,
			MaxIdleConns:          4,
			IdleConnTimeout:       30 * time.Second,
			DisableCompression:    true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// reserved are ranges that are neither private nor loopback to netip but
// still not on the public internet.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"), // NAT64, which can reach any IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"), // 6to4, likewise
	netip.MustParsePrefix("2001::/32"), // Teredo
	netip.MustParsePrefix("fec0::/10"), // site-local, deprecated but routed by some
}

// publicAddr reports whether a is a public unicast address.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// cached reports whether id's document is in the cache and fresh.
func (d *metadataDocs) cached(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.cache[id]
	return ok && d.now().Before(c.expires)
}

// checkDocURL checks a client id that names a metadata document.
func (d *metadataDocs) checkDocURL(id string) error {
	u, err := url.Parse(id)
	if err != nil || u.Host == "" {
		return errors.New("the client_id is not a valid URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && d.allowPrivate:
	default:
		return errors.New("a client_id that names a metadata document must be an https URL")
	}
	if u.User != nil || u.Fragment != "" || strings.Contains(id, "#") {
		return errors.New("a client_id URL must hold no user name, password or fragment")
	}
	if u.Path == "" || u.Path == "/" {
		return errors.New("a client_id URL must have a path (the metadata document's)")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return errors.New("a client_id URL must not hold . or .. segments")
		}
	}
	return nil
}

// client returns the client a metadata document describes, fetching it
// unless the cache holds it.
func (d *metadataDocs) client(ctx context.Context, id string, schemes []string) (*Client, error) {
	if err := d.checkDocURL(id); err != nil {
		return nil, err
	}
	d.mu.Lock()
	if c, ok := d.cache[id]; ok && d.now().Before(c.expires) {
		d.mu.Unlock()
		cp := *c.client
		return &cp, nil
	}
	d.mu.Unlock()

	c, ttl, err := d.fetch(ctx, id, schemes)
	if err != nil {
		return nil, fmt.Errorf("the client's metadata document %s: %w", truncate(id, 200), err)
	}
	if ttl > 0 {
		d.mu.Lock()
		if len(d.cache) >= docCacheMax {
			d.cache = map[string]cachedDoc{} // rare: start over rather than track age
		}
		d.cache[id] = cachedDoc{client: c, expires: d.now().Add(ttl)}
		d.mu.Unlock()
	}
	cp := *c
	return &cp, nil
}

func (d *metadataDocs) fetch(ctx context.Context, id string, schemes []string) (*Client, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, docTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := d.httpc.Do(req)
	if err != nil {
		return nil, 0, &fetchError{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("answered %s (redirects are not followed)", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, docMaxBytes+1))
	if err != nil {
		return nil, 0, &fetchError{err}
	}
	if len(body) > docMaxBytes {
		return nil, 0, fmt.Errorf("is larger than %d bytes", docMaxBytes)
	}
	var reg registration
	if err := json.Unmarshal(body, &reg); err != nil {
		return nil, 0, errors.New("is not a JSON client metadata document")
	}
	if reg.ClientID != id {
		return nil, 0, errors.New("names another client_id than its own URL")
	}
	if reg.ClientSecret != "" {
		return nil, 0, errors.New("must not hold a client_secret")
	}
	method, appType, err := reg.check(schemes, false)
	if err != nil {
		return nil, 0, err
	}
	now := d.now()
	c := &Client{
		ID: id, Name: reg.ClientName, URI: reg.ClientURI, AuthMethod: method, ApplicationType: appType,
		RedirectURIs: reg.RedirectURIs, FromMetadata: true, Created: now, LastUsed: now,
	}
	return c, cacheTTL(resp.Header, now), nil
}

// fetchError is a metadata document that could not be fetched; the
// cause is for the server's log only.
type fetchError struct{ cause error }

func (e *fetchError) Error() string { return "could not be fetched" }

// cacheTTL is how long an answer may be reused by its caching headers:
// Cache-Control max-age, else Expires; never past docMaxAge, and not at
// all under no-store or no-cache.
func cacheTTL(h http.Header, now time.Time) time.Duration {
	for _, d := range strings.Split(strings.ToLower(h.Get("Cache-Control")), ",") {
		d = strings.TrimSpace(d)
		switch {
		case d == "no-store" || d == "no-cache":
			return 0
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.TrimPrefix(d, "max-age="))
			if err != nil || n <= 0 {
				return 0
			}
			return min(time.Duration(n)*time.Second, docMaxAge)
		}
	}
	if e := h.Get("Expires"); e != "" {
		if t, err := http.ParseTime(e); err == nil && t.After(now) {
			return min(t.Sub(now), docMaxAge)
		}
	}
	return 0
}
