package shards

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/rowid"
)

// fileRowIDs returns the number of rows of the data file f of size bytes
// (rel, its path in the directory, in errors; its extension gives the
// compression) of a rank whose manifest is m and, with the row-ID column,
// the IDs of its first and last rows; ids, if not nil, is called with the
// IDs of the rows in groups.
func fileRowIDs(f io.ReaderAt, size int64, rel string, m *Manifest, ids func([]rowid.ID)) (rows int64, first, last rowid.ID, err error) {
	switch m.Format {
	case "":
		return parquetRowIDs(f, size, rel, m.RowIDColumn, ids)
	case "jsonl", "csv":
		return textRowIDs(io.NewSectionReader(f, 0, size), rel, m.Format, m.RowIDColumn, ids)
	}
	return 0, first, last, fmt.Errorf("%s: unknown format %q", rel, m.Format)
}

// textRowIDs reads a JSON Lines or CSV file as fileRowIDs does: it
// decompresses it by its extension, counts its records (for CSV, after
// the header) and reads the row-ID fields idColumn_hi and idColumn_lo.
func textRowIDs(f io.Reader, rel, format, idColumn string, ids func([]rowid.ID)) (rows int64, first, last rowid.ID, err error) {
	r, err := codec.ForPath(rel).NewReader(bufio.NewReader(f))
	if err != nil {
		return 0, first, last, fmt.Errorf("%s: %w", rel, err)
	}
	defer r.Close()
	var batch []rowid.ID
	add := func(id rowid.ID) {
		if rows == 0 {
			first = id
		}
		last = id
		if ids != nil {
			if batch = append(batch, id); len(batch) == 4096 {
				ids(batch)
				batch = batch[:0]
			}
		}
	}
	if format == "jsonl" {
		err = jsonlRowIDs(r, idColumn, &rows, add)
	} else {
		err = csvRowIDs(r, idColumn, &rows, add)
	}
	if err != nil {
		return rows, first, last, fmt.Errorf("%s: record %d: %w", rel, rows+1, err)
	}
	if ids != nil && len(batch) > 0 {
		ids(batch)
	}
	return rows, first, last, nil
}

func jsonlRowIDs(r io.Reader, idColumn string, rows *int64, add func(rowid.ID)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	hi, lo := idColumn+"_hi", idColumn+"_lo"
	for sc.Scan() {
		if idColumn != "" {
			var rec map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				return err
			}
			id, err := parseID(string(rec[hi]), string(rec[lo]))
			if err != nil {
				return err
			}
			add(id)
		}
		*rows++
	}
	return sc.Err()
}

func csvRowIDs(r io.Reader, idColumn string, rows *int64, add func(rowid.ID)) error {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("no header row")
		}
		return err
	}
	h, l := -1, -1
	if idColumn != "" {
		h, l = slices.Index(header, idColumn+"_hi"), slices.Index(header, idColumn+"_lo")
		if h < 0 || l < 0 {
			return fmt.Errorf("no columns %s_hi and %s_lo", idColumn, idColumn)
		}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h >= 0 {
			id, err := parseID(rec[h], rec[l])
			if err != nil {
				return err
			}
			add(id)
		}
		*rows++
	}
}

func parseID(hi, lo string) (rowid.ID, error) {
	h, err := strconv.ParseUint(hi, 10, 64)
	if err != nil {
		return rowid.ID{}, fmt.Errorf("row ID: %w", err)
	}
	l, err := strconv.ParseUint(lo, 10, 64)
	if err != nil {
		return rowid.ID{}, fmt.Errorf("row ID: %w", err)
	}
	return rowid.ID{Hi: h, Lo: l}, nil
}
