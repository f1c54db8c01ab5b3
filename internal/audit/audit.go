// Package audit writes the audit log of the HTTP side: one JSON line per
// authenticated call, saying who (user or token name, never the
// credential), from where, what (endpoint, and for MCP the tool and the
// vault paths it named), how it ended and how long it took. Passwords,
// tokens and note contents never reach it: an entry is built only from
// the fields below.
//
// The transport starts a Record per request and writes it when the
// response is done; the MCP layer, deeper down, adds the tool and paths
// through the context (Note), so one request is one line.
//
// What anonymous callers send cannot make the log grow without bound:
// every field is capped (a long URL is cut), refusals of callers without
// a valid credential are counted into one line per address and minute
// (Refused), and the file is rotated by size, keeping a few old files.
package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Entry is one line of the audit log.
type Entry struct {
	Time     time.Time `json:"time"`
	Identity string    `json:"identity"` // "token:n8n", "user:admin", "anonymous"
	// Author is who the call's commits name as their author, as the
	// history shows it ("alice (Claude)"); empty when it is the server.
	Author     string   `json:"author,omitempty"`
	IP         string   `json:"ip"`
	Method     string   `json:"method"`
	Endpoint   string   `json:"endpoint"`         // "/mcp", "/api/concept"
	Event      string   `json:"event,omitempty"`  // what an OAuth request did: "oauth.sign_in", "oauth.refresh", …
	Client     string   `json:"client,omitempty"` // the OAuth client it concerned
	RPC        string   `json:"rpc,omitempty"`    // the JSON-RPC method of an MCP call
	Tool       string   `json:"tool,omitempty"`   // the tool an MCP call ran
	Paths      []string `json:"paths,omitempty"`  // vault paths the call named
	Status     int      `json:"status"`
	Error      bool     `json:"error,omitempty"` // the tool answered with an error
	DurationMS float64  `json:"duration_ms"`
	// PathsOmitted counts the paths left out past MaxPaths.
	PathsOmitted int `json:"paths_omitted,omitempty"`
	// Count and Refused are set on the line of a minute's refusals
	// (Refused): how many, and how many with each status ("401": 12).
	Count   int            `json:"count,omitempty"`
	Refused map[string]int `json:"refused,omitempty"`
}

// Caps on what one entry holds: a field is cut to MaxField bytes (a path
// to MaxPath), and at most MaxPaths paths are listed.
const (
	MaxField = 256
	MaxPath  = 1024
	MaxPaths = 64
)

// maxRefusing bounds the addresses whose refusals one minute counts
// apart; the others are counted together under the address "other".
const maxRefusing = 10000

// Options configure a Log that Open opens.
type Options struct {
	// MaxBytes rotates the file before it grows past this size: path
	// becomes path.1, path.1 path.2 and so on; 0 never rotates.
	MaxBytes int64
	// Keep is how many rotated files are kept (3 when 0).
	Keep int
}

// Log appends entries to a writer, one JSON line each. A nil *Log
// discards everything.
type Log struct {
	mu   sync.Mutex
	w    io.Writer
	f    *os.File // the file Open opened, nil for New
	path string
	opts Options
	size int64

	// The refusals of the current minute, by address, in order of first
	// refusal, until flushed.
	minute  time.Time
	pending map[string]*Entry
	order   []string
	timer   *time.Timer
}

// Open opens (creating, mode 0600) the audit log file for appending.
func Open(path string, opts Options) (*Log, error) {
	if opts.Keep <= 0 {
		opts.Keep = 3
	}
	l := &Log{path: path, opts: opts}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	l.f, l.w, l.size = f, f, st.Size()
	return nil
}

// New returns a Log writing to w (tests).
func New(w io.Writer) *Log { return &Log{w: w} }

// Write appends one entry, its fields capped.
func (l *Log) Write(e Entry) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(capped(e))
}

// Refused counts a request refused to a caller without a valid
// credential (401, or 429 before authentication) into the line of its
// address (e.IP) and minute, written when the minute is over (or at
// Flush or Close): an anonymous flood costs one line per address and
// minute, whatever its requests held.
func (l *Log) Refused(e Entry) error {
	if l == nil {
		return nil
	}
	e = capped(e)
	minute := e.Time.Truncate(time.Minute)
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if !minute.Equal(l.minute) {
		err = l.flush()
		l.minute = minute
	}
	if l.pending == nil {
		l.pending = map[string]*Entry{}
	}
	agg := l.pending[e.IP]
	if agg == nil && len(l.pending) >= maxRefusing {
		e.IP = "other"
		agg = l.pending[e.IP]
	}
	if agg == nil {
		agg = &Entry{Time: minute, Identity: e.Identity, IP: e.IP, Method: e.Method, Endpoint: e.Endpoint, Status: e.Status, Refused: map[string]int{}}
		l.pending[e.IP] = agg
		l.order = append(l.order, e.IP)
	}
	agg.Count++
	agg.Refused[strconv.Itoa(e.Status)]++
	if l.timer == nil {
		// The minute's lines go out when it ends, even if nothing else
		// is logged then.
		l.timer = time.AfterFunc(minute.Add(time.Minute).Sub(e.Time)+time.Second, func() { _ = l.Flush() })
	}
	return err
}

