// Package idempotency lets a client retry a change safely: a call made
// again with the same key and the same arguments within a day is answered
// with the first call's answer and applies nothing; with other arguments
// it is refused. Keys are scoped to the credential that sent them, and
// the answers are kept in a file, so a restart between a call and its
// retry changes nothing.
package idempotency

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"vaultmcp/internal/atomicfile"
)

// TTL is how long a key is remembered.
const TTL = 24 * time.Hour

// MaxKeys bounds the keys remembered at once; past it the oldest go
// first, even inside TTL.
const MaxKeys = 10000

// MaxKeyLength is the longest key accepted.
const MaxKeyLength = 200

// Store remembers the answers of calls made with a key. The zero Store
// remembers them in memory only; Open keeps them in a file too.
type Store struct {
	path string
	now  func() time.Time

	mu    sync.Mutex
	recs  map[string]record
	locks map[string]*keyLock
	file  *os.File
}

type keyLock struct {
	mu    sync.Mutex
	users int
}

// record is one answered call, as kept in the file (one JSON line each).
type record struct {
	Key         string    `json:"k"` // hash of credential and key
	Fingerprint string    `json:"f"` // hash of the call's arguments
	Answer      []byte    `json:"a"`
	At          time.Time `json:"t"`
}

// Open reads the keys kept at path (a missing file is an empty store),
// dropping expired ones, and keeps new ones there.
func Open(path string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	s := &Store{path: path, now: now, recs: map[string]record{}}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("idempotency keys: %w", err)
	default:
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			var r record
			if json.Unmarshal(sc.Bytes(), &r) == nil && now().Sub(r.At) < TTL {
				s.recs[r.Key] = r // a torn last line is skipped
			}
		}
		f.Close()
	}
	if err := s.compact(); err != nil {
		return nil, err
	}
	return s, nil
}

// compact rewrites the file with the live records only and opens it for
// appending.
func (s *Store) compact() error {
	if s.file != nil {
		s.file.Close()
		s.file = nil
	}
	var buf []byte
	for _, r := range s.recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		buf = append(append(buf, line...), '\n')
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("idempotency keys: %w", err)
	}
	if err := atomicfile.WriteFile(s.path, buf, 0o600); err != nil {
		return fmt.Errorf("idempotency keys: %w", err)
	}
	f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("idempotency keys: %w", err)
	}
	s.file = f
	return nil
}

// Close closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil {
		return nil
	}
	err := s.file.Close()
	s.file = nil
	return err
}

// ReusedError refuses a key sent again with other arguments.
type ReusedError struct{ Key string }

func (e *ReusedError) Error() string {
	return fmt.Sprintf("idempotency_key %q was already used in the last 24 hours for a call with other arguments: nothing was applied. Use a new key for a new change", e.Key)
}

// Fingerprint hashes what makes two calls the same call.
func Fingerprint(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Do runs call once per (scope, key): the first call's answer is kept
// when keep says so (a refused change can be retried as it is) and given
// again, with replayed set, to a call with the same key and fingerprint
// within TTL; a call with another fingerprint gets a *ReusedError.
// Calls with one key run one at a time, so two retries racing each other
// apply once.
func (s *Store) Do(scope, key, fingerprint string, call func() (answer []byte, keep bool)) (answer []byte, replayed bool, err error) {
	if key == "" {
		answer, _ = call()
		return answer, false, nil
	}
	if len(key) > MaxKeyLength {
		return nil, false, fmt.Errorf("idempotency_key is %d bytes long, over the limit of %d", len(key), MaxKeyLength)
	}
	id := Fingerprint([]byte(scope), []byte(key))
	unlock := s.lock(id)
	defer unlock()
	s.mu.Lock()
	r, ok := s.recs[id]
	s.mu.Unlock()
	if ok && s.clock().Sub(r.At) < TTL {
		if r.Fingerprint != fingerprint {
			return nil, false, &ReusedError{Key: key}
		}
		return r.Answer, true, nil
	}
	answer, keep := call()
	if keep {
		if err := s.keep(record{Key: id, Fingerprint: fingerprint, Answer: answer, At: s.clock()}); err != nil {
			// The change was made: answer it, and say the key may not
			// protect a retry.
			return answer, false, err
		}
	}
	return answer, false, nil
}

func (s *Store) clock() time.Time {
	if s.now == nil {
		return time.Now()
	}
	return s.now()
}

// lock takes id's lock, made on first use and dropped with its last user.
func (s *Store) lock(id string) (unlock func()) {
	s.mu.Lock()
	if s.locks == nil {
		s.locks = map[string]*keyLock{}
	}
	l := s.locks[id]
	if l == nil {
		l = &keyLock{}
		s.locks[id] = l
	}
	l.users++
	s.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		s.mu.Lock()
		if l.users--; l.users == 0 {
			delete(s.locks, id)
		}
		s.mu.Unlock()
	}
}

// keep remembers r, in the file when there is one, and forgets expired
// and surplus records.
func (s *Store) keep(r record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recs == nil {
		s.recs = map[string]record{}
	}
	s.recs[r.Key] = r
	pruned := false
	if len(s.recs) > MaxKeys {
		now := s.clock()
		var oldest string
		for k, o := range s.recs {
			if now.Sub(o.At) >= TTL {
				delete(s.recs, k)
				pruned = true
			} else if oldest == "" || o.At.Before(s.recs[oldest].At) {
				oldest = k
			}
		}
		if len(s.recs) > MaxKeys {
			delete(s.recs, oldest)
			pruned = true
		}
	}
	if s.path == "" {
		return nil
	}
	if pruned {
		return s.compact()
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if s.file == nil {
		return errors.New("idempotency keys: the store is closed")
	}
	if _, err := s.file.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("idempotency keys: %w", err)
	}
	if err := s.file.Sync(); err != nil {
		return fmt.Errorf("idempotency keys: %w", err)
	}
	return nil
}
