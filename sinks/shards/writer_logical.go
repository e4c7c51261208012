package shards

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/internal/text/texttime"
)

// logicalConverter returns the converter of a record's values to a
// column of a timestamp, date, time or decimal logical type, and true;
// or false for other columns. Text (a CSV field, a JSON string) is parsed
// as the type's text form and a time.Time is converted; anything else
// goes to raw, the converter of the column's physical type, as the value
// a Parquet record of such a column holds (its logical type not applied).
func logicalConverter(t parquet.Type, raw func(v any) (parquet.Value, error)) (func(v any) (parquet.Value, error), bool) {
	lt := t.LogicalType()
	if lt == nil {
		return nil, false
	}
	switch l := lt.Value.(type) {
	case *pqformat.TimestampType:
		per := pqschema.UnitNanos(l.Unit)
		return func(v any) (parquet.Value, error) {
			tm, ok, err := timestampOf(v, l.IsAdjustedToUTC)
			if !ok {
				return raw(v)
			}
			if err != nil {
				return parquet.Value{}, err
			}
			return instantValue(tm, per)
		}, true
	case *pqformat.DateType:
		return func(v any) (parquet.Value, error) {
			tm, ok, err := dateOf(v)
			if !ok {
				return raw(v)
			}
			if err != nil {
				return parquet.Value{}, err
			}
			days := floorDiv(tm.Unix(), 86400)
			if days < math.MinInt32 || days > math.MaxInt32 {
				return parquet.Value{}, errors.New("out of the range of a date")
			}
			return parquet.Int32Value(int32(days)), nil
		}, true
	case *pqformat.TimeType:
		per := pqschema.UnitNanos(l.Unit)
		return func(v any) (parquet.Value, error) {
			d, ok, err := timeOfDay(v)
			if !ok {
				return raw(v)
			}
			if err != nil {
				return parquet.Value{}, err
			}
			n := int64(d) / per
			if t.Kind() == parquet.Int32 {
				return parquet.Int32Value(int32(n)), nil
			}
			return parquet.Int64Value(n), nil
		}, true
	case *pqformat.DecimalType:
		return func(v any) (parquet.Value, error) {
			var s string
			switch x := v.(type) {
			case string:
				s = x
			case json.Number:
				s = string(x)
			case float32, float64:
				return parquet.Value{}, errors.New("a float is not exact: give the decimal as text")
			default:
				return raw(v)
			}
			u, err := parseDecimal(s, int(l.Precision), int(l.Scale))
			if err != nil {
				return parquet.Value{}, err
			}
			return decimalValue(u, t)
		}, true
	}
	return nil, false
}

// timestampOf returns the instant of a timestamp value, with ok false
// if v is neither text nor a time.Time. A column adjusted to UTC takes
// text with an offset (converted to UTC) or without (read as UTC), and a
// time.Time as the instant it is; a column without a time zone takes
// text without an offset, and a time.Time's wall clock.
func timestampOf(v any, utc bool) (tm time.Time, ok bool, err error) {
	switch x := v.(type) {
	case time.Time:
		if utc {
			return x.UTC(), true, nil
		}
		return wallClock(x), true, nil
	case string:
		tm, zone, ok := texttime.Timestamp(x)
		switch {
		case !ok:
			return time.Time{}, true, fmt.Errorf("%q is not a timestamp (want 2006-01-02T15:04:05[.fff][Z|±hh:mm], or with a space for the T)", x)
		case zone && !utc:
			return time.Time{}, true, fmt.Errorf("%q has a time zone, but the column is a timestamp without one (give the type \", tz\" to store instants)", x)
		}
		return tm.UTC(), true, nil
	}
	return time.Time{}, false, nil
}

// wallClock returns the time t's clock shows in its location, as UTC.
func wallClock(t time.Time) time.Time {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, mo, d, h, mi, s, t.Nanosecond(), time.UTC)
}

