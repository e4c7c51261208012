// Package texttime parses the text forms of timestamps, dates and times
// of day that CSV files and JSON strings hold, as the text sources, the
// record writers and schema inference read them: RFC 3339 and the
// space-separated form SQL databases print, seconds' fractions optional.
package texttime

import (
	"strings"
	"time"
)

// timestampLayouts are the layouts of a timestamp, with a zone and
// without.
var timestampLayouts = []struct {
	layout string
	zone   bool
}{
	{"2006-01-02T15:04:05.999999999Z07:00", true},
	{"2006-01-02 15:04:05.999999999Z07:00", true},
	{"2006-01-02 15:04:05.999999999Z07", true},
	{"2006-01-02T15:04:05.999999999", false},
	{"2006-01-02 15:04:05.999999999", false},
}

// Timestamp parses s as a timestamp: with zone true when s carries one
// (Z or ±hh[:mm], and then t is that instant at that offset, as
// time.Parse gives it: UTC for Z), else t is the wall clock s shows, as
// UTC. ok is false if s is not a timestamp.
func Timestamp(s string) (t time.Time, zone, ok bool) {
	s = strings.TrimSpace(s)
	for _, l := range timestampLayouts {
		if t, err := time.Parse(l.layout, s); err == nil {
			return t, l.zone, true
		}
	}
	return time.Time{}, false, false
}

// Date parses s as a date, 2006-01-02, at midnight UTC.
func Date(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	return t, err == nil
}

// TimeOfDay parses s as a time of day, 15:04:05[.fff], and returns the
// time since midnight.
func TimeOfDay(s string) (time.Duration, bool) {
	t, err := time.Parse("15:04:05.999999999", strings.TrimSpace(s))
	if err != nil {
		return 0, false
	}
	return t.Sub(time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)), true
}
