package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/vault"
)

// MaxSubscriptions bounds how many resources one session (or one
// subscriptions/listen stream) may follow.
const MaxSubscriptions = 10_000

// subscriber is whoever receives a resource's updates: a session that
// called resources/subscribe (listen == ""), or one subscriptions/listen
// stream of protocol 2026-07-28, which names its resources up front and
// keeps them for as long as the stream is open.
type subscriber struct {
	session string // the session's ID
	listen  string // the stream's identity; "" for resources/subscribe
}

// subscriptions tracks resource subscriptions per session. mcp-go's
// built-in handlers acknowledge resources/subscribe and unsubscribe but
// record nothing unless the transport's session type does (none of
// mcp-go's do), so the hooks below record them here.
type subscriptions struct {
	v   *vault.Vault
	log *slog.Logger
	s   *server.MCPServer

	mu      sync.Mutex
	subs    map[subscriber]map[string]string // URI -> vault-relative path, "" for a URI that names no vault file
	streams map[subscriber]server.ClientSession
	// sent is the state of each followed file when its last update went
	// out. The same change is often announced twice — by our write and
	// again by the watcher that saw it on disk — and clients should hear
	// of it once.
	sent map[string]fileState
}

// fileState tells one version of a file from another, cheaply.
type fileState struct {
	exists  bool
	size    int64
	modTime time.Time
}

func (su *subscriptions) state(rel string) fileState {
	_, fi, err := su.v.Stat(context.Background(), rel) // the server's own look
	if err != nil {
		return fileState{}
	}
	return fileState{exists: true, size: fi.Size(), modTime: fi.ModTime()}
}

func newSubscriptions(v *vault.Vault, logger *slog.Logger) *subscriptions {
	return &subscriptions{
		v:       v,
		log:     logger,
		subs:    map[subscriber]map[string]string{},
		streams: map[subscriber]server.ClientSession{},
		sent:    map[string]fileState{},
	}
}

func (su *subscriptions) hook(hooks *server.Hooks) {
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		if req != nil && hiddenURI(ctx, su.v, req.Params.URI) {
			return // nothing is ever sent about a note the session may not see
		}
		if id := sessionID(ctx); id != "" && req != nil {
			su.add(subscriber{session: id}, req.Params.URI)
		}
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if id := sessionID(ctx); id != "" && req != nil {
			su.remove(subscriber{session: id}, req.Params.URI)
		}
	})
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, id any, req *mcp.SubscriptionsListenRequest) {
		session := server.ClientSessionFromContext(ctx)
		if session == nil || req == nil {
			return
		}
		key := streamKey(session, id)
		su.mu.Lock()
		su.streams[key] = session
		su.mu.Unlock()
		for _, uri := range req.Params.Notifications.ResourceSubscriptions {
			if !hiddenURI(ctx, su.v, uri) { // as for resources/subscribe
				su.add(key, uri)
			}
		}
	})
	hooks.AddAfterSubscriptionsListen(func(ctx context.Context, id any, _ *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		if session := server.ClientSessionFromContext(ctx); session != nil {
			su.drop(func(s subscriber) bool { return s == streamKey(session, id) })
		}
	})
	hooks.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, _ any, _ error) {
		if method != mcp.MethodSubscriptionsListen {
			return
		}
		if session := server.ClientSessionFromContext(ctx); session != nil {
			su.drop(func(s subscriber) bool { return s == streamKey(session, id) })
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		id := session.SessionID()
		su.drop(func(s subscriber) bool { return s.session == id })
	})
}

func sessionID(ctx context.Context) string {
	if session := server.ClientSessionFromContext(ctx); session != nil {
		return session.SessionID()
	}
	return ""
}

// streamKey identifies one subscriptions/listen stream: streams of
// stateless HTTP requests share no session ID, so the session value itself
// tells them apart.
func streamKey(session server.ClientSession, id any) subscriber {
	return subscriber{session: session.SessionID(), listen: fmt.Sprintf("%p %v", session, id)}
}

