package parquet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

type decimalPQRow struct {
	ID   int64            `parquet:"id"`
	I32  decimal.Decimal  `parquet:"i32"`
	I64  *decimal.Decimal `parquet:"i64"`
	Flba decimal.Decimal  `parquet:"flba"`
	Ba   *decimal.Decimal `parquet:"ba"`
}

// TestDecimalColumns: DECIMAL columns of each physical type (INT32,
// INT64, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY; written from text by
// shards.Parquet[sources.Record]) read into decimal.Decimal fields exactly, at the
// column's scale, negative values and 38 digits included; a null is nil in
// a pointer field; a column that is not a DECIMAL is refused, naming it.
func TestDecimalColumns(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	in := [][]string{
		{"1", "-1234.50", "0.001", "-12345678901234567890.12", "99999999999999999999999999999999999.999"},
		{"2", "0", "", "0.01", ""},
		{"3", "9999.99", "-999999999999.999", "1", "-0.001"},
	}
	var b strings.Builder
	b.WriteString("id,i32,i64,flba,ba\n")
	for _, r := range in {
		b.WriteString(strings.Join(r, ",") + "\n")
	}
	os.WriteFile(csvPath, []byte(b.String()), 0o644)
	opt := pq.Optional
	schema := pqschema.New("record",
		pqschema.Column{Name: "id", Node: pq.Int(64)},
		pqschema.Column{Name: "i32", Node: opt(pq.Decimal(2, 6, pq.Int32Type))},
		pqschema.Column{Name: "i64", Node: opt(pq.Decimal(3, 15, pq.Int64Type))},
		pqschema.Column{Name: "flba", Node: opt(pq.Decimal(2, 30, pq.FixedLenByteArrayType(13)))},
		pqschema.Column{Name: "ba", Node: opt(pq.Decimal(3, 38, pq.ByteArrayType))},
	)
	out := filepath.Join(dir, "out")
	if err := flow.From(text.CSV[sources.Record](csvPath)).To(shards.Parquet[sources.Record](out, shards.Schema(schema))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got []decimalPQRow
	for v, err := range flow.Values[decimalPQRow](t.Context(), flow.From(parquet.Read[decimalPQRow](out))) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if len(got) != len(in) {
		t.Fatalf("%d rows, want %d", len(got), len(in))
	}
	scales := []int32{2, 3, 2, 3}
	for i, r := range got {
		vals := []*decimal.Decimal{&r.I32, r.I64, &r.Flba, r.Ba}
		for k, v := range vals {
			s := in[i][k+1]
			switch {
			case s == "" && v != nil:
				t.Errorf("row %d, column %d: %s, want null", i, k+1, v)
			case s == "":
			case v == nil:
				t.Errorf("row %d, column %d: null, want %s", i, k+1, s)
			case !v.Equal(decimal.RequireFromString(s)) || v.Exponent() != -scales[k]:
				t.Errorf("row %d, column %d: %s (exponent %d), want %s at scale %d", i, k+1, v, v.Exponent(), s, scales[k])
			}
		}
	}

	// A Hive partition value fills a decimal field too.
	hive := filepath.Join(dir, "hive", "i32=7.50")
	os.MkdirAll(hive, 0o755)
	os.Rename(filepath.Join(out, "part-00000-00000.parquet"), filepath.Join(hive, "a.parquet"))
	n := 0
	for v, err := range flow.Values[decimalPQRow](t.Context(), flow.From(parquet.Read[decimalPQRow](filepath.Dir(hive)))) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if want := decimal.RequireFromString("7.50"); !v.I32.Equal(want) || v.I32.Exponent() != -2 {
			t.Fatalf("partition value: %s, want %s", v.I32, want)
		}
	}
	if n != len(in) {
		t.Fatalf("%d rows under the partition, want %d", n, len(in))
	}

	type notDecimal struct {
		ID decimal.Decimal `parquet:"id"`
	}
	for _, err := range flow.Values[notDecimal](t.Context(), flow.From(parquet.Read[notDecimal](filepath.Dir(hive)))) {
		if err == nil || !strings.Contains(err.Error(), `column "id"`) || !strings.Contains(err.Error(), "want a DECIMAL") {
			t.Fatalf("an INT64 column into a decimal.Decimal: %v", err)
		}
		break
	}
}
