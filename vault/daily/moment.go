package daily

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// momentTokens are the moment.js format tokens Format knows, longest
// first so "MMMM" is not read as "MM" twice.
var momentTokens = []string{
	"YYYYYY", "YYYY", "GGGG", "gggg", "MMMM", "DDDD", "dddd", "SSS",
	"YY", "GG", "gg", "MMM", "DDD", "ddd", "Mo", "MM", "Do", "DD", "do", "dd", "Wo", "WW", "wo", "ww", "Qo",
	"HH", "hh", "kk", "mm", "ss", "SS", "ZZ",
	"Y", "Q", "M", "D", "d", "E", "e", "W", "w", "H", "h", "k", "m", "s", "S", "A", "a", "Z", "X", "x",
}

// Format renders t with a moment.js format string, as Obsidian names
// daily notes ("YYYY-MM-DD", "dddd, MMMM Do YYYY", "YYYY/[W]ww"). Text in
// [brackets] is literal; characters that are not tokens stay as they
// are. Names are English, weeks of "w" are US weeks (starting Sunday, the
// week holding 1 January is week 1), those of "W" ISO weeks.
func Format(t time.Time, layout string) string {
	var b strings.Builder
	for i := 0; i < len(layout); {
		if layout[i] == '[' {
			if end := strings.IndexByte(layout[i+1:], ']'); end >= 0 {
				b.WriteString(layout[i+1 : i+1+end])
				i += end + 2
				continue
			}
		}
		tok := ""
		for _, cand := range momentTokens {
			if strings.HasPrefix(layout[i:], cand) {
				tok = cand
				break
			}
		}
		if tok == "" {
			b.WriteByte(layout[i])
			i++
			continue
		}
		b.WriteString(token(t, tok))
		i += len(tok)
	}
	return b.String()
}

func token(t time.Time, tok string) string {
	pad := func(n, width int) string { return fmt.Sprintf("%0*d", width, n) }
	switch tok {
	case "YYYYYY":
		return fmt.Sprintf("%+07d", t.Year())
	case "YYYY", "Y":
		return pad(t.Year(), 4)
	case "YY":
		return pad(t.Year()%100, 2)
	case "Q":
		return strconv.Itoa((int(t.Month())-1)/3 + 1)
	case "Qo":
		return ordinal((int(t.Month())-1)/3 + 1)
	case "M":
		return strconv.Itoa(int(t.Month()))
	case "Mo":
		return ordinal(int(t.Month()))
	case "MM":
		return pad(int(t.Month()), 2)
	case "MMM":
		return t.Month().String()[:3]
	case "MMMM":
		return t.Month().String()
	case "D":
		return strconv.Itoa(t.Day())
	case "Do":
		return ordinal(t.Day())
	case "DD":
		return pad(t.Day(), 2)
	case "DDD":
		return strconv.Itoa(t.YearDay())
	case "DDDD":
		return pad(t.YearDay(), 3)
	case "d", "e":
		return strconv.Itoa(int(t.Weekday()))
	case "do":
		return ordinal(int(t.Weekday()))
	case "dd":
		return t.Weekday().String()[:2]
	case "ddd":
		return t.Weekday().String()[:3]
	case "dddd":
		return t.Weekday().String()
	case "E":
		return strconv.Itoa((int(t.Weekday())+6)%7 + 1)
	case "W", "WW", "Wo", "GGGG", "GG":
		year, week := t.ISOWeek()
		return weekToken(tok, year, week)
	case "w", "ww", "wo", "gggg", "gg":
		year, week := usWeek(t)
		return weekToken(map[string]string{"w": "W", "ww": "WW", "wo": "Wo", "gggg": "GGGG", "gg": "GG"}[tok], year, week)
	case "H":
		return strconv.Itoa(t.Hour())
	case "HH":
		return pad(t.Hour(), 2)
	case "h", "hh":
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		if tok == "hh" {
			return pad(h, 2)
		}
		return strconv.Itoa(h)
	case "k", "kk":
		h := t.Hour()
		if h == 0 {
			h = 24
		}
		if tok == "kk" {
			return pad(h, 2)
		}
		return strconv.Itoa(h)
	case "m":
		return strconv.Itoa(t.Minute())
	case "mm":
		return pad(t.Minute(), 2)
	case "s":
		return strconv.Itoa(t.Second())
	case "ss":
		return pad(t.Second(), 2)
	case "S":
		return strconv.Itoa(t.Nanosecond() / 1e8)
	case "SS":
		return pad(t.Nanosecond()/1e7, 2)
	case "SSS":
		return pad(t.Nanosecond()/1e6, 3)
	case "A":
		if t.Hour() < 12 {
			return "AM"
		}
		return "PM"
	case "a":
		if t.Hour() < 12 {
			return "am"
		}
		return "pm"
	case "Z":
		return t.Format("-07:00")
	case "ZZ":
		return t.Format("-0700")
	case "X":
		return strconv.FormatInt(t.Unix(), 10)
	case "x":
		return strconv.FormatInt(t.UnixMilli(), 10)
	}
	return tok
}

// weekToken renders W/WW/Wo/GGGG/GG for a week number and its year.
func weekToken(tok string, year, week int) string {
	switch tok {
	case "W":
		return strconv.Itoa(week)
	case "WW":
		return fmt.Sprintf("%02d", week)
	case "Wo":
		return ordinal(week)
	case "GGGG":
		return fmt.Sprintf("%04d", year)
	}
	return fmt.Sprintf("%02d", year%100)
}

// usWeek is moment's "en" locale week: weeks start on Sunday and week 1
// holds 1 January.
func usWeek(t time.Time) (year, week int) {
	const dow, doy = 0, 6
	y := t.Year()
	offset := firstWeekOffset(y, dow, doy)
	week = (t.YearDay()-offset-1)/7 + 1
	if t.YearDay()-offset-1 < 0 {
		week = 0 // floor, not truncation, below zero
	}
	switch {
	case week < 1:
		y--
		week += weeksInYear(y, dow, doy)
	case week > weeksInYear(y, dow, doy):
		week -= weeksInYear(y, dow, doy)
		y++
	}
	return y, week
}

// firstWeekOffset follows moment.js: where week 1 starts relative to 1
// January, for weeks starting on weekday dow whose first week holds
// January's day 7+dow-doy.
func firstWeekOffset(year, dow, doy int) int {
	fwd := 7 + dow - doy
	fwdlw := (7 + int(time.Date(year, time.January, fwd, 0, 0, 0, 0, time.UTC).Weekday()) - dow) % 7
	return -fwdlw + fwd - 1
}

func weeksInYear(year, dow, doy int) int {
	days := 365
	if time.Date(year, time.December, 31, 0, 0, 0, 0, time.UTC).YearDay() == 366 {
		days = 366
	}
	return (days - firstWeekOffset(year, dow, doy) + firstWeekOffset(year+1, dow, doy)) / 7
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
