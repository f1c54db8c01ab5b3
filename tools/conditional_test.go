package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"vaultmcp/vault"
)

// TestConditionalWrites: a read's version makes a write back conditional;
// a stale one is refused with the current version, the last change and a
// diff, and nothing is written or committed, for every writing tool.
func TestConditionalWrites(t *testing.T) {
	const first = "---\nstatus: draft\n---\n# Plan\n\n- one\n"
	g := newNotesVault(t, map[string]string{"plan.md": first})
	g.d.Git = g.repo
	h := g.serve()

	r := h.call("read_file", `{"path":"plan.md"}`)
	if r.version != vault.Version([]byte(first)) {
		t.Fatalf("read_file version %q, want the blob id %s", r.version, vault.Version([]byte(first)))
	}
	var props struct{ Version string }
	if err := json.Unmarshal([]byte(h.ok("get_properties", `{"path":"plan.md"}`)), &props); err != nil || props.Version != r.version {
		t.Fatalf("get_properties version %q (%v), want %s", props.Version, err, r.version)
	}
	stale := r.version
	// Someone else changes the note (and it is committed).
	h.ok("edit_file", `{"path":"plan.md","old_text":"- one","new_text":"- one\n- two"}`)
	now := vault.Version([]byte(g.read("plan.md")))

	for _, call := range []struct{ tool, args string }{
		{"write_file", `{"path":"plan.md","content":"mine\n"}`},
		{"write_file", `{"path":"plan.md","content":"mine\n","mode":"append"}`},
		{"edit_file", `{"path":"plan.md","old_text":"- one","new_text":"- uno"}`},
		{"patch_note", `{"path":"plan.md","target_type":"heading","target":"Plan","operation":"append","content":"x"}`},
		{"set_properties", `{"path":"plan.md","properties":{"status":"done"}}`},
		{"delete_file", `{"path":"plan.md"}`},
		{"rename_file", `{"old_path":"plan.md","new_path":"other.md"}`},
	} {
		before, text := g.commits(), g.read("plan.md")
		args := strings.TrimSuffix(call.args, "}") + fmt.Sprintf(`,"if_version":%q}`, stale)
		res := h.fails(call.tool, args, "changed since version "+stale, "now version "+now, "Nothing was written")
		b := res.errBody
		if b["current_version"] != now || b["your_version"] != stale {
			t.Errorf("%s: versions in %v", call.tool, b)
		}
		last, _ := b["last_change"].(map[string]any)
		if msg, _ := last["message"].(string); !strings.HasPrefix(msg, "MCP: edit plan.md") || last["commit"] == "" || last["author"] == "" {
			t.Errorf("%s: last_change %v", call.tool, b["last_change"])
		}
		if d, _ := b["diff"].(string); !strings.Contains(d, "\n+- two") {
			t.Errorf("%s: diff %q, want the added line", call.tool, d)
		}
		if g.commits() != before || g.read("plan.md") != text {
			t.Errorf("%s: a refused write changed the note or committed", call.tool)
		}
	}

	// The current version is accepted; "absent" refuses an existing note
	// and creates a missing one.
	// Its answer gives the version written, good for the next change.
	w := h.call("edit_file", fmt.Sprintf(`{"path":"plan.md","old_text":"- two","new_text":"- 2","if_version":%q}`, now))
	if w.isError || w.version != vault.Version([]byte(g.read("plan.md"))) {
		t.Fatalf("edit_file at the current version: %s, version %q", w.raw, w.version)
	}
	h.ok("patch_note", fmt.Sprintf(`{"path":"plan.md","target_type":"heading","target":"Plan","operation":"append","content":"- 3","if_version":%q}`, w.version))
	h.fails("write_file", `{"path":"plan.md","content":"x","if_version":"absent"}`, "exists now")
	h.ok("write_file", `{"path":"new.md","content":"x","if_version":"absent"}`)
	h.fails("write_file", `{"path":"new.md","content":"y","if_version":"abc"}`, "is not a version")

	// A version never committed has no diff to show.
	uncommitted := vault.Version([]byte("never committed\n"))
	res := h.fails("write_file", fmt.Sprintf(`{"path":"plan.md","content":"x","if_version":%q}`, uncommitted), "changed since")
	if _, ok := res.errBody["diff_unavailable"]; !ok {
		t.Errorf("no diff_unavailable for a version git never held: %v", res.errBody)
	}
}

// TestChangedSinceReadNotice: an unconditional write to a note changed
// since this session read it still applies, with a notice saying so; a
// write after one's own write has none.
func TestChangedSinceReadNotice(t *testing.T) {
	g := newNotesVault(t, map[string]string{"a.md": "one\n"})
	h := g.serve()
	h.ok("read_file", `{"path":"a.md"}`)
	g.write("a.md", "changed outside\n")
	r := h.call("write_file", `{"path":"a.md","content":"mine\n"}`)
	if r.isError || !strings.Contains(r.raw, "notice: a.md had changed since you last read it") {
		t.Errorf("write over an outside change: %v", r.raw)
	}
	if r := h.call("write_file", `{"path":"a.md","content":"mine again\n"}`); strings.Contains(r.raw, "notice:") {
		t.Errorf("a notice after the session's own write: %v", r.raw)
	}
}

// TestIdempotencyKeys: a writing call repeated with its key answers as
// the first did and applies nothing; the key with other arguments is
// refused.
func TestIdempotencyKeys(t *testing.T) {
	g := newNotesVault(t, map[string]string{"log.md": "start\n"})
	h := g.serve()
	before := g.commits()
	args := `{"path":"log.md","content":"- one","mode":"append","idempotency_key":"k-1"}`
	first := h.ok("write_file", args)
	again := h.call("write_file", args)
	if again.isError || again.text != first || !strings.Contains(again.raw, "nothing was applied again") {
		t.Errorf("retry answered %q (%s), want the first answer %q", again.text, again.raw, first)
	}
	if got := g.read("log.md"); got != "start\n- one" || g.commits() != before+1 {
		t.Errorf("after a retry: %q, %d commits", got, g.commits()-before)
	}
	h.fails("write_file", `{"path":"log.md","content":"- two","mode":"append","idempotency_key":"k-1"}`, "other arguments")
	// A refused call keeps nothing: the same key applies once it can.
	h.fails("edit_file", `{"path":"log.md","old_text":"nope","new_text":"x","idempotency_key":"k-2"}`)
	g.write("log.md", "start\nnope\n")
	h.ok("edit_file", `{"path":"log.md","old_text":"nope","new_text":"x","idempotency_key":"k-2"}`)
	if got := g.read("log.md"); got != "start\nx\n" {
		t.Errorf("after the key's successful retry: %q", got)
	}
}