// add records a subscription. Any URI is acknowledged (the protocol has no
// way to refuse one for a resource that does not exist yet), but only a
// vault file's URI is ever updated.
func (su *subscriptions) add(who subscriber, uri string) {
	rel := ""
	if p, err := NotePath(uri); err == nil {
		if resolved, err := su.v.Resolve(p); err == nil {
			rel = resolved.Rel // as the change feed spells it (Unicode form, symlinks)
		}
	}
	var st fileState
	if rel != "" {
		st = su.state(rel)
	}
	su.mu.Lock()
	defer su.mu.Unlock()
	m := su.subs[who]
	if m == nil {
		m = map[string]string{}
		su.subs[who] = m
	}
	if _, ok := m[uri]; !ok && len(m) >= MaxSubscriptions {
		su.log.Warn("resource subscription refused: too many for one session", "session", who.session, "limit", MaxSubscriptions)
		return
	}
	m[uri] = rel
	if _, ok := su.sent[rel]; !ok && rel != "" {
		// Only a change after the subscription is news.
		su.sent[rel] = st
	}
}

func (su *subscriptions) remove(who subscriber, uri string) {
	su.mu.Lock()
	defer su.mu.Unlock()
	delete(su.subs[who], uri)
	if len(su.subs[who]) == 0 {
		delete(su.subs, who)
	}
	su.forgetUnfollowed()
}

// drop forgets every subscriber match selects.
func (su *subscriptions) drop(match func(subscriber) bool) {
	su.mu.Lock()
	defer su.mu.Unlock()
	for who := range su.subs {
		if match(who) {
			delete(su.subs, who)
		}
	}
	for who := range su.streams {
		if match(who) {
			delete(su.streams, who)
		}
	}
	su.forgetUnfollowed()
}

// forgetUnfollowed drops the sent state of files nobody follows any more.
// Caller holds mu.
func (su *subscriptions) forgetUnfollowed() {
	followed := map[string]bool{}
	for _, m := range su.subs {
		for _, rel := range m {
			followed[rel] = true
		}
	}
	for rel := range su.sent {
		if !followed[rel] {
			delete(su.sent, rel)
		}
	}
}

// count is the number of resources who follows.
func (su *subscriptions) count(who subscriber) int {
	su.mu.Lock()
	defer su.mu.Unlock()
	return len(su.subs[who])
}

// notify sends notifications/resources/updated for every subscribed file
// the changed paths touch: the file itself, or a folder above it (moved,
// deleted, replaced by a pull). It never blocks: a client that does not
// read its notifications loses them, not the writer its time.
func (su *subscriptions) notify(paths []string) {
	if su.s == nil || len(paths) == 0 {
		return
	}
	touched := make(map[string]bool, len(paths))
	for _, p := range paths {
		touched[p] = true
	}
	type update struct {
		who    subscriber
		stream server.ClientSession
		uri    string
	}
	var updates []update
	su.mu.Lock()
	candidates := map[string]bool{}
	for _, m := range su.subs {
		for _, rel := range m {
			if rel != "" && changedUnder(rel, touched) {
				candidates[rel] = true
			}
		}
	}
	su.mu.Unlock()
	if len(candidates) == 0 {
		return
	}
	// Stat outside the lock; the feed delivers one batch at a time, so
	// nothing else updates sent meanwhile.
	now := make(map[string]fileState, len(candidates))
	for rel := range candidates {
		now[rel] = su.state(rel)
	}
	su.mu.Lock()
	for rel, st := range now {
		if last, ok := su.sent[rel]; ok && last == st {
			delete(now, rel) // announced already
			continue
		}
		su.sent[rel] = st
	}
	for who, m := range su.subs {
		for uri, rel := range m {
			if _, changed := now[rel]; changed && rel != "" {
				updates = append(updates, update{who, su.streams[who], uri})
			}
		}
	}
	su.mu.Unlock()
	for _, u := range updates {
		params := map[string]any{"uri": u.uri}
		if u.who.listen == "" {
			if err := su.s.SendNotificationToSpecificClient(u.who.session, mcp.MethodNotificationResourceUpdated, params); err != nil {
				su.log.Debug("resource update not delivered", "session", u.who.session, "uri", u.uri, "err", err)
			}
			continue
		}
		if u.stream == nil {
			continue
		}
		n := mcp.JSONRPCNotification{
			JSONRPC:      mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: mcp.MethodNotificationResourceUpdated, Params: mcp.NotificationParams{AdditionalFields: params}},
		}
		select {
		case u.stream.NotificationChannel() <- n:
		default:
			su.log.Debug("resource update not delivered: the stream is full", "uri", u.uri)
		}
	}
}

// changedUnder reports whether rel or a folder above it is among the
// touched paths ("" stands for the whole vault).
func changedUnder(rel string, touched map[string]bool) bool {
	if touched[""] {
		return true
	}
	for {
		if touched[rel] {
			return true
		}
		dir := path.Dir(rel)
		if dir == "." || dir == rel {
			return false
		}
		rel = dir
	}
}