// instantValue returns tm as an INT64 count of units of per nanoseconds
// since the Unix epoch, truncated toward the past.
func instantValue(tm time.Time, per int64) (parquet.Value, error) {
	sec, sub := tm.Unix(), int64(tm.Nanosecond())/per
	perSec := int64(1e9) / per
	// sec*perSec + sub within int64: below, the second before the
	// first whole one (MinInt64/perSec truncates toward zero) holds
	// the units from MinInt64 on.
	low := math.MinInt64/perSec - 1
	if sec > (math.MaxInt64-sub)/perSec || sec < low || sec == low && sub < math.MinInt64%perSec+perSec {
		return parquet.Value{}, errors.New("out of the range of the column's unit")
	}
	return parquet.Int64Value(sec*perSec + sub), nil
}

// dateOf returns the day of a date value (midnight UTC), with ok false
// if v is neither text nor a time.Time.
func dateOf(v any) (time.Time, bool, error) {
	switch x := v.(type) {
	case time.Time:
		y, m, d := x.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), true, nil
	case string:
		tm, ok := texttime.Date(x)
		if !ok {
			return time.Time{}, true, fmt.Errorf("%q is not a date (want 2006-01-02)", x)
		}
		return tm, true, nil
	}
	return time.Time{}, false, nil
}

// timeOfDay returns the time since midnight of a time value, with ok
// false if v is neither text nor a time.Time.
func timeOfDay(v any) (time.Duration, bool, error) {
	switch x := v.(type) {
	case time.Time:
		return x.Sub(time.Date(x.Year(), x.Month(), x.Day(), 0, 0, 0, 0, x.Location())), true, nil
	case string:
		d, ok := texttime.TimeOfDay(x)
		if !ok {
			return 0, true, fmt.Errorf("%q is not a time of day (want 15:04:05[.fff])", x)
		}
		return d, true, nil
	}
	return 0, false, nil
}

// parseDecimal returns the unscaled value of the decimal text s in a
// column of the given precision and scale: s times 10^scale, which must
// be an integer of at most precision digits.
func parseDecimal(s string, precision, scale int) (*big.Int, error) {
	text := strings.TrimSpace(s)
	neg := strings.HasPrefix(text, "-")
	digits := strings.TrimLeft(text, "+-")
	whole, frac, _ := strings.Cut(digits, ".")
	if whole == "" && frac == "" || strings.Trim(whole+frac, "0123456789") != "" || len(text)-len(digits) > 1 {
		return nil, fmt.Errorf("%q is not a decimal number", s)
	}
	if trimmed := strings.TrimRight(frac, "0"); len(trimmed) > scale {
		return nil, fmt.Errorf("%q has more than the column's %d decimal places", s, scale)
	}
	frac += strings.Repeat("0", scale-min(len(frac), scale))
	frac = frac[:scale]
	u, _ := new(big.Int).SetString(strings.TrimLeft(whole+frac, "0")+"0", 10)
	u.Quo(u, big.NewInt(10)) // the appended 0 makes the empty string a number
	if len(u.String()) > precision && u.Sign() != 0 {
		return nil, fmt.Errorf("%q has more than the column's %d digits", s, precision)
	}
	if neg {
		u.Neg(u)
	}
	return u, nil
}

// decimalValue returns the unscaled value u in the physical type of t:
// INT32, INT64, or big-endian two's complement bytes.
func decimalValue(u *big.Int, t parquet.Type) (parquet.Value, error) {
	switch t.Kind() {
	case parquet.Int32:
		return parquet.Int32Value(int32(u.Int64())), nil
	case parquet.Int64:
		return parquet.Int64Value(u.Int64()), nil
	}
	size := t.Length()
	if t.Kind() == parquet.ByteArray {
		size = (u.BitLen() + 8) / 8
	}
	b := make([]byte, size)
	if u.Sign() >= 0 {
		u.FillBytes(b)
	} else {
		// Two's complement: 2^(8·size) + u.
		m := new(big.Int).Lsh(big.NewInt(1), uint(8*size))
		m.Add(m, u).FillBytes(b)
	}
	if t.Kind() == parquet.ByteArray {
		return parquet.ByteArrayValue(b), nil
	}
	return parquet.FixedLenByteArrayValue(b), nil
}

// floorDiv returns a / b rounded toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
