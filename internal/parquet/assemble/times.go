package assemble

import (
	"reflect"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
)

// timeGetter reads a TIMESTAMP (INT64 of any unit), a DATE (INT32) or a
// legacy INT96 timestamp column into time.Time fields, in UTC: an instant
// for a timestamp adjusted to UTC, the wall clock (as UTC) for one that is
// not, midnight for a date. ok is false for other columns.
func timeGetter(leaf *pqcol.Leaf) (getter, bool) {
	switch leaf.Kind {
	case parquet.Int96:
		return loader[time.Time](func(c *pqcol.Column, _, _ int) func(int) time.Time {
			s := c.Int96
			return func(v int) time.Time { return int96Time(s[v]) }
		}), true
	case parquet.Int64, parquet.Int32:
	default:
		return nil, false
	}
	lt := leaf.Node.Type().LogicalType()
	if lt == nil {
		return nil, false
	}
	switch l := lt.Value.(type) {
	case *pqformat.TimestampType:
		if leaf.Kind != parquet.Int64 {
			return nil, false
		}
		per := pqschema.UnitNanos(l.Unit)
		return loader[time.Time](func(c *pqcol.Column, _, _ int) func(int) time.Time {
			s := c.Int64
			switch per {
			case 1:
				return func(v int) time.Time { return time.Unix(0, s[v]).UTC() }
			case 1e3:
				return func(v int) time.Time { return time.UnixMicro(s[v]).UTC() }
			}
			return func(v int) time.Time { return time.UnixMilli(s[v]).UTC() }
		}), true
	case *pqformat.DateType:
		if leaf.Kind != parquet.Int32 {
			return nil, false
		}
		return loader[time.Time](func(c *pqcol.Column, _, _ int) func(int) time.Time {
			s := c.Int32
			return func(v int) time.Time { return time.Unix(int64(s[v])*86400, 0).UTC() }
		}), true
	}
	return nil, false
}

// int96Time returns the instant of a legacy INT96 timestamp: nanoseconds
// of the day, then the Julian day number.
func int96Time(x deprecated.Int96) time.Time {
	nanos := int64(x[1])<<32 | int64(x[0])
	day := int64(x[2]) - 2440588 // the Julian day of 1970-01-01
	return time.Unix(day*86400, nanos).UTC()
}

// timeType is the type of time.Time fields.
var timeType = reflect.TypeFor[time.Time]()
