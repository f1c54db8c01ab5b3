package search

import "bytes"

// finder looks for one literal the way ripgrep does: it scans for the
// literal's rarest byte with IndexByte (vectorised, many GB/s while
// candidates are rare) and checks the whole literal only there. Searching
// for the first byte instead, as bytes.Index does, crawls when that byte
// is common: "note" in folded text stops at every 'n'. If the text proves
// the chosen byte common after all, the rest goes to bytes.Index.
type finder struct {
	needle []byte
	rare   byte // needle[off], the byte scanned for
	off    int
}

func newFinder(needle []byte) finder {
	f := finder{needle: needle}
	for i, c := range needle {
		if byteRank[c] < byteRank[f.rare] || i == 0 {
			f.rare, f.off = c, i
		}
	}
	return f
}

// index returns the first position of the literal in s, or -1.
func (f finder) index(s []byte) int {
	n := len(f.needle)
	switch {
	case n == 0:
		return 0
	case n == 1:
		return bytes.IndexByte(s, f.rare)
	case len(s) < n:
		return -1
	}
	last := len(s) - n + f.off // the rare byte's last possible position
	fails := 0
	for i := f.off; i <= last; {
		j := bytes.IndexByte(s[i:last+1], f.rare)
		if j < 0 {
			return -1
		}
		start := i + j - f.off
		if bytes.Equal(s[start:start+n], f.needle) {
			return start
		}
		i += j + 1
		// Too many false candidates for the ground covered: the byte is
		// not rare in this text.
		if fails++; fails > 8+i/32 {
			k := bytes.Index(s[start+1:], f.needle)
			if k < 0 {
				return -1
			}
			return start + 1 + k
		}
	}
	return -1
}

// byteRank estimates how common each byte is in notes (higher is more
// common): English prose, Markdown punctuation and UTF-8 text. Only the
// order matters.
var byteRank = func() *[256]uint8 {
	var r [256]uint8
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80:
			r[c] = 90 // UTF-8 in non-English notes
		case c >= 'A' && c <= 'Z':
			r[c] = 60
		case c >= '0' && c <= '9':
			r[c] = 55
		default:
			r[c] = 20
		}
	}
	// The most common bytes, most common first.
	const common = " etaoinsrhldcumfpgwybv\nk.,-#[]|*:/()x'\"jqz_"
	for i := 0; i < len(common); i++ {
		r[common[i]] = uint8(250 - 4*i)
	}
	for _, c := range []byte("TSAIMCNPBDRHLEFGW") {
		r[c] = 70
	}
	r['0'], r['1'], r['2'] = 65, 64, 63
	return &r
}()
