package index

import (
	"context"
	"slices"
	"sort"
	"testing"
)

func TestNoteMeta(t *testing.T) {
	ctx := context.Background()
	v, ix := newVault(t, map[string]string{
		"a.md": "---\nstatus: done\nprio: 2\nratio: 0.5\nok: true\ndue: 2026-01-05\nat: 2026-01-05T10:30:00Z\nowners: [ann, 3, [x]]\nempty:\nobj: {k: v}\n---\n#Tag/Sub [[b]] [[missing]]",
		"b.md": "no frontmatter",
	})
	m, ok, err := ix.Note(ctx, "a.md")
	if err != nil || !ok {
		t.Fatalf("Note: %v %v", ok, err)
	}
	props := map[string]Property{}
	for _, p := range m.Properties {
		props[p.Key] = p
	}
	want := map[string]Property{
		"status": {Key: "status", Values: []string{"done"}},
		"prio":   {Key: "prio", Values: []string{"2"}},
		"ratio":  {Key: "ratio", Values: []string{"0.5"}},
		"ok":     {Key: "ok", Values: []string{"true"}},
		"due":    {Key: "due", Values: []string{"2026-01-05"}},
		"at":     {Key: "at", Values: []string{"2026-01-05T10:30:00Z"}},
		"owners": {Key: "owners", Values: []string{"ann", "3"}, List: true},
		"empty":  {Key: "empty"},
		"obj":    {Key: "obj"},
	}
	if len(props) != len(want) {
		t.Errorf("properties %+v", m.Properties)
	}
	for k, w := range want {
		if p := props[k]; p.Key != w.Key || p.List != w.List || !slices.Equal(p.Values, w.Values) {
			t.Errorf("%s: %+v, want %+v", k, p, w)
		}
	}
	var order []string
	for _, p := range m.Properties {
		order = append(order, p.Key)
	}
	if want := []string{"status", "prio", "ratio", "ok", "due", "at", "owners", "empty", "obj"}; !slices.Equal(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
	kinds := map[string][]ValueKind{"status": {KindText}, "prio": {KindNumber}, "ratio": {KindNumber}, "ok": {KindBool},
		"due": {KindText}, "owners": {KindText, KindNumber}, "empty": nil}
	for k, want := range kinds {
		if !slices.Equal(props[k].Kinds, want) {
			t.Errorf("%s: kinds %v, want %v", k, props[k].Kinds, want)
		}
	}
	if !props["owners"].Complex || !props["obj"].Complex || props["status"].Complex || props["empty"].Complex {
		t.Errorf("Complex flags wrong: %+v", m.Properties)
	}
	// The properties' values share one array: an append to one property's
	// values must leave every other's as it was.
	for _, p := range m.Properties {
		_ = append(p.Values, "appended")
		_ = append(p.Kinds, KindBool)
	}
	for k, w := range want {
		if p := props[k]; !slices.Equal(p.Values, w.Values) || (p.Values == nil) != (w.Values == nil) {
			t.Errorf("%s after appends: %+v, want %+v", k, p, w)
		}
	}
	for k, want := range kinds {
		if !slices.Equal(props[k].Kinds, want) {
			t.Errorf("%s after appends: kinds %v, want %v", k, props[k].Kinds, want)
		}
	}
	if !slices.Equal(m.TagKeys, []string{"tag/sub"}) || !slices.Equal(m.Links, []string{"b.md", ""}) || m.Size == 0 || m.ModTime.IsZero() {
		t.Errorf("meta %+v", m)
	}
	if TagKey("#Tag/SUB") != "tag/sub" {
		t.Errorf("TagKey = %q", TagKey("#Tag/SUB"))
	}

	var paths []string
	if err := ix.EachNote(ctx, func(m *NoteMeta) bool { paths = append(paths, m.Path); return true }); err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	if !slices.Equal(paths, []string{"a.md", "b.md"}) {
		t.Errorf("EachNote visited %q", paths)
	}

	// A write gives the note a new Seq and the index a new generation;
	// the other note keeps its Seq.
	gen := ix.Generation()
	before, _, _ := ix.Note(ctx, "b.md")
	if _, err := v.WriteFile(ctx, "a.md", []byte("changed")); err != nil {
		t.Fatal(err)
	}
	after, _, _ := ix.Note(ctx, "a.md")
	same, _, _ := ix.Note(ctx, "b.md")
	if after.Seq == m.Seq || string(after.Content) != "changed" || len(after.Properties) != 0 {
		t.Errorf("after write: %+v (before seq %d)", after, m.Seq)
	}
	if same.Seq != before.Seq {
		t.Errorf("untouched note's Seq changed")
	}
	if ix.Generation() == gen {
		t.Errorf("generation did not change")
	}
	if _, ok, _ := ix.Note(ctx, "nope.md"); ok {
		t.Errorf("Note of a missing file")
	}
}
