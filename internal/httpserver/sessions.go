package httpserver

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/internal/auth"
)

// sessions issues MCP session ids and binds each to the identity that
// initialized it: a session id is not a credential, so another caller
// presenting it, even with a valid credential of their own, is told the
// session does not exist (404), for POST, GET (the notification stream)
// and DELETE alike. Terminated and long idle sessions are forgotten, and
// one identity holds at most max sessions: opening one more ends its
// least recently used one, so a client that initializes in a loop costs
// a bounded amount of memory.
type sessions struct {
	mu   sync.Mutex
	byID map[string]*sessionEntry
	idle time.Duration
	max  int
	now  func() time.Time
	// evict ends a session the cap pushed out in mcp-go too; it is
	// called without mu held.
	evict func(id string)
}

type sessionEntry struct {
	owner string
	seen  time.Time
}

var errNoSession = errors.New("no such session")

func newSessions(idle time.Duration, max int) *sessions {
	return &sessions{byID: map[string]*sessionEntry{}, idle: idle, max: max, now: time.Now}
}

type serverViewKey struct{}

// withServerView marks a request the server makes of itself, which may
// end any session.
func withServerView(ctx context.Context) context.Context {
	return context.WithValue(ctx, serverViewKey{}, true)
}

// ResolveSessionIdManager gives mcp-go a view of the sessions bound to
// the request's identity.
// mcp-go asks without a request when it ends every session (shutdown,
// idle sweeps); that view may end any session.
func (s *sessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil || r.Context().Value(serverViewKey{}) != nil {
		return sessionView{s: s, any: true}
	}
	id, _ := auth.FromContext(r.Context())
	return sessionView{s: s, owner: id.String()}
}

var _ server.SessionIdManagerResolver = (*sessions)(nil)

// owns reports whether the session exists and belongs to owner, marking
// it used.
func (s *sessions) owns(id, owner string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byID[id]
	if e == nil || e.owner != owner {
		return false
	}
	e.seen = s.now()
	return true
}

func (s *sessions) sweep(now time.Time) {
	for id, e := range s.byID {
		if now.Sub(e.seen) > s.idle {
			delete(s.byID, id)
		}
	}
}

// sessionView is the SessionIdManager of one identity.
type sessionView struct {
	s     *sessions
	owner string
	any   bool // the server's own view, for every session
}

func (v sessionView) Generate() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	id := "vmcp-" + base64.RawURLEncoding.EncodeToString(b)
	now := v.s.now()
	v.s.mu.Lock()
	v.s.sweep(now)
	evicted := v.s.makeRoom(v.owner)
	v.s.byID[id] = &sessionEntry{owner: v.owner, seen: now}
	v.s.mu.Unlock()
	if evicted != "" && v.s.evict != nil {
		v.s.evict(evicted)
	}
	return id
}

// makeRoom forgets owner's least recently used session when owner holds
// the most sessions allowed, and returns its id. Caller holds mu.
func (s *sessions) makeRoom(owner string) string {
	if s.max <= 0 {
		return ""
	}
	n, oldest := 0, ""
	for id, e := range s.byID {
		if e.owner != owner {
			continue
		}
		n++
		if oldest == "" || e.seen.Before(s.byID[oldest].seen) {
			oldest = id
		}
	}
	if n < s.max {
		return ""
	}
	delete(s.byID, oldest)
	return oldest
}

// count reports how many sessions owner holds (tests).
func (s *sessions) count(owner string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.byID {
		if e.owner == owner {
			n++
		}
	}
	return n
}

func (v sessionView) Validate(id string) (bool, error) {
	if v.any {
		v.s.mu.Lock()
		defer v.s.mu.Unlock()
		if v.s.byID[id] == nil {
			return false, errNoSession
		}
		return false, nil
	}
	if !v.s.owns(id, v.owner) {
		return false, errNoSession
	}
	return false, nil
}

func (v sessionView) Terminate(id string) (bool, error) {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	e := v.s.byID[id]
	if v.any && e == nil {
		// Already forgotten here (evicted): mcp-go still ends its side.
		return false, nil
	}
	if e == nil || !v.any && e.owner != v.owner {
		return false, errNoSession
	}
	delete(v.s.byID, id)
	return false, nil
}
