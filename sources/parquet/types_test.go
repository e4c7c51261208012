package parquet_test

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// TestColumnsRefusesUnknownNames: a name given to Columns that nothing
// reads (a typo) fails the run, for structs as for records and column
// batches, instead of leaving a field zero.
func TestColumnsRefusesUnknownNames(t *testing.T) {
	root, _ := hiveDataset(t)
	type IDLabel struct {
		ID    int64  `parquet:"id"`
		Label string `parquet:"label"`
	}
	ctx := context.Background()
	errs := map[string]error{
		"Parquet": flow.From(parquet.Read[IDLabel](root, parquet.Columns("labl", "id"))).
			To(sinks.Count[IDLabel](new(int64))).Run(ctx),
		"Records": flow.From(parquet.Read[sources.Record](root, parquet.Columns("labl", "id"))).
			To(sinks.Count[sources.Record](new(int64))).Run(ctx),
		"ColumnBatches": flow.From(parquet.Read[*parquet.ColumnBatch](root, parquet.Columns("labl", "id"))).
			To(sinks.Count[*parquet.ColumnBatch](new(int64))).Run(ctx),
	}
	for name, err := range errs {
		if err == nil || !strings.Contains(err.Error(), `"labl"`) {
			t.Errorf("%s with Columns(\"labl\", \"id\"): %v, want an error naming \"labl\"", name, err)
		}
	}
	want := `sources: Columns("labl"): no field of parquet_test.IDLabel reads a column of that name (they read id, label)`
	if err := errs["Parquet"]; err == nil || err.Error() != want {
		t.Errorf("Parquet: %v, want %s", err, want)
	}
	// A name a field reads is fine, and the other fields stay zero.
	got := testutil.Items[IDLabel](t, flow.From(parquet.Read[IDLabel](root, parquet.Columns("id"))))
	if len(got) == 0 || got[0].Value.Label != "" {
		t.Fatalf("Columns(\"id\"): %d rows, first %+v", len(got), got)
	}
}

// Ints has one column of each integer type parquet-go writes for Go's
// integer types.
type Ints struct {
	I8  int8   `parquet:"i8"`
	I32 int32  `parquet:"i32"`
	I64 int64  `parquet:"i64"`
	U8  uint8  `parquet:"u8"`
	U32 uint32 `parquet:"u32"`
	U64 uint64 `parquet:"u64"`
}

func intsFile(t *testing.T) string {
	root := t.TempDir()
	rows := []Ints{{I8: -1, I32: -1, I64: -1, U8: 255, U32: math.MaxUint32, U64: math.MaxUint64},
		{I8: 7, I32: 1 << 30, I64: 1 << 40, U8: 1, U32: 1 << 31, U64: 1 << 63}}
	testutil.WriteParquet(t, filepath.Join(root, "ints.parquet"), rows, 10)
	return root
}

// TestIntegerConversionsFollowTheTable: a field reads an integer column
// only when every value of the column's type fits it; the rest are
// refused when the file is opened, naming the column and both types.
func TestIntegerConversionsFollowTheTable(t *testing.T) {
	root := intsFile(t)
	// Widening reads, signed into wider signed and unsigned into wider
	// unsigned or signed, keep the values.
	type Widened struct {
		I8  int16  `parquet:"i8"`
		I32 int64  `parquet:"i32"`
		I64 int    `parquet:"i64"`
		U8  int16  `parquet:"u8"`
		U32 uint64 `parquet:"u32"`
		U64 uint   `parquet:"u64"`
	}
	got := testutil.Items[Widened](t, flow.From(parquet.Read[Widened](root)))
	want := []Widened{{I8: -1, I32: -1, I64: -1, U8: 255, U32: math.MaxUint32, U64: math.MaxUint64},
		{I8: 7, I32: 1 << 30, I64: 1 << 40, U8: 1, U32: 1 << 31, U64: 1 << 63}}
	if len(got) != 2 || got[0].Value != want[0] || got[1].Value != want[1] {
		t.Fatalf("widened: %+v, want %+v", got, want)
	}
	type U64FromI64 struct {
		V uint64 `parquet:"i64"`
	}
	type I32FromI64 struct {
		V int32 `parquet:"i64"`
	}
	type I64FromU64 struct {
		V int64 `parquet:"u64"`
	}
	type U32FromI32 struct {
		V uint32 `parquet:"i32"`
	}
	type I8FromI32 struct {
		V int8 `parquet:"i32"`
	}
	type I32FromU32 struct {
		V int32 `parquet:"u32"`
	}
	type F32FromI32 struct {
		V float32 `parquet:"i32"`
	}
	cases := []struct {
		err  error
		want string
	}{
		{run[U64FromI64](root), `column "i64" (INT64 INT(64,true)) into field V (uint64): uint64 does not hold every value of the column`},
		{run[I32FromI64](root), `column "i64" (INT64 INT(64,true)) into field V (int32): int32 does not hold every value of the column`},
		{run[I64FromU64](root), `column "u64" (INT64 INT(64,false)) into field V (int64): int64 does not hold every value of the column`},
		{run[U32FromI32](root), `column "i32" (INT32 INT(32,true)) into field V (uint32): uint32 does not hold every value of the column`},
		{run[I8FromI32](root), `column "i32" (INT32 INT(32,true)) into field V (int8): int8 does not hold every value of the column`},
		{run[I32FromU32](root), `column "u32" (INT32 INT(32,false)) into field V (int32): int32 does not hold every value of the column`},
		{run[F32FromI32](root), `column "i32" (INT32 INT(32,true)) into field V (float32): cannot read a INT32 column into float32`},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || !strings.Contains(c.err.Error(), "ints.parquet") {
			t.Errorf("%v, want an error naming ints.parquet and saying %s", c.err, c.want)
		}
	}
}

func run[T any](root string) error {
	return flow.From(parquet.Read[T](root)).To(sinks.Count[T](new(int64))).Run(context.Background())
}

// TestRecordsAndBatchesFollowTheTable: records hold each integer column
// as the Go type the table names for it (unsigned columns as uint32 and
// uint64), and column batches say which columns are unsigned.
func TestRecordsAndBatchesFollowTheTable(t *testing.T) {
	root := intsFile(t)
	recs := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root)))
	want := []any{int32(-1), int32(-1), int64(-1), uint32(255), uint32(math.MaxUint32), uint64(math.MaxUint64)}
	if len(recs) != 2 || !reflect.DeepEqual(recs[0].Value.Values, want) {
		t.Fatalf("records: %#v, want %#v", recs[0].Value.Values, want)
	}
	batches := testutil.Items[*parquet.ColumnBatch](t, flow.From(parquet.Read[*parquet.ColumnBatch](root)))
	var unsigned []string
	for _, c := range batches[0].Value.Columns {
		if c.Unsigned {
			unsigned = append(unsigned, c.Name)
		}
	}
	if !slices.Equal(unsigned, []string{"u8", "u32", "u64"}) {
		t.Fatalf("unsigned columns %v", unsigned)
	}
}
