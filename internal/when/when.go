// Package when reads the points in time that tool arguments name: the
// modified_after/modified_before of find_files and query_notes, the since
// of the history tools, and the dates a version spec may be.
//
// Every tool reads a time through Parse so that an agent can write the
// same forms everywhere (docs/dates.md lists them for clients):
//
//   - an ISO date, "2024-05-01": the first moment of that day;
//   - a date-time, "2024-05-01T14:30", "2024-05-01 14:30:15", with an
//     optional zone ("Z", "+02:00"), which RFC 3339 is one case of;
//   - a day word: "today", "yesterday", "tomorrow" (the day's first moment),
//     optionally with a time of day ("yesterday 14:30");
//   - "now";
//   - a span back from now: "90m", "36h", "7d", "2w", "3mo", "1y", or in
//     words, "2 weeks ago", "3 days", "an hour ago", "last week".
//
// Times without a zone, days and day words are in the time zone of the
// now the caller gives (the server's). Spans in minutes, hours, days and
// weeks are exact durations, as git's "7.days.ago" is; months and years
// step the calendar.
package when

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Help lists the accepted forms in a few words, for error messages and
// tool descriptions.
const Help = "an ISO date (2024-05-01, its first moment), a date-time (2024-05-01T14:30, optionally with Z or +02:00), today, yesterday (or \"yesterday 14:30\"), or a span back from now (90m, 36h, 7d, 2w, \"2 weeks ago\")"

// Error is what Parse returns for text it cannot read: a message for
// the client that names the text and the forms it could have been.
type Error struct{ Msg string }

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

func fail(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// maxSpan bounds the number in a span so that the duration cannot
// overflow (a million weeks is about 19,000 years).
const maxSpan = 1_000_000

// Parse reads s as a point in time relative to now (see the package doc).
// An empty s is an error: callers that treat "" as "no filter" check it
// first.
func Parse(s string, now time.Time) (time.Time, error) {
	t, _, err := ParseDay(s, now)
	return t, err
}

// ParseDay is Parse that also reports whether s named a whole day (a
// date or a day word), for callers for whom "as of a day" means before
// it starts.
func ParseDay(s string, now time.Time) (t time.Time, day bool, err error) {
	v := strings.TrimSpace(s)
	if v == "" {
		return time.Time{}, false, fail("the time is empty: give %s", Help)
	}
	loc := now.Location()
	if looksLikeDate(v) {
		return parseISO(s, v, loc)
	}
	lower := strings.ToLower(v)
	start := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	if lower == "now" {
		return now, false, nil
	}
	word, clock, timed := strings.Cut(lower, " ")
	if offset, ok := dayWords[word]; ok {
		day := start.AddDate(0, 0, offset)
		if !timed {
			return day, true, nil
		}
		// "yesterday 14:30": that time of that day.
		for _, layout := range []string{"15:04", "15:04:05"} {
			if c, err := time.Parse(layout, strings.TrimSpace(clock)); err == nil {
				return time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), 0, loc), false, nil
			}
		}
		return time.Time{}, false, fail("%q: after %s give a time of day as HH:MM, e.g. %s 14:30", s, word, word)
	}
	if t, ok := parseSpan(lower, now); ok {
		return t, false, nil
	}
	return time.Time{}, false, fail("%q is not a time this server reads: give %s", s, Help)
}

// dayWords are the days named by a word, as days from today.
var dayWords = map[string]int{"today": 0, "yesterday": -1, "tomorrow": 1}

// looksLikeDate is true when v starts as an ISO date does (YYYY-MM-DD),
// so that a malformed date gets an error about dates.
func looksLikeDate(v string) bool {
	if len(v) < 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// Layouts with a zone, then without one (read in the caller's zone).
var (
	zonedLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04Z07:00", "2006-01-02 15:04:05 -0700"}
	localLayouts = []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04"}
)

func parseISO(s, v string, loc *time.Location) (time.Time, bool, error) {
	if len(v) == 10 {
		d, err := time.ParseInLocation(time.DateOnly, v, loc)
		if err != nil {
			return time.Time{}, false, fail("%q is not a valid date (want YYYY-MM-DD, e.g. 2024-05-01)", s)
		}
		return d, true, nil
	}
	for _, layout := range zonedLayouts {
		if t, err := time.Parse(layout, v); err == nil {
			return t, false, nil
		}
	}
	for _, layout := range localLayouts {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, false, nil
		}
	}
	return time.Time{}, false, fail("%q is not a date-time this server reads: use 2024-05-01, 2024-05-01T14:30[:05] or with a zone, e.g. 2024-05-01T14:30:00+02:00", s)
}

// units maps the unit words of a span to a duration, or to a calendar
// step for months and years (dur 0).
var units = map[string]struct {
	dur         time.Duration
	months, yrs int
}{
	"m": {dur: time.Minute}, "min": {dur: time.Minute}, "mins": {dur: time.Minute}, "minute": {dur: time.Minute}, "minutes": {dur: time.Minute},
	"h": {dur: time.Hour}, "hr": {dur: time.Hour}, "hrs": {dur: time.Hour}, "hour": {dur: time.Hour}, "hours": {dur: time.Hour},
	"d": {dur: 24 * time.Hour}, "day": {dur: 24 * time.Hour}, "days": {dur: 24 * time.Hour},
	"w": {dur: 7 * 24 * time.Hour}, "wk": {dur: 7 * 24 * time.Hour}, "wks": {dur: 7 * 24 * time.Hour}, "week": {dur: 7 * 24 * time.Hour}, "weeks": {dur: 7 * 24 * time.Hour},
	"mo": {months: 1}, "month": {months: 1}, "months": {months: 1},
	"y": {yrs: 1}, "yr": {yrs: 1}, "yrs": {yrs: 1}, "year": {yrs: 1}, "years": {yrs: 1},
}

// parseSpan reads "7d", "7 d", "7 days", "7 days ago", "a week ago",
// "last week" (s is lower case and trimmed).
func parseSpan(s string, now time.Time) (time.Time, bool) {
	s = strings.TrimSpace(strings.TrimSuffix(s, " ago"))
	var num, unit string
	if rest, ok := strings.CutPrefix(s, "last "); ok {
		num, unit = "1", strings.TrimSpace(rest)
	} else {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		num, unit = s[:i], strings.TrimSpace(s[i:])
		if i == 0 { // "a week", "an hour"
			word, rest, ok := strings.Cut(s, " ")
			if !ok || (word != "a" && word != "an") {
				return time.Time{}, false
			}
			num, unit = "1", strings.TrimSpace(rest)
		}
	}
	u, ok := units[unit]
	if !ok {
		return time.Time{}, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > maxSpan {
		return time.Time{}, false
	}
	t := now.AddDate(-n*u.yrs, -n*u.months, 0)
	if u.dur > 0 {
		t = now.Add(-time.Duration(n) * u.dur)
	}
	// Before year 1 a time has no ISO form to show it in.
	return t, t.Year() >= 1
}
