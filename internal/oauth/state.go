package oauth

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"vaultmcp/internal/atomicfile"
)

// stateVersion is the state file's format. A file of a newer format is
// refused rather than read in part and written back without what this
// version does not know.
const stateVersion = 1

// Limits of the state, so that no client, however many times it
// registers or signs in, can grow it without bound.
const (
	// maxClients is how many clients are kept; a new one past that
	// evicts the one least recently used.
	maxClients = 1000
	// maxIdleClients is how many of them may hold no grant (registered,
	// never signed in, or signed out).
	maxIdleClients = 100
	// maxGrants is how many grants are kept; a new one past that ends
	// the one least recently used.
	maxGrants = 5000
	// maxRotated is how many replaced refresh tokens of a grant are
	// remembered, to recognise one used again (a stolen copy).
	maxRotated = 8
	// clientUnusedTTL is how long a client that holds no grant is kept
	// after its last use.
	clientUnusedTTL = 30 * 24 * time.Hour
)

// State is what the authorization server keeps across restarts: the keys
// that sign access tokens, the registered clients and the grants with
// their refresh tokens. No secret is kept but the signing keys: client
// secrets and refresh tokens are stored as their SHA-256.
type State struct {
	Version int                `json:"version"`
	Keys    []SigningKey       `json:"keys"`
	Clients map[string]*Client `json:"clients"`
	Grants  map[string]*Grant  `json:"grants"`
}

// SigningKey is an HMAC key for access tokens. The first signs; every
// one verifies.
type SigningKey struct {
	ID      string    `json:"id"`
	Secret  []byte    `json:"secret"`
	Created time.Time `json:"created"`
}

// Client is an OAuth client: registered here (RFC 7591), or known by the
// metadata document its id names.
type Client struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// URI is the client's home page, as it registered it.
	URI string `json:"uri,omitempty"`
	// SecretHash is the SHA-256 of a confidential client's secret; empty
	// for a public client.
	SecretHash      []byte    `json:"secret_hash,omitempty"`
	AuthMethod      string    `json:"auth_method"`
	ApplicationType string    `json:"application_type"`
	RedirectURIs    []string  `json:"redirect_uris"`
	FromMetadata    bool      `json:"from_metadata,omitempty"`
	Created         time.Time `json:"created"`
	LastUsed        time.Time `json:"last_used"`
}

