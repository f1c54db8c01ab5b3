package index

import (
	"bytes"
	"testing"
)

// TestPrefaultKeepsContents checks that mapping a buffer's pages ahead
// neither changes what it holds nor reaches outside it, whatever its
// alignment and length (a page's worth or less, unaligned ends).
func TestPrefaultKeepsContents(t *testing.T) {
	backing := make([]byte, 3*slabChunk)
	for i := range backing {
		backing[i] = byte(i*7 + 3)
	}
	want := bytes.Clone(backing)
	tests := []struct {
		name     string
		from, to int
	}{
		{"empty", 0, 0},
		{"one byte", 5, 6},
		{"less than a page, unaligned", 100, 3000},
		{"a page and a bit, unaligned", 4000, 8300},
		{"a whole chunk", 0, slabChunk},
		{"a chunk, unaligned both ends", 1, slabChunk + 1},
		{"all of it", 0, len(backing)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefault(backing[tt.from:tt.to])
			if !bytes.Equal(backing, want) {
				t.Fatal("prefault changed the buffer's contents")
			}
		})
	}
}

// TestSlabAlloc checks the slab's cuts: exact lengths and capacities (an
// append to one note's text never runs into the next), a new chunk when
// the current one is short, and large notes on their own.
func TestSlabAlloc(t *testing.T) {
	var s slab
	a := s.alloc(10)
	b := s.alloc(20)
	if len(a) != 10 || cap(a) != 10 || len(b) != 20 || cap(b) != 20 {
		t.Fatalf("cuts of %d/%d and %d/%d bytes, want 10/10 and 20/20", len(a), cap(a), len(b), cap(b))
	}
	copy(a, "0123456789")
	if a = append(a, 'x'); &a[0] == &b[0] || b[0] != 0 {
		t.Fatal("an append to one cut wrote into the next")
	}
	big := s.alloc(slabChunk/4 + 1)
	if len(big) != slabChunk/4+1 {
		t.Fatalf("large cut of %d bytes", len(big))
	}
	for range 10 {
		c := s.alloc(slabChunk / 4)
		if len(c) != slabChunk/4 || cap(c) != slabChunk/4 {
			t.Fatalf("cut of %d/%d bytes", len(c), cap(c))
		}
	}
	var none *slab
	if c := none.alloc(3); len(c) != 3 {
		t.Fatalf("nil slab cut %d bytes", len(c))
	}
}

// TestPrefaultAll checks prefaultAll over typed arrays, pointers
// included, up to their capacity, and on empty ones.
func TestPrefaultAll(t *testing.T) {
	shares := make([]share, 3, 20000)
	for i := range shares {
		shares[i] = share{key: "k" + string(rune('a'+i)), src: int32(i), link: int32(2 * i)}
	}
	prefaultAll(shares)
	for i, sh := range shares {
		if want := "k" + string(rune('a'+i)); sh.key != want || sh.src != int32(i) || sh.link != int32(2*i) {
			t.Fatalf("share %d is %+v after prefaultAll", i, sh)
		}
	}
	if rest := shares[3:cap(shares)]; rest[len(rest)-1] != (share{}) {
		t.Fatal("prefaultAll wrote into the spare capacity")
	}
	prefaultAll([]int32(nil))
	prefaultAll(make([]sourceCount, 0))
}
