package pqschema

import (
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"
)

// IsText reports whether a BYTE_ARRAY column of type t holds text: the
// STRING, ENUM or JSON logical type, or the matching converted type of
// older writers. Records (sources.Record) hold such columns as strings
// and other byte arrays as []byte.
func IsText(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *pqformat.StringType, *pqformat.EnumType, *pqformat.JsonType:
			return true
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.UTF8, deprecated.Enum, deprecated.Json:
			return true
		}
	}
	return false
}
