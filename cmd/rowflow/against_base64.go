package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"

	"github.com/rowflow/rowflow/internal/parquet/pqschema"
)

// base64Columns returns, for each of the datasets at a and b, the
// columns whose values verify -against reads as base64: the text columns
// (of a CSV or JSON Lines dataset) that the other dataset, a Parquet one,
// holds as bytes, and whose every value is base64. To tell, it reads the
// text dataset until a value of each such column is not base64, or to
// its end.
func base64Columns(ctx context.Context, a, b string) (decodeA, decodeB map[string]bool, err error) {
	bytesA, err := bytesColumns(a)
	if err != nil {
		return nil, nil, err
	}
	bytesB, err := bytesColumns(b)
	if err != nil {
		return nil, nil, err
	}
	if decodeA, err = allBase64(ctx, a, bytesB); err != nil {
		return nil, nil, err
	}
	decodeB, err = allBase64(ctx, b, bytesA)
	return decodeA, decodeB, err
}

// bytesColumns returns the names (as columnName gives them) of the
// columns that the records of the dataset at path hold as []byte: for a
// Parquet dataset, its first file's BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY
// columns other than strings (see sources.Record); for CSV and JSON
// Lines, none.
func bytesColumns(path string) (map[string]bool, error) {
	if f, err := format(path); err != nil || f != "parquet" {
		return nil, err
	}
	files, err := parquetFiles(path)
	if err != nil {
		return nil, err
	}
	cols := map[string]bool{}
	err = openParquet(files[0].Path, func(f *parquet.File, _ int64) error {
		s := f.Schema()
		for _, p := range s.Columns() {
			leaf, _ := s.Lookup(p...)
			t := leaf.Node.Type()
			if k := t.Kind(); (k == parquet.ByteArray || k == parquet.FixedLenByteArray) && !pqschema.IsText(t) {
				cols[columnName(strings.Join(p, "."))] = true
			}
		}
		return nil
	})
	return cols, err
}

// allBase64 returns those of cols whose every value in the dataset at
// path is base64 text, if it is a CSV or JSON Lines dataset.
func allBase64(ctx context.Context, path string, cols map[string]bool) (map[string]bool, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	if f, err := format(path); err != nil || f == "parquet" {
		return nil, err
	}
	left := maps.Clone(cols)
	p, err := input{parallel: 2}.pipeline(path)
	if err != nil {
		return nil, err
	}
	for r, err := range flow.Values[sources.Record](ctx, p) {
		if err != nil {
			return nil, err
		}
		for i, name := range r.Names {
			if n := columnName(name); left[n] && !isBase64(r.Values[i]) {
				delete(left, n)
			}
		}
		if len(left) == 0 {
			break
		}
	}
	return left, nil
}

// isBase64 reports whether v is null, a string in padded standard base64
// (as encoding/json writes []byte), or a list of them.
func isBase64(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		_, err := base64.StdEncoding.Strict().DecodeString(x)
		return err == nil
	case []any:
		for _, e := range x {
			if !isBase64(e) {
				return false
			}
		}
		return true
	}
	return false
}

// fromBase64 returns the bytes that the base64 string v gives, or the
// list of them that a list of such strings gives.
func fromBase64(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return base64.StdEncoding.Strict().DecodeString(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			var err error
			if out[i], err = fromBase64(e); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%v (%T) is not base64 text", v, v)
}
