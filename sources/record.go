package sources

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rowflow/rowflow/internal/text/jsonfloat"
)

// Record is one row of a source that reads columns it does not know in
// advance (sources/parquet.Read, sources/text.CSV and sources/text.JSONL
// of Record), and what the record sinks write: its values in the order of
// Names. Which Go types the values have is said by the
// source that reads them.
type Record struct {
	Names  []string
	Values []any
}

// Get returns the value of the named column, and whether the record has it.
func (r Record) Get(name string) (any, bool) {
	i := slices.Index(r.Names, name)
	if i < 0 {
		return nil, false
	}
	return r.Values[i], true
}

// MarshalJSON encodes r as a JSON object of its columns, in order: what
// a record looks like in JSON Lines (shards.JSONL[Record]). A name
// that comes twice (a Hive column that the files hold too) is written
// once, with its first value. A NaN or infinite float, which JSON has no
// number for, is written as the string "NaN", "+Inf" or "-Inf", in lists
// too; sources/text.JSONL[Record] reads such a string back as the string,
// and shards.Parquet[Record] writes it to a float column as the float.
func (r Record) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, name := range r.Names {
		if slices.Contains(r.Names[:i], name) {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		var v any
		if i < len(r.Values) {
			v = r.Values[i]
		}
		val, err := json.Marshal(v)
		if uv := (*json.UnsupportedValueError)(nil); errors.As(err, &uv) {
			val, err = json.Marshal(jsonfloat.Value(v))
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", name, err)
		}
		b = append(append(append(b, k...), ':'), val...)
	}
	return append(b, '}'), nil
}
