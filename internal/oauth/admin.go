package oauth

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// ClientSummary is a client and its grants, as `vaultmcp oauth list`
// shows them.
type ClientSummary struct {
	ID            string
	Name          string
	FromMetadata  bool
	RedirectHosts []string
	Created       time.Time
	LastUsed      time.Time
	Grants        []GrantSummary
}

// GrantSummary is one grant of a client.
type GrantSummary struct {
	User     string
	Scopes   []string
	Created  time.Time
	LastUsed time.Time
}

// List reads the state file and summarises its clients, most recently
// used first. A missing file is an empty list: no client has connected.
func List(stateFile string) ([]ClientSummary, error) {
	raw, err := os.ReadFile(stateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth state: %w", err)
	}
	st, err := readState(stateFile, raw)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	var out []ClientSummary
	for _, c := range st.Clients {
		cs := ClientSummary{ID: c.ID, Name: c.displayName(), FromMetadata: c.FromMetadata, Created: c.Created, LastUsed: c.LastUsed}
		for _, r := range c.RedirectURIs {
			h := r
			if u, err := url.Parse(r); err == nil {
				h = u.Host
				if h == "" {
					h = u.Scheme + ":"
				}
			}
			if !slices.Contains(cs.RedirectHosts, h) {
				cs.RedirectHosts = append(cs.RedirectHosts, h)
			}
		}
		for _, g := range st.Grants {
			if g.ClientID == c.ID && g.live(now) {
				cs.Grants = append(cs.Grants, GrantSummary{User: g.User, Scopes: g.Scopes, Created: g.Created, LastUsed: g.LastUsed})
			}
		}
		slices.SortFunc(cs.Grants, func(a, b GrantSummary) int { return b.LastUsed.Compare(a.LastUsed) })
		out = append(out, cs)
	}
	slices.SortFunc(out, func(a, b ClientSummary) int {
		if c := b.LastUsed.Compare(a.LastUsed); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// RevokeClient ends every grant of a client and forgets its
// registration; a running server refuses its tokens within seconds. It
// returns how many grants ended.
func RevokeClient(stateFile, id string) (int, error) {
	return revokeWhere(stateFile, func(st *State) (int, error) {
		if st.Clients[id] == nil {
			return 0, fmt.Errorf("no client %q in %s (vaultmcp oauth list shows them)", id, stateFile)
		}
		delete(st.Clients, id)
		n := 0
		for gid, g := range st.Grants {
			if g.ClientID == id {
				delete(st.Grants, gid)
				n++
			}
		}
		return n, nil
	})
}

// RevokeUser ends every grant a user gave; the clients stay registered,
// and sign in again to be let back in.
func RevokeUser(stateFile, user string) (int, error) {
	return revokeWhere(stateFile, func(st *State) (int, error) {
		n := 0
		for gid, g := range st.Grants {
			if g.User == user {
				delete(st.Grants, gid)
				n++
			}
		}
		if n == 0 {
			return 0, fmt.Errorf("the user %q holds no grant in %s", user, stateFile)
		}
		return n, nil
	})
}

func revokeWhere(stateFile string, fn func(*State) (int, error)) (int, error) {
	if _, err := os.Stat(stateFile); err != nil {
		return 0, fmt.Errorf("oauth state: %w (no client has connected, or the server uses another file: see http.oauth.state_file)", err)
	}
	s, err := openStore(stateFile, nil)
	if err != nil {
		return 0, err
	}
	var n int
	err = s.update(func(st *State) error {
		var err error
		n, err = fn(st)
		return err
	})
	return n, err
}
