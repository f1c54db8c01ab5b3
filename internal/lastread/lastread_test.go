package lastread

import (
	"fmt"
	"testing"
)

func TestLog(t *testing.T) {
	l := &Log{Size: 2}
	l.Read("token:a", "x.md", "v1")
	l.Read("token:b", "x.md", "v2")
	if v, ok := l.Last("token:a", "x.md"); !ok || v != "v1" {
		t.Fatalf("a's read of x.md = %q %v, want v1", v, ok)
	}
	l.Read("token:a", "y.md", "v3") // evicts a's read of x.md, the oldest
	if _, ok := l.Last("token:a", "x.md"); ok {
		t.Error("the least recently read pair was kept past Size")
	}
	if _, ok := l.Last("token:b", "x.md"); !ok {
		t.Error("a more recent read was dropped")
	}
	l.Read("token:a", "x.md", "v4")
	if v, _ := l.Last("token:a", "x.md"); v != "v4" {
		t.Errorf("a re-read of x.md = %q, want v4", v)
	}
	var zero Log
	for i := range DefaultSize + 10 {
		zero.Read("c", fmt.Sprint(i), "v")
	}
	if n := zero.order.Len(); n != DefaultSize {
		t.Errorf("zero Log kept %d pairs, want %d", n, DefaultSize)
	}
	var none *Log
	none.Read("c", "p", "v")
	if _, ok := none.Last("c", "p"); ok {
		t.Error("a nil Log remembered a read")
	}
}
