package bases

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// dateLayouts are the date forms date() and date-typed text accept, with
// whether they carry a time of day.
var dateLayouts = []struct {
	layout string
	timed  bool
}{
	{time.DateOnly, false},
	{"2006-01-02 15:04:05", true},
	{"2006-01-02T15:04:05", true},
	{"2006-01-02 15:04", true},
	{"2006-01-02T15:04", true},
	{"2006-01-02T15:04:05.000", true},
	{"2006-01-02 15:04:05.000", true},
}

// parseDate reads text as a date in loc: YYYY-MM-DD, optionally with a
// time (space or T, minutes or seconds, milliseconds), or RFC 3339 with a
// zone.
func parseDate(s string, loc *time.Location) (Value, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 10 || s[4] != '-' {
		return Value{}, false
	}
	for _, l := range dateLayouts {
		if len(s) != len(l.layout) {
			continue
		}
		if t, err := time.ParseInLocation(l.layout, s, loc); err == nil {
			return DateValue(t, l.timed), true
		}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return DateValue(t, true), true
		}
	}
	return Value{}, false
}

// durationUnits maps the unit spellings of the syntax to months or
// milliseconds.
var durationUnits = map[string]struct {
	months int32
	ms     float64
}{
	"y": {12, 0}, "year": {12, 0}, "years": {12, 0},
	"M": {1, 0}, "month": {1, 0}, "months": {1, 0},
	"w": {0, 7 * 86400000}, "week": {0, 7 * 86400000}, "weeks": {0, 7 * 86400000},
	"d": {0, 86400000}, "day": {0, 86400000}, "days": {0, 86400000},
	"h": {0, 3600000}, "hour": {0, 3600000}, "hours": {0, 3600000},
	"m": {0, 60000}, "minute": {0, 60000}, "minutes": {0, 60000},
	"s": {0, 1000}, "second": {0, 1000}, "seconds": {0, 1000},
	"ms": {0, 1}, "millisecond": {0, 1}, "milliseconds": {0, 1},
}

// parseDuration reads "1d", "2 weeks", "-3h", "1y 2M 4h" as a duration.
// maxDurationMonths and maxDurationMillis bound a duration: twice the
// span of JavaScript's dates (±8.64e15 ms, about 275,760 years each
// way), so that every move between two dates fits and a month count
// never overflows its int32.
const (
	maxDurationMonths = 2 * 275760 * 12
	maxDurationMillis = 2 * 8.64e15
)

func parseDuration(s string) (Value, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Value{}, false
	}
	var months int32
	var ms float64
	sign := 1.0
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = -1
		}
		s = strings.TrimSpace(s[1:])
	}
	for s != "" {
		i := 0
		for i < len(s) && (isDigit(s[i]) || s[i] == '.') {
			i++
		}
		if i == 0 {
			return Value{}, false
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return Value{}, false
		}
		s = strings.TrimLeft(s[i:], " ")
		j := 0
		for j < len(s) && isIdentByte(s[j]) {
			j++
		}
		u, ok := durationUnits[s[:j]]
		if !ok {
			// "Months" and "Days" are spelled with a capital now and then;
			// only "M" and "m" differ by case.
			u, ok = durationUnits[strings.ToLower(s[:j])]
			if !ok || j == 1 {
				return Value{}, false
			}
		}
		if u.months != 0 {
			if n != math.Trunc(n) || n*float64(u.months) > maxDurationMonths-float64(months) {
				return Value{}, false
			}
			months += int32(n) * u.months
		} else {
			ms += n * u.ms
		}
		if ms > maxDurationMillis {
			return Value{}, false
		}
		s = strings.TrimLeft(s[j:], " ,")
	}
	return DurationValue(int32(sign)*months, sign*ms), true
}

// addDuration moves a date by a duration, months by the calendar in loc.
func addDuration(d, dur Value, sign int, loc *time.Location) Value {
	t := d.Time().In(loc)
	if dur.months != 0 {
		y, m, day := t.Date()
		// Obsidian (moment) clamps to the month's last day: Jan 31 + 1M
		// is Feb 28, not Mar 3.
		target := time.Date(y, m+time.Month(sign*int(dur.months)), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
		last := time.Date(target.Year(), target.Month()+1, 0, 0, 0, 0, 0, loc).Day()
		t = time.Date(target.Year(), target.Month(), min(day, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
	}
	ms := float64(t.UnixMilli()) + float64(sign)*dur.num
	timed := d.timed || math.Mod(dur.num, 86400000) != 0
	return Value{kind: Date, num: ms, timed: timed}
}

// relativeTime words the distance from now to t as Moment.js's fromNow
// does ("3 days ago", "in an hour").
func relativeTime(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	secs := math.Round(d.Seconds())
	mins := math.Round(secs / 60)
	hours := math.Round(mins / 60)
	days := math.Round(hours / 24)
	var s string
	switch {
	case secs < 45:
		s = "a few seconds"
	case secs < 90:
		s = "a minute"
	case mins < 45:
		s = fmt.Sprintf("%d minutes", int(mins))
	case mins < 90:
		s = "an hour"
	case hours < 22:
		s = fmt.Sprintf("%d hours", int(hours))
	case hours < 36:
		s = "a day"
	case days < 26:
		s = fmt.Sprintf("%d days", int(days))
	case days < 45:
		s = "a month"
	case days < 320:
		s = fmt.Sprintf("%d months", int(math.Round(days/30.4375)))
	case days < 548:
		s = "a year"
	default:
		s = fmt.Sprintf("%d years", int(math.Round(days/365.25)))
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}