// Grant is one sign-in's authorization: a user let a client use the vault
// with some scopes, for one resource.
type Grant struct {
	ID       string    `json:"id"`
	ClientID string    `json:"client_id"`
	User     string    `json:"user"`
	Scopes   []string  `json:"scopes"`
	Resource string    `json:"resource"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
	// RefreshHash is the SHA-256 of the grant's live refresh token; empty
	// when it has none.
	RefreshHash    []byte    `json:"refresh_hash,omitempty"`
	RefreshExpires time.Time `json:"refresh_expires,omitzero"`
	// Rotated are the hashes of refresh tokens the grant replaced, newest
	// last: one presented again means a copy is in other hands, and ends
	// the grant.
	Rotated [][]byte `json:"rotated,omitempty"`
	// AccessExpires is when the last access token issued expires; a
	// grant without a refresh token ends then.
	AccessExpires time.Time `json:"access_expires"`
}

// live reports whether the grant can still be used at now.
func (g *Grant) live(now time.Time) bool {
	return now.Before(g.AccessExpires) || (len(g.RefreshHash) > 0 && now.Before(g.RefreshExpires))
}

// store keeps the State in memory and in its file. Every change is made
// under a lock on the file (the server and `vaultmcp oauth revoke` may
// change it at the same time), on the file's latest contents, and written
// before it is seen: the file and the memory never disagree on anything
// but what another process wrote since the last look, which Refresh
// picks up.
type store struct {
	path string
	now  func() time.Time

	mu    sync.Mutex
	st    *State
	raw   []byte // the file's contents st was read from or written as
	stamp stamp  // the file's identity when raw was read or written
	// broken is why the file, changed since it was last read, cannot be
	// read now: until it can, no grant is trusted (a revocation written
	// to it must not be missed).
	broken error

	// byRefresh finds a grant by a refresh token's hash, live or rotated.
	byRefresh map[[sha256.Size]byte]string
}

// stamp tells whether a file changed since it was last seen.
type stamp struct {
	size    int64
	modTime time.Time
	ino     uint64
}

func stampOf(fi fs.FileInfo) stamp {
	return stamp{size: fi.Size(), modTime: fi.ModTime(), ino: inode(fi)}
}

// openStore reads the state file, or makes a new state (with a new
// signing key) when there is none. A file that cannot be read or parsed
// is an error naming it: starting without it would silently sign every
// connector out.
func openStore(path string, now func() time.Time) (*store, error) {
	if now == nil {
		now = time.Now
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("oauth state %s: %w", path, err)
	}
	if err := checkFolder(dir); err != nil {
		return nil, fmt.Errorf("oauth state %s: %w", path, err)
	}
	// A write cut short by a crash leaves its temporary file, which
	// holds the signing key.
	if left, err := filepath.Glob(filepath.Join(dir, "."+filepath.Base(path)+".tmp-*")); err == nil {
		for _, f := range left {
			os.Remove(f)
		}
	}
	s := &store{path: path, now: now}
	if err := s.update(func(*State) error { return nil }); err != nil {
		return nil, err
	}
	return s, nil
}

// readState parses a state file.
func readState(path string, raw []byte) (*State, error) {
	var st State
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("oauth state %s is not valid (%v); it holds the connectors' sign-ins: restore it from a backup, or move it away to start with none", path, err)
	}
	if st.Version > stateVersion {
		return nil, fmt.Errorf("oauth state %s is of a newer format (%d) than this vaultmcp reads (%d): run the newer version", path, st.Version, stateVersion)
	}
	if len(st.Keys) == 0 {
		return nil, fmt.Errorf("oauth state %s holds no signing key; move it away to start with none", path)
	}
	if st.Clients == nil {
		st.Clients = map[string]*Client{}
	}
	if st.Grants == nil {
		st.Grants = map[string]*Grant{}
	}
	return &st, nil
}

// newState is the state of a server that has never granted anything.
func newState(now time.Time) (*State, error) {
	key, err := newSigningKey(now)
	if err != nil {
		return nil, err
	}
	return &State{Version: stateVersion, Keys: []SigningKey{key}, Clients: map[string]*Client{}, Grants: map[string]*Grant{}}, nil
}

func newSigningKey(now time.Time) (SigningKey, error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return SigningKey{}, fmt.Errorf("oauth: signing key: %w", err)
	}
	sum := sha256.Sum256(secret)
	return SigningKey{ID: hex.EncodeToString(sum[:6]), Secret: secret, Created: now}, nil
}

// load makes st the file's contents if the file changed since it was
// last seen. Called with mu held.
func (s *store) load() (err error) {
	defer func() { s.broken = err }()
	fi, err := os.Lstat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		if s.st != nil && s.raw == nil {
			return nil // a new state not written yet
		}
		// None yet, or moved away while we run to sign everyone out:
		// a new state, with a new key, so no earlier token passes.
		st, err := newState(s.now())
		if err != nil {
			return err
		}
		s.setState(st, nil, stamp{})
		return nil
	}
	if err != nil {
		return fmt.Errorf("oauth state: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("oauth state %s is not a regular file (%v); it must be a file of its own", s.path, fi.Mode().Type())
	}
	if !ownedByUs(fi) {
		return fmt.Errorf("oauth state %s belongs to another user: a file someone else can replace could hold their signing key", s.path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		// It holds the signing keys: a file others can read would let
		// them mint tokens.
		if err := os.Chmod(s.path, 0o600); err != nil {
			return fmt.Errorf("oauth state %s is readable by others (mode %v) and could not be made private: %w", s.path, fi.Mode().Perm(), err)
		}
	}
	if s.st != nil && stampOf(fi) == s.stamp {
		return nil
	}
	raw, err := os.ReadFile(s.path)
	if err != nil {
		return fmt.Errorf("oauth state: %w", err)
	}
	if s.st != nil && bytes.Equal(raw, s.raw) {
		s.stamp = stampOf(fi)
		return nil
	}
	st, err := readState(s.path, raw)
	if err != nil {
		return err
	}
	s.setState(st, raw, stampOf(fi))
	return nil
}

func (s *store) setState(st *State, raw []byte, sp stamp) {
	s.st, s.raw, s.stamp = st, raw, sp
	s.byRefresh = map[[sha256.Size]byte]string{}
	for id, g := range st.Grants {
		for _, h := range append(slices.Clone(g.Rotated), g.RefreshHash) {
			if len(h) == sha256.Size {
				s.byRefresh[[sha256.Size]byte(h)] = id
			}
		}
	}
}

// refresh picks up changes another process made to the file. A file
// that became unreadable is reported, and trusted no more (failing)
// until it reads again.
func (s *store) refresh() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load()
}

// failing is why the state cannot be trusted now; nil when it can.
func (s *store) failing() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.broken
}

// checkFolder refuses a state folder others may write to: they could
// swap the file for one holding their own signing key.
func checkFolder(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if runtimeChecksModes && fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
		return fmt.Errorf("the folder %s may be written by other users (mode %v): keep the state in a folder only the server's user can write", dir, fi.Mode().Perm())
	}
	return nil
}

// view calls fn with the state, read-only.
func (s *store) view(fn func(*State)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.st)
}

// update changes the state with fn and writes it, under the file's lock
// and on the file's latest contents. If fn fails, or the write does,
// nothing changes.
func (s *store) update(fn func(*State) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	lock, err := os.OpenFile(s.path+".lock", os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return fmt.Errorf("oauth state lock: %w", err)
	}
	defer lock.Close()
	if err := lockFile(lock); err != nil {
		return fmt.Errorf("oauth state lock %s: %w", lock.Name(), err)
	}
	defer unlockFile(lock)

	if err := s.load(); err != nil {
		return err
	}
	before := s.raw
	restore := func() {
		if before == nil {
			return // nothing written yet: the next load starts anew
		}
		if st, err := readState(s.path, before); err == nil {
			s.setState(st, before, s.stamp)
		}
	}
	if err := fn(s.st); err != nil {
		restore()
		return err
	}
	s.prune()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s.st); err != nil {
		restore()
		return fmt.Errorf("oauth state: %w", err)
	}
	raw := buf.Bytes()
	if bytes.Equal(raw, before) {
		return nil
	}
	if err := atomicfile.WriteFile(s.path, raw, 0o600); err != nil {
		restore()
		return fmt.Errorf("oauth state: %w", err)
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("oauth state: %w", err)
	}
	s.setState(s.st, raw, stampOf(fi))
	return nil
}

// prune ends grants that can no longer be used and forgets clients
// unused for clientUnusedTTL that hold no grant, then evicts the least
// recently used past the limits. Called with mu held, inside update.
func (s *store) prune() {
	st, now := s.st, s.now()
	held := map[string]bool{}
	for id, g := range st.Grants {
		if !g.live(now) || st.Clients[g.ClientID] == nil {
			delete(st.Grants, id)
			continue
		}
		held[g.ClientID] = true
	}
	idle := 0
	for id, c := range st.Clients {
		switch {
		case held[id]:
		case now.Sub(c.LastUsed) > clientUnusedTTL:
			delete(st.Clients, id)
		default:
			idle++
		}
	}
	// Registering costs nothing, signing in takes a password: clients
	// that hold no grant have a small quota of their own, so a flood of
	// registrations pushes out only other registrations.
	for ; idle > maxIdleClients; idle-- {
		delete(st.Clients, oldest(st.Clients, func(c *Client) time.Time { return c.LastUsed }, func(id string) bool { return !held[id] }))
	}
	for len(st.Grants) > maxGrants {
		delete(st.Grants, oldest(st.Grants, func(g *Grant) time.Time { return g.LastUsed }, nil))
	}
	for len(st.Clients) > maxClients {
		// A client holding no grant goes first: evicting it signs no one
		// out.
		id := oldest(st.Clients, func(c *Client) time.Time { return c.LastUsed }, func(id string) bool { return !held[id] })
		if id == "" {
			id = oldest(st.Clients, func(c *Client) time.Time { return c.LastUsed }, nil)
		}
		delete(st.Clients, id)
		for gid, g := range st.Grants {
			if g.ClientID == id {
				delete(st.Grants, gid)
			}
		}
	}
}

// oldest returns the key whose time is earliest among those ok accepts
// (all when ok is nil); "" when none is.
func oldest[T any](m map[string]T, at func(T) time.Time, ok func(string) bool) string {
	var best string
	var bestAt time.Time
	for k, v := range m {
		if ok != nil && !ok(k) {
			continue
		}
		if t := at(v); best == "" || t.Before(bestAt) || (t.Equal(bestAt) && k < best) {
			best, bestAt = k, t
		}
	}
	return best
}

// grantByRefresh finds the grant a refresh token belongs to, and whether
// the token is its live one (false: one it replaced).
func (s *store) grantByRefresh(hash [sha256.Size]byte) (g *Grant, live bool) {
	id, ok := s.byRefresh[hash]
	if !ok {
		return nil, false
	}
	g = s.st.Grants[id]
	if g == nil {
		return nil, false
	}
	return g, bytes.Equal(g.RefreshHash, hash[:])
}
