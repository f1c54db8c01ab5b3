package history

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"vaultmcp/internal/when"
)

func TestFindPrefixAmbiguous(t *testing.T) {
	t.Parallel()
	l := newLineage(plumbing.ZeroHash)
	for _, h := range []string{"abcd1111", "abcd2222", "ffff0000"} {
		m := &commitMeta{hash: plumbing.NewHash(h + strings.Repeat("0", 32))}
		l.pos[m.hash] = int32(len(l.order))
		l.order = append(l.order, m)
	}
	if _, err := findPrefix(l, "abcd"); err == nil || !strings.Contains(err.Error(), "ambiguous") ||
		!strings.Contains(err.Error(), "abcd111") || !strings.Contains(err.Error(), "abcd222") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if q, err := findPrefix(l, "abcd2"); err != nil || q != 1 {
		t.Errorf("abcd2: %d %v", q, err)
	}
	if _, err := findPrefix(l, "ffff0000"+strings.Repeat("1", 32)); !errors.Is(err, ErrNoVersion) {
		t.Errorf("full hash not in history: %v", err)
	}
}

// A date alone means the start of that day for versions as for since
// filters: "as of" a date leaves out exactly the commits since keeps.
func TestDateMeansTheStartOfTheDay(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("", 3600)
	day := time.Date(2024, 6, 1, 0, 0, 0, 0, loc)
	asOf, ok, err := asOfTime("2024-06-01", time.Now().In(loc))
	since, err2 := when.Parse("2024-06-01", time.Now().In(loc))
	if !ok || err != nil || err2 != nil || !since.Equal(day) || !asOf.Before(day) || !asOf.Add(time.Nanosecond).Equal(day) {
		t.Fatalf("as of %v (%v %v), since %v (%v)", asOf, ok, err, since, err2)
	}
	for _, c := range []struct {
		commit time.Time
		inAsOf bool
	}{
		{day.Add(-time.Second), true},
		{day, false},
		{day.Add(12 * time.Hour), false},
		{day.Add(24*time.Hour - time.Second), false},
	} {
		if got := !c.commit.After(asOf); got != c.inAsOf || got == !c.commit.Before(since) {
			t.Errorf("a commit at %v: as of the date %v, since the date %v", c.commit, got, !c.commit.Before(since))
		}
	}
}
