package httpserver

import (
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
// and DELETE alike. Terminated and long idle sessions are forgotten.
type sessions struct {
	mu   sync.Mutex
	byID map[string]*sessionEntry
	idle time.Duration
	now  func() time.Time
}

type sessionEntry struct {
	owner string
	seen  time.Time
}

var errNoSession = errors.New("no such session")

func newSessions(idle time.Duration) *sessions {
	return &sessions{byID: map[string]*sessionEntry{}, idle: idle, now: time.Now}
}

// ResolveSessionIdManager gives mcp-go a view of the sessions bound to
// the request's identity.
// mcp-go asks without a request when it ends every session (shutdown,
// idle sweeps); that view may end any session.
func (s *sessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil {
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
	defer v.s.mu.Unlock()
	v.s.sweep(now)
	v.s.byID[id] = &sessionEntry{owner: v.owner, seen: now}
	return id
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
	if e := v.s.byID[id]; e == nil || !v.any && e.owner != v.owner {
		return false, errNoSession
	}
	delete(v.s.byID, id)
	return false, nil
}
