package mcpserver

import (
	"fmt"
	"testing"
)

// BenchmarkChangeFeed is what the change feed adds to every write on a
// 10,000-note vault with a session subscribed to a note: the index
// refresh, the list-change check before and after, the subscription
// match and the CLAUDE.md cache. "edit" is a note that exists, "create" a
// new one (the list-change check then looks below the path too).
func BenchmarkChangeFeed(b *testing.B) {
	files := map[string]string{}
	for i := range 10_000 {
		files[fmt.Sprintf("topic-%02d/note-%05d.md", i%50, i)] = fmt.Sprintf("# Note %d\n[[note-%05d]] #tag%d\n", i, (i+1)%10_000, i%20)
	}
	r := newRig(b, files)
	cn := r.connect("2025-11-25")
	cn.subscribe("vault:///topic-01/note-00001.md")
	go func() {
		for range cn.notes {
		}
	}()
	b.Run("edit", func(b *testing.B) {
		for b.Loop() {
			r.publish("topic-07/note-00007.md")
		}
	})
	b.Run("create", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			rel := fmt.Sprintf("topic-07/new-%d.md", i)
			r.write(rel, "new\n")
			b.StartTimer()
			r.publish(rel)
		}
	})
	b.Run("index refresh alone (edit)", func(b *testing.B) {
		for b.Loop() {
			r.ix.Refresh([]string{"topic-07/note-00007.md"})
		}
	})
}
