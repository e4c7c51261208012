package pqschema

import pqformat "github.com/parquet-go/parquet-go/format"

// UnitNanos returns the nanoseconds of a TIMESTAMP's or TIME's unit:
// 1e6 for milliseconds, 1e3 for microseconds, 1 for nanoseconds.
func UnitNanos(u pqformat.TimeUnit) int64 {
	switch u.Value.(type) {
	case *pqformat.MilliSeconds:
		return 1e6
	case *pqformat.NanoSeconds:
		return 1
	}
	return 1e3
}
