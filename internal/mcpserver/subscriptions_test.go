package mcpserver

import (
	"context"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/internal/testutil"
	"vaultmcp/vault/access"
)

// subscribe and unsubscribe speak 2025-11-25's resources/subscribe, which
// mcp-go marks deprecated in favour of 2026-07-28's subscriptions/listen;
// both are served, so both are tested.
func (cn *conn) subscribe(uri string) {
	cn.t.Helper()
	ctx, cancel := cn.ctx()
	defer cancel()
	var req mcp.SubscribeRequest
	req.Params.URI = uri
	//lint:ignore SA1019 resources/subscribe is tested on purpose
	if err := cn.c.Subscribe(ctx, req); err != nil {
		cn.t.Fatalf("subscribe %s: %v", uri, err)
	}
}

func (cn *conn) unsubscribe(uri string) {
	cn.t.Helper()
	ctx, cancel := cn.ctx()
	defer cancel()
	var req mcp.UnsubscribeRequest
	req.Params.URI = uri
	//lint:ignore SA1019 resources/unsubscribe is tested on purpose
	if err := cn.c.Unsubscribe(ctx, req); err != nil {
		cn.t.Fatalf("unsubscribe %s: %v", uri, err)
	}
}

// writeThroughVault changes a note as a tool would: one vault change,
// announced by the vault itself.
func (r *rig) writeThroughVault(rel, content string) {
	r.t.Helper()
	if _, err := r.v.WriteFile(context.Background(), rel, []byte(content)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) subscriptionsOf(session string) int {
	return r.resources().subs.count(subscriber{session: session})
}

// sessionFollowing returns the ID of the session subscribed to uri (the
// in-process transport does not tell its client the ID).
func (r *rig) sessionFollowing(uri string) string {
	r.t.Helper()
	su := r.resources().subs
	su.mu.Lock()
	defer su.mu.Unlock()
	for who, m := range su.subs {
		if _, ok := m[uri]; ok {
			return who.session
		}
	}
	r.t.Fatalf("nobody follows %s", uri)
	return ""
}

func (r *rig) resources() *resources {
	r.t.Helper()
	if r.res == nil {
		r.t.Fatal("rig built without resources")
	}
	return r.res
}

// Each change reaches exactly the sessions subscribed to the note, once
// per change, whoever made it; notifications come in the order the
// changes were made, so "nothing else arrived" is checked by what
// arrives next.
func TestSubscriptions(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n", "b.md": "b\n", "dir/c.md": "c\n", "Ünï/d e.md": "d\n"})
	one := r.connect("2025-11-25")
	two := r.connect("2025-06-18")
	one.subscribe("vault:///a.md")
	one.subscribe("vault:///dir/c.md")
	one.subscribe("vault:///%C3%9Cn%C3%AF/d%20e.md")
	one.subscribe("vault:///not-yet.md")
	one.subscribe("test://watched-resource") // acknowledged, never updated
	two.subscribe("vault:///b.md")

	// Our own write of a subscribed note.
	r.writeThroughVault("a.md", "a2\n")
	one.expect("notifications/resources/updated vault:///a.md")

	// An outside edit, as the watcher reports it.
	r.write("b.md", "b2\n")
	r.publish("b.md")
	two.expect("notifications/resources/updated vault:///b.md")

	// A folder replaced (as a pull or a move reports it): its notes
	// changed too.
	r.write("dir/c.md", "c2\n")
	r.publish("dir")
	one.expect("notifications/resources/updated vault:///dir/c.md")

	// A note in another Unicode form and with a space in its name.
	r.write("Ünï/d e.md", "d2\n")
	r.publish("Ünï/d e.md")
	one.expect("notifications/resources/updated vault:///%C3%9Cn%C3%AF/d%20e.md")

	// A note that did not exist when subscribed: its creation is an update
	// (and, the list having changed, a list_changed for everyone).
	r.writeThroughVault("not-yet.md", "now\n")
	one.expect("notifications/resources/updated vault:///not-yet.md", "notifications/resources/list_changed")
	two.expect("notifications/resources/list_changed")

	// The same change announced again (our write, then the watcher that
	// saw it on disk) is sent once; the next real change is sent.
	r.publish("not-yet.md", "a.md")
	r.writeThroughVault("dir/c.md", "c2b\n")
	one.expect("notifications/resources/updated vault:///dir/c.md")

	// Unsubscribed: a later change of a.md is not sent, b.md's still is.
	one.unsubscribe("vault:///a.md")
	one.unsubscribe("vault:///never-subscribed.md") // a no-op, not an error
	two.subscribe("vault:///a.md")
	r.writeThroughVault("a.md", "a3\n")
	two.expect("notifications/resources/updated vault:///a.md")
	r.writeThroughVault("dir/c.md", "c3\n")
	one.expect("notifications/resources/updated vault:///dir/c.md")

	id := r.sessionFollowing("vault:///dir/c.md")
	if n := r.subscriptionsOf(id); n != 4 {
		t.Errorf("session one follows %d resources, want 4", n)
	}
	// A session that ends takes its subscriptions with it.
	one.close()
	testutil.WaitFor(t, "the closed session's subscriptions dropped", func() bool { return r.subscriptionsOf(id) == 0 })
	r.writeThroughVault("b.md", "b3\n")
	two.expect("notifications/resources/updated vault:///b.md")
}

// list_changed goes out when files are added, removed or moved, not when
// one only changes.
func TestListChanged(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n", "folder/x.md": "x\n", "folder/y.md": "y\n"})
	cn := r.connect("2025-11-25")
	cn.subscribe("vault:///a.md") // a marker: its updates separate the steps
	markers := 0
	marker := func() {
		t.Helper()
		markers++ // a write that changes nothing is not a change
		r.writeThroughVault("a.md", fmt.Sprint("marker ", markers))
		cn.expect("notifications/resources/updated vault:///a.md")
	}
	steps := []struct {
		name    string
		change  func()
		changed bool
	}{
		{"edit", func() { r.write("folder/x.md", "x2\n"); r.publish("folder/x.md") }, false},
		{"add", func() { r.writeThroughVault("new.md", "n\n") }, true},
		{"delete", func() {
			if _, err := r.v.DeleteFile(context.Background(), "new.md"); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"rename", func() {
			if _, err := r.v.RenameFile(context.Background(), "folder/y.md", "folder/z.md", nil); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"folder removed on disk", func() { r.remove("folder"); r.publish("folder") }, true},
		{"folder added on disk", func() { r.write("other/q.md", "q\n"); r.publish("other") }, true},
		{"dot-file", func() { r.write(".obsidian/workspace.json", "{}"); r.publish(".obsidian/workspace.json") }, false},
		{"empty folder", func() { r.write("empty/.keep", ""); r.publish("empty") }, false},
		{"nothing changed", func() { r.publish("missing.md") }, false},
	}
	for _, s := range steps {
		s.change()
		if s.changed {
			cn.expect("notifications/resources/list_changed")
		}
		marker() // fails if an unexpected list_changed came first
	}
}

// Protocol 2026-07-28 subscribes through a subscriptions/listen stream;
// its resources are followed while the stream is open.
func TestListenStream(t *testing.T) {
	r := newRig(t, map[string]string{"a.md": "a\n"})
	cn := r.connect("")
	if cn.c.ProtocolVersion() == "2025-11-25" {
		t.Skip("mcp-go's client negotiated the legacy protocol")
	}
	filter := mcp.SubscriptionFilter{ResourceSubscriptions: []string{"vault:///a.md"}}
	stop, err := cn.c.ListenAsync(context.Background(), filter, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	res := r.resources()
	streams := func() int {
		res.subs.mu.Lock()
		defer res.subs.mu.Unlock()
		return len(res.subs.streams)
	}
	testutil.WaitFor(t, "the listen stream registered", func() bool { return streams() == 1 })
	r.writeThroughVault("a.md", "a2\n")
	cn.expect("notifications/resources/updated vault:///a.md")
	stop()
	testutil.WaitFor(t, "the listen stream forgotten", func() bool { return streams() == 0 && len(res.subs.subs) == 0 })
}

func TestSubscriptionLimit(t *testing.T) {
	r := newRig(t, nil)
	su := r.resources().subs
	who := subscriber{session: "s"}
	for i := range MaxSubscriptions + 5 {
		su.add(who, fmt.Sprintf("vault:///n%d.md", i))
	}
	if n := su.count(who); n != MaxSubscriptions {
		t.Errorf("%d subscriptions kept, want %d", n, MaxSubscriptions)
	}
	su.add(who, "vault:///n0.md") // already there: still fine
	su.remove(who, "vault:///n0.md")
	su.add(who, "vault:///another.md")
	if n := su.count(who); n != MaxSubscriptions {
		t.Errorf("%d after swapping one", n)
	}
}

func TestChangedUnder(t *testing.T) {
	touched := map[string]bool{"a": true, "b/c.md": true}
	for rel, want := range map[string]bool{"a": true, "a/x.md": true, "a/x/y.md": true, "ab.md": false, "b/c.md": true, "b/d.md": false, "b": false} {
		if got := changedUnder(rel, touched); got != want {
			t.Errorf("changedUnder(%q) = %v", rel, got)
		}
	}
	if !changedUnder("x.md", map[string]bool{"": true}) {
		t.Error("the whole vault did not count")
	}
}

// TestSubscriptionsUnderScope subscribes, both ways, to a note the
// session's scope hides and to one it shows: only the visible one is
// followed, so no update ever tells of a hidden note.
func TestSubscriptionsUnderScope(t *testing.T) {
	r := newRig(t, map[string]string{"Journal/a.md": "a\n", "Private/b.md": "b\n"})
	scoped := access.With(context.Background(), access.MustNew("test", access.Rules{Deny: []string{"Private"}}))
	visible, hidden := NoteURI("Journal/a.md"), NoteURI("Private/b.md")
	followed := func() map[string]bool {
		su := r.resources().subs
		su.mu.Lock()
		defer su.mu.Unlock()
		out := map[string]bool{}
		for _, m := range su.subs {
			for uri := range m {
				out[uri] = true
			}
		}
		return out
	}

	// resources/subscribe
	cn := r.connect("2025-11-25")
	for _, uri := range []string{hidden, visible} {
		var req mcp.SubscribeRequest
		req.Params.URI = uri
		//lint:ignore SA1019 resources/subscribe is tested on purpose
		if err := cn.c.Subscribe(scoped, req); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	if got := followed(); !got[visible] || got[hidden] {
		t.Errorf("resources/subscribe: followed %v, want only %s", got, visible)
	}
	r.writeThroughVault("Private/b.md", "b2\n")
	r.writeThroughVault("Journal/a.md", "a2\n")
	cn.expect("notifications/resources/updated " + visible) // and nothing about b before it
	cn.unsubscribe(visible)

	// subscriptions/listen
	cn = r.connect("")
	if cn.c.ProtocolVersion() == "2025-11-25" {
		t.Skip("mcp-go's client negotiated the legacy protocol")
	}
	filter := mcp.SubscriptionFilter{ResourceSubscriptions: []string{hidden, visible}}
	stop, err := cn.c.ListenAsync(scoped, filter, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	testutil.WaitFor(t, "the listen stream registered", func() bool { return followed()[visible] })
	if followed()[hidden] {
		t.Errorf("subscriptions/listen: the stream follows the hidden note")
	}
	r.writeThroughVault("Private/b.md", "b3\n")
	r.writeThroughVault("Journal/a.md", "a3\n")
	cn.expect("notifications/resources/updated " + visible)
}