// Flush writes the pending lines of refusals.
func (l *Log) Flush() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.flush()
}

func (l *Log) flush() error {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	var errs []error
	for _, ip := range l.order {
		errs = append(errs, l.write(*l.pending[ip]))
	}
	l.pending, l.order = nil, nil
	return errors.Join(errs...)
}

// write appends one line, rotating the file first when the line would
// take it past MaxBytes. Caller holds mu.
func (l *Log) write(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if l.f != nil && l.opts.MaxBytes > 0 && l.size > 0 && l.size+int64(len(line)) > l.opts.MaxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	if l.w == nil {
		return errors.New("audit log: not open (a rotation failed)")
	}
	n, err := l.w.Write(line)
	l.size += int64(n)
	return err
}

// rotate moves path to path.1 (path.1 to path.2, …, the oldest beyond
// Keep removed) and opens a new path. Caller holds mu.
func (l *Log) rotate() error {
	err := l.f.Close()
	l.f, l.w = nil, nil
	if err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	name := func(i int) string {
		if i == 0 {
			return l.path
		}
		return l.path + "." + strconv.Itoa(i)
	}
	for i := l.opts.Keep - 1; i >= 0; i-- {
		if err := os.Rename(name(i), name(i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("audit log: rotate: %w", err)
		}
	}
	return l.open()
}

// Close writes the pending refusals and closes the file Open opened.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.flush()
	if l.f != nil {
		err = errors.Join(err, l.f.Close())
		l.f, l.w = nil, nil
	}
	return err
}

// capped returns e with every field cut to its cap.
func capped(e Entry) Entry {
	e.Identity = cut(e.Identity, MaxField)
	e.Author = cut(e.Author, MaxField)
	e.Event = cut(e.Event, MaxField)
	e.Client = cut(e.Client, MaxField)
	e.IP = cut(e.IP, MaxField)
	e.Method = cut(e.Method, MaxField)
	e.Endpoint = cut(e.Endpoint, MaxField)
	e.RPC = cut(e.RPC, MaxField)
	e.Tool = cut(e.Tool, MaxField)
	if len(e.Paths) > MaxPaths {
		e.PathsOmitted += len(e.Paths) - MaxPaths
		e.Paths = e.Paths[:MaxPaths]
	}
	for i, p := range e.Paths {
		if len(p) > MaxPath {
			e.Paths = slices.Clone(e.Paths)
			for j := i; j < len(e.Paths); j++ {
				e.Paths[j] = cut(e.Paths[j], MaxPath)
			}
			break
		}
	}
	return e
}

// cut shortens s to at most limit bytes, on a character boundary, marking
// the cut with "…".
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const mark = "…"
	n := limit - len(mark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}

// Record is the entry of one request in progress, filled in from several
// layers.
type Record struct {
	mu    sync.Mutex
	entry Entry
}

// NewRecord starts the record of a request.
func NewRecord(e Entry) *Record { return &Record{entry: e} }

type ctxKey struct{}

// With returns ctx carrying r.
func With(ctx context.Context, r *Record) context.Context {
	return context.WithValue(ctx, ctxKey{}, r)
}

// Note adds what an MCP call did to the request's record, if ctx carries
// one: the JSON-RPC method, the tool and the paths named. Only the values
// of arguments named path, paths or *_path are kept: no text, no note
// content.
func Note(ctx context.Context, rpc, tool string, args map[string]any) {
	r, _ := ctx.Value(ctxKey{}).(*Record)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entry.RPC, r.entry.Tool = rpc, tool
	r.entry.Paths = append(r.entry.Paths, Paths(args)...)
}

// NotePaths adds paths a REST call named.
func NotePaths(ctx context.Context, paths ...string) {
	r, _ := ctx.Value(ctxKey{}).(*Record)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entry.Paths = append(r.entry.Paths, paths...)
}

// NoteError marks the call as answered with an error.
func NoteError(ctx context.Context) {
	r, _ := ctx.Value(ctxKey{}).(*Record)
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entry.Error = true
}

// From returns the record ctx carries, or nil.
func From(ctx context.Context) *Record {
	r, _ := ctx.Value(ctxKey{}).(*Record)
	return r
}

// Identity returns who the record says called; "" while unknown.
func (r *Record) Identity() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.entry.Identity
}

// SetIdentity records who the caller turned out to be.
func (r *Record) SetIdentity(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entry.Identity = id
}

// SetAuthor records the author the call's commits name.
func (r *Record) SetAuthor(author string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entry.Author = author
}

// SetEvent records what an OAuth request did, and for which client.
func (r *Record) SetEvent(event, client string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entry.Event, r.entry.Client = event, client
}

// Finish completes the entry with the status and duration.
func (r *Record) Finish(status int, end time.Time) Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.entry.Status = status
	r.entry.DurationMS = float64(end.Sub(r.entry.Time).Microseconds()) / 1000
	return r.entry
}

// Paths picks the path arguments out of a tool call's arguments, sorted.
func Paths(args map[string]any) []string {
	var out []string
	for k, v := range args {
		if k != "path" && k != "paths" && !strings.HasSuffix(k, "_path") {
			continue
		}
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
