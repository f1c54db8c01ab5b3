package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault/access"
)

// LoggerName is the logger named in the log notifications sent to clients.
const LoggerName = "vaultmcp"

// userinfo matches credentials written into a URL (https://user:token@host),
// which a git error may quote; clients never see them.
var userinfo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(://)[^/@\s]+@`) })

// ClientLog is an slog.Handler for the server's logger: every record goes
// to the next handler (stderr) as before, and also, as a
// notifications/message, to each connected client that asked for logs
// with logging/setLevel at or below the record's level — so a client
// learns of failed syncs, merge conflicts and refused pulls as they
// happen. Clients that never set a level get nothing. The vault's absolute
// root and any credentials written into a URL are cut from what clients
// receive.
type ClientLog struct {
	next   slog.Handler
	hub    *logHub
	attrs  []slog.Attr // from WithAttrs, already qualified by their groups
	prefix string      // from WithGroup: "group." prefixes for later attrs
}

// logHub is shared by a ClientLog and the handlers derived from it.
type logHub struct {
	mu     sync.RWMutex
	s      *server.MCPServer
	root   string
	levels map[string]mcp.LoggingLevel // session ID -> level it asked for
	min    slog.Level                  // the lowest of levels
}

// NewClientLog returns a handler that writes to next and, once attached to
// a server by New (WithClientLog), to the clients that ask.
func NewClientLog(next slog.Handler) *ClientLog {
	return &ClientLog{next: next, hub: &logHub{levels: map[string]mcp.LoggingLevel{}}}
}

var _ slog.Handler = (*ClientLog)(nil)

// attach connects the handler to s: a session's logging/setLevel is
// recorded, and forgotten when the session ends.
func (h *ClientLog) attach(s *server.MCPServer, hooks *server.Hooks, root string) {
	hub := h.hub
	hub.mu.Lock()
	hub.s, hub.root = s, root
	hub.mu.Unlock()
	hooks.AddAfterSetLevel(func(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		// Server logs name any file of the vault: a session whose access
		// scope hides folders gets none.
		if access.From(ctx).Hides() {
			return
		}
		if id := sessionID(ctx); id != "" && req != nil {
			hub.set(id, req.Params.Level)
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		hub.set(session.SessionID(), "")
	})
}

// set records a session's level ("" forgets the session).
func (hub *logHub) set(id string, level mcp.LoggingLevel) {
	hub.mu.Lock()
	defer hub.mu.Unlock()
	if level == "" {
		delete(hub.levels, id)
	} else {
		hub.levels[id] = level
	}
	hub.min = slog.LevelError + 100
	for _, l := range hub.levels {
		hub.min = min(hub.min, slogLevel(l))
	}
}

// Enabled reports whether stderr or any client wants records of level l.
func (h *ClientLog) Enabled(ctx context.Context, l slog.Level) bool {
	if h.next.Enabled(ctx, l) {
		return true
	}
	h.hub.mu.RLock()
	defer h.hub.mu.RUnlock()
	return len(h.hub.levels) > 0 && l >= h.hub.min
}

// Handle writes r to stderr if it wants it, and sends it to the clients
// that asked for its level.
func (h *ClientLog) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.next.Enabled(ctx, r.Level) {
		err = h.next.Handle(ctx, r)
	}
	h.hub.mu.RLock()
	s, root := h.hub.s, h.hub.root
	var sessions []string
	if len(h.hub.levels) > 0 && r.Level >= h.hub.min {
		for id := range h.hub.levels {
			sessions = append(sessions, id)
		}
	}
	h.hub.mu.RUnlock()
	if s == nil || len(sessions) == 0 {
		return err
	}
	n := mcp.NewLoggingMessageNotification(mcpLevel(r.Level), LoggerName, h.data(r, root))
	for _, id := range sessions {
		// mcp-go checks the session's level again and never blocks; a
		// session gone or too slow simply misses the message.
		_ = s.SendLogMessageToSpecificClient(id, n)
	}
	return err
}

// data is the notification's payload: the message and the attributes, as
// a JSON object.
func (h *ClientLog) data(r slog.Record, root string) map[string]any {
	scrub := func(s string) string {
		s = userinfo().ReplaceAllString(s, "${1}***@")
		if root == "" {
			return s
		}
		return strings.ReplaceAll(strings.ReplaceAll(s, root+"/", ""), root, "<vault>")
	}
	out := map[string]any{"message": scrub(r.Message)}
	var add func(prefix string, a slog.Attr)
	add = func(prefix string, a slog.Attr) {
		v := a.Value.Resolve()
		if v.Kind() == slog.KindGroup {
			for _, g := range v.Group() {
				add(prefix+a.Key+".", g)
			}
			return
		}
		if a.Key == "" {
			return
		}
		out[prefix+a.Key] = jsonValue(v, scrub)
	}
	for _, a := range h.attrs {
		add("", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		add(h.prefix, a)
		return true
	})
	return out
}

// jsonValue turns an attribute value into something encoding/json writes
// as the reader expects (errors as their message, not {}).
func jsonValue(v slog.Value, scrub func(string) string) any {
	switch v.Kind() {
	case slog.KindString:
		return scrub(v.String())
	case slog.KindInt64:
		return v.Int64()
	case slog.KindUint64:
		return v.Uint64()
	case slog.KindFloat64:
		return v.Float64()
	case slog.KindBool:
		return v.Bool()
	case slog.KindDuration:
		return v.Duration().String()
	case slog.KindTime:
		return v.Time().Format(time.RFC3339Nano)
	}
	switch x := v.Any().(type) {
	case error:
		return scrub(x.Error())
	case fmt.Stringer:
		return scrub(x.String())
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = scrub(s)
		}
		return out
	default:
		return scrub(fmt.Sprint(x))
	}
}

// WithAttrs returns a handler that adds attrs to every record.
func (h *ClientLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(attrs)
	c.attrs = slices.Clone(h.attrs)
	for _, a := range attrs {
		a.Key = h.prefix + a.Key
		c.attrs = append(c.attrs, a)
	}
	return &c
}

// WithGroup returns a handler that qualifies later attributes by name.
func (h *ClientLog) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.next = h.next.WithGroup(name)
	c.prefix = h.prefix + name + "."
	return &c
}

// mcpLevel maps a record's level onto MCP's syslog levels.
func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l < slog.LevelInfo:
		return mcp.LoggingLevelDebug
	case l < slog.LevelWarn:
		return mcp.LoggingLevelInfo
	case l < slog.LevelError:
		return mcp.LoggingLevelWarning
	case l < slog.LevelError+4:
		return mcp.LoggingLevelError
	case l < slog.LevelError+8:
		return mcp.LoggingLevelCritical
	case l < slog.LevelError+12:
		return mcp.LoggingLevelAlert
	}
	return mcp.LoggingLevelEmergency
}

// slogLevel is the lowest record level that maps to l or above.
func slogLevel(l mcp.LoggingLevel) slog.Level {
	switch l {
	case mcp.LoggingLevelDebug:
		return slog.LevelDebug - 100
	case mcp.LoggingLevelInfo:
		return slog.LevelInfo
	case mcp.LoggingLevelNotice, mcp.LoggingLevelWarning:
		// No record is a notice: asking for notices means warnings up.
		return slog.LevelWarn
	case mcp.LoggingLevelError:
		return slog.LevelError
	case mcp.LoggingLevelCritical:
		return slog.LevelError + 4
	case mcp.LoggingLevelAlert:
		return slog.LevelError + 8
	}
	return slog.LevelError + 12
}
