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
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
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
}

// Log appends entries to a writer, one JSON line each. A nil *Log
// discards everything.
type Log struct {
	mu sync.Mutex
	w  io.Writer
	c  io.Closer
}

// Open opens (creating, mode 0600) the audit log file for appending.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return &Log{w: f, c: f}, nil
}

// New returns a Log writing to w (tests).
func New(w io.Writer) *Log { return &Log{w: w} }

// Write appends one entry.
func (l *Log) Write(e Entry) error {
	if l == nil {
		return nil
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.w.Write(line)
	return err
}

// Close closes the file Open opened.
func (l *Log) Close() error {
	if l == nil || l.c == nil {
		return nil
	}
	return l.c.Close()
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
