package index

import (
	"iter"
	"slices"
)

// sourceSet counts the notes that link to one target (or into one link
// bucket): source path -> number of links. Most targets have a handful of
// sources, for which a short slice costs a fraction of a map; a popular
// target's sources move to a map once they outgrow the slice, so adding
// and removing stays cheap at any size. The nil *sourceSet is empty.
type sourceSet struct {
	few  []sourceCount // while the sources are few; nil once many is set
	many map[string]int32
}

type sourceCount struct {
	src string
	n   int32
}

// maxFewSources is the most sources kept in the slice: a linear search
// of a few dozen short strings is quicker than hashing one.
const maxFewSources = 32

// add counts one more link from src.
func (s *sourceSet) add(src string) {
	if s.many != nil {
		s.many[src]++
		return
	}
	for i := range s.few {
		if s.few[i].src == src {
			s.few[i].n++
			return
		}
	}
	if len(s.few) < maxFewSources {
		s.few = append(s.few, sourceCount{src: src, n: 1})
		return
	}
	s.many = make(map[string]int32, 2*maxFewSources)
	for _, c := range s.few {
		s.many[c.src] = c.n
	}
	s.few = nil
	s.many[src]++
}

// remove counts one link from src less, and reports whether s is now
// empty.
func (s *sourceSet) remove(src string) (empty bool) {
	if s.many != nil {
		if n := s.many[src] - 1; n > 0 {
			s.many[src] = n
		} else {
			delete(s.many, src)
		}
		return len(s.many) == 0
	}
	for i := range s.few {
		if s.few[i].src != src {
			continue
		}
		if s.few[i].n--; s.few[i].n <= 0 {
			s.few = slices.Delete(s.few, i, i+1)
		}
		break
	}
	return len(s.few) == 0
}

// compact drops the room append left at the end of the slice, which at
// build time is a quarter of what the slices hold.
func (s *sourceSet) compact() {
	if s != nil && cap(s.few) > len(s.few) {
		s.few = slices.Clone(s.few)
	}
}

// len returns the number of distinct sources.
func (s *sourceSet) len() int {
	if s == nil {
		return 0
	}
	if s.many != nil {
		return len(s.many)
	}
	return len(s.few)
}

// all yields each source with its link count, in no particular order.
// s must not change meanwhile.
func (s *sourceSet) all() iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		if s == nil {
			return
		}
		if s.many != nil {
			for src, n := range s.many {
				if !yield(src, int(n)) {
					return
				}
			}
			return
		}
		for _, c := range s.few {
			if !yield(c.src, int(c.n)) {
				return
			}
		}
	}
}

// bucket is the notes with links in one link bucket (see linkKey), and
// the bucket's key: the links of those notes share this one copy of it.
type bucket struct {
	key string
	sourceSet
}

// all is sourceSet.all, for a bucket that may be nil.
func (b *bucket) all() iter.Seq2[string, int] {
	if b == nil {
		return (*sourceSet)(nil).all()
	}
	return b.sourceSet.all()
}
