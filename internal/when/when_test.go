package when

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("X", 2*3600)
	now := time.Date(2024, 6, 15, 10, 30, 0, 0, loc)
	day := time.Date(2024, 6, 15, 0, 0, 0, 0, loc)
	cases := []struct {
		in    string
		want  time.Time
		isDay bool
	}{
		{"2024-06-01", time.Date(2024, 6, 1, 0, 0, 0, 0, loc), true},
		{" 2024-06-01 ", time.Date(2024, 6, 1, 0, 0, 0, 0, loc), true},
		{"2024-06-01T08:30", time.Date(2024, 6, 1, 8, 30, 0, 0, loc), false},
		{"2024-06-01T08:30:15", time.Date(2024, 6, 1, 8, 30, 15, 0, loc), false},
		{"2024-06-01T08:30:15.5", time.Date(2024, 6, 1, 8, 30, 15, 5e8, loc), false},
		{"2024-06-01 08:30:15", time.Date(2024, 6, 1, 8, 30, 15, 0, loc), false},
		{"2024-06-01 08:30", time.Date(2024, 6, 1, 8, 30, 0, 0, loc), false},
		{"2024-06-01T08:30:00Z", time.Date(2024, 6, 1, 8, 30, 0, 0, time.UTC), false},
		{"2024-06-01T08:30Z", time.Date(2024, 6, 1, 8, 30, 0, 0, time.UTC), false},
		{"2024-06-01T08:30:00+02:00", time.Date(2024, 6, 1, 6, 30, 0, 0, time.UTC), false},
		{"2024-06-01T08:30:00.25-05:00", time.Date(2024, 6, 1, 13, 30, 0, 25e7, time.UTC), false},
		{"2024-06-01 08:30:00 +0100", time.Date(2024, 6, 1, 7, 30, 0, 0, time.UTC), false},
		{"now", now, false},
		{"today", day, true},
		{"Today", day, true},
		{"yesterday", day.AddDate(0, 0, -1), true},
		{"tomorrow", day.AddDate(0, 0, 1), true},
		{"yesterday 14:30", time.Date(2024, 6, 14, 14, 30, 0, 0, loc), false},
		{"Today  09:05:07", time.Date(2024, 6, 15, 9, 5, 7, 0, loc), false},
		{"90m", now.Add(-90 * time.Minute), false},
		{"36h", now.Add(-36 * time.Hour), false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"0d", now, false},
		{"2w", now.Add(-14 * 24 * time.Hour), false},
		{"3mo", now.AddDate(0, -3, 0), false},
		{"1y", now.AddDate(-1, 0, 0), false},
		{"7 days", now.Add(-7 * 24 * time.Hour), false},
		{"7 days ago", now.Add(-7 * 24 * time.Hour), false},
		{"2 weeks ago", now.Add(-14 * 24 * time.Hour), false},
		{"2 Weeks Ago", now.Add(-14 * 24 * time.Hour), false},
		{"1 hour ago", now.Add(-time.Hour), false},
		{"an hour ago", now.Add(-time.Hour), false},
		{"a week ago", now.Add(-7 * 24 * time.Hour), false},
		{"last week", now.Add(-7 * 24 * time.Hour), false},
		{"last month", now.AddDate(0, -1, 0), false},
		{"3 months ago", now.AddDate(0, -3, 0), false},
		{"2 years ago", now.AddDate(-2, 0, 0), false},
		{"15 minutes ago", now.Add(-15 * time.Minute), false},
	}
	for _, c := range cases {
		got, isDay, err := ParseDay(c.in, now)
		if err != nil || !got.Equal(c.want) || isDay != c.isDay {
			t.Errorf("%q: %v day=%v %v, want %v day=%v", c.in, got, isDay, err, c.want, c.isDay)
		}
	}
}

func TestParseRejects(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 6, 15, 10, 30, 0, 0, time.UTC)
	cases := []struct{ in, mentions string }{
		{"", "empty"},
		{"   ", "empty"},
		{"2024-02-30", "not a valid date"},
		{"2024-13-01", "not a valid date"},
		{"2024-06-01T25:00", "date-time"},
		{"2024-06-01garbage", "date-time"},
		{"7", "2 weeks ago"},
		{"d", "2 weeks ago"},
		{"-3d", "2 weeks ago"},
		{"3 fortnights ago", "2 weeks ago"},
		{"2000000d", "2 weeks ago"},
		{"1000000y", "2 weeks ago"},
		{"01/06/2024", "2 weeks ago"},
		{"next week", "2 weeks ago"},
		{"yesterday noon", "HH:MM"},
		{"today 25:00", "HH:MM"},
		{"a", "2 weeks ago"},
		{"ago", "2 weeks ago"},
	}
	for _, c := range cases {
		_, err := Parse(c.in, now)
		if err == nil || !errors.As(err, new(*Error)) || !strings.Contains(err.Error(), c.mentions) {
			t.Errorf("%q: error %v, want one mentioning %q", c.in, err, c.mentions)
		}
	}
}

// FuzzParse checks that whatever Parse accepts is a real time that
// Parse reads back the same from its RFC 3339 form, and that every
// rejection is an *Error.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"2024-05-01", "2024-05-01T14:30", "2024-05-01T14:30:00+02:00", "2024-05-01 14:30:00", "7d", "36h", "0m", "99999999w", "2024-5-1", "yesterday", "2 weeks ago", "an hour ago", "last month", "3mo", "yesterday 14:30"} {
		f.Add(s)
	}
	now := time.Date(2024, 6, 1, 12, 0, 0, 0, time.FixedZone("X", -7*3600))
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s, now)
		if err != nil {
			if !errors.As(err, new(*Error)) {
				t.Fatalf("%q: error %v is not an *Error", s, err)
			}
			return
		}
		if got.IsZero() {
			t.Fatalf("%q: no error and no time", s)
		}
		again, err := Parse(got.Format(time.RFC3339Nano), now)
		if err != nil || !again.Equal(got) {
			t.Fatalf("%q -> %v does not read back: %v %v", s, got, again, err)
		}
	})
}
