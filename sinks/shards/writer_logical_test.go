package shards_test

import (
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// logicalSchema has a column of each time and decimal logical type.
func logicalSchema() *pq.Schema {
	opt := pq.Optional
	return pqschema.New("record",
		pqschema.Column{Name: "ts", Node: opt(pq.TimestampAdjusted(pq.Microsecond, false))},
		pqschema.Column{Name: "tstz", Node: opt(pq.TimestampAdjusted(pq.Millisecond, true))},
		pqschema.Column{Name: "ns", Node: opt(pq.TimestampAdjusted(pq.Nanosecond, true))},
		pqschema.Column{Name: "d", Node: opt(pq.Date())},
		pqschema.Column{Name: "t", Node: opt(pq.TimeAdjusted(pq.Microsecond, false))},
		pqschema.Column{Name: "tms", Node: opt(pq.TimeAdjusted(pq.Millisecond, false))},
		pqschema.Column{Name: "price", Node: opt(pq.Decimal(2, 6, pq.Int32Type))},
		pqschema.Column{Name: "qty", Node: opt(pq.Decimal(3, 15, pq.Int64Type))},
		pqschema.Column{Name: "big", Node: opt(pq.Decimal(2, 30, pq.FixedLenByteArrayType(13)))},
	)
}

// TestRecordShardsLogicalTypes: text values of timestamp, date, time and
// decimal columns are written as the stored integers their logical types
// define (checked against values computed here with time and math/big),
// a time.Time is converted, an empty CSV field is null, and a Parquet
// record's raw values pass through unchanged.
func TestRecordShardsLogicalTypes(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("ts,tstz,ns,d,t,tms,price,qty,big\n"+
		"2024-03-01 10:20:30.123456,2024-03-01T10:20:30.5+02:00,1969-12-31T23:59:59.999999999Z,1969-12-31,23:59:59.999999,00:00:01.5,-1234.5,0.001,-12345678901234567890.12\n"+
		",,,,,,,,\n"), 0o644)
	out := filepath.Join(t.TempDir(), "out")
	if err := flow.From(text.CSV[sources.Record](csvPath)).To(shards.Parquet[sources.Record](out, shards.Schema(logicalSchema()))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	big := new(big.Int)
	big.SetString("-1234567890123456789012", 10)
	bigBytes := make([]byte, 13)
	new(bigInt).twos(big, bigBytes)
	want := []any{
		time.Date(2024, 3, 1, 10, 20, 30, 123456000, time.UTC).UnixMicro(),
		time.Date(2024, 3, 1, 8, 20, 30, 500000000, time.UTC).UnixMilli(),
		int64(-1),
		int32(-1),
		int64((24*time.Hour - time.Microsecond) / time.Microsecond),
		int32(1500),
		int32(-123450),
		int64(1),
		bigBytes,
	}
	rows := readRecords(t, out)
	if len(rows) != 2 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, w := range want {
		if got := rows[0].Values[i]; !equalValue(got, w) {
			t.Errorf("column %s: %v (%T), want %v (%T)", rows[0].Names[i], got, got, w, w)
		}
		if rows[1].Values[i] != nil {
			t.Errorf("column %s of the empty row: %v, want null", rows[1].Names[i], rows[1].Values[i])
		}
	}

	// Resharding the output (raw values) gives the same files' values;
	// a time.Time is converted as text is.
	again := filepath.Join(t.TempDir(), "again")
	if err := flow.From(parquet.Read[sources.Record](out)).To(shards.Parquet[sources.Record](again, shards.Schema(logicalSchema()))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if back := readRecords(t, again); !equalValue(back[0].Values, rows[0].Values) {
		t.Errorf("resharded: %v, want %v", back[0].Values, rows[0].Values)
	}
	tm := time.Date(2024, 3, 1, 10, 20, 30, 123456000, time.FixedZone("x", 7200))
	rec := sources.Record{Names: []string{"ts", "tstz", "d"}, Values: []any{tm, tm, tm}}
	tt := filepath.Join(t.TempDir(), "tt")
	if err := flow.From(sources.Slice([]sources.Record{rec})).To(shards.Parquet[sources.Record](tt, shards.Schema(logicalSchema()))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := readRecords(t, tt)[0].Values
	if want := time.Date(2024, 3, 1, 10, 20, 30, 123456000, time.UTC).UnixMicro(); got[0] != want {
		t.Errorf("a time.Time in a timestamp without time zone: %v, want its wall clock %v", got[0], want)
	}
	if want := tm.UnixMilli(); got[1] != want {
		t.Errorf("a time.Time in a timestamp with time zone: %v, want its instant %v", got[1], want)
	}
	if got[3] != int32(19783) {
		t.Errorf("a time.Time in a date: %v, want 19783", got[3])
	}
}

// TestRecordShardsLogicalTypesRefused: text that is not of its column's
// type fails the run, naming the column and why.
func TestRecordShardsLogicalTypesRefused(t *testing.T) {
	for _, c := range []struct{ col, value, want string }{
		{"ts", "2024-03-01T10:00:00+02:00", "has a time zone, but the column is a timestamp without one"},
		{"ts", "yesterday", "is not a timestamp"},
		{"d", "2024-13-01", "is not a date"},
		{"t", "25:00:00", "is not a time of day"},
		{"price", "1.234", "more than the column's 2 decimal places"},
		{"price", "12345.6", "more than the column's 6 digits"},
		{"price", "1e3", "is not a decimal number"},
		{"qty", "--1", "is not a decimal number"},
	} {
		rec := sources.Record{Names: []string{c.col}, Values: []any{c.value}}
		err := flow.From(sources.Slice([]sources.Record{rec})).To(shards.Parquet[sources.Record](t.TempDir(), shards.Schema(logicalSchema()))).Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.col) {
			t.Errorf("%s = %q: %v; want an error naming the column and saying %q", c.col, c.value, err, c.want)
		}
	}
	rec := sources.Record{Names: []string{"price"}, Values: []any{1.5}}
	err := flow.From(sources.Slice([]sources.Record{rec})).To(shards.Parquet[sources.Record](t.TempDir(), shards.Schema(logicalSchema()))).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "a float is not exact") {
		t.Errorf("a float into a decimal: %v", err)
	}
}

type bigInt struct{}

// twos writes u as big-endian two's complement into b.
func (bigInt) twos(u *big.Int, b []byte) {
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*len(b)))
	new(big.Int).Mod(new(big.Int).Add(u, m), m).FillBytes(b)
}

func readRecords(t *testing.T, dir string) []sources.Record {
	t.Helper()
	var rows []sources.Record
	for r, err := range flow.Values[sources.Record](t.Context(), flow.From(parquet.Read[sources.Record](dir))) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func equalValue(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
