package shards_test

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// decimalStruct has a decimal field of each physical type the writer
// chooses (INT32 to 9 digits, INT64 to 18, FIXED_LEN_BYTE_ARRAY to 38),
// and a nullable one. The tag's decimal(scale:precision) is parquet-go's.
type decimalStruct struct {
	ID    int64            `csv:"id" parquet:"id"`
	Price decimal.Decimal  `csv:"price" parquet:"price,decimal(2:6)"`
	Qty   decimal.Decimal  `csv:"qty" parquet:"qty,decimal(3:15)"`
	Big   decimal.Decimal  `csv:"big" parquet:"big,decimal(2:38)"`
	Opt   *decimal.Decimal `csv:"opt" parquet:"opt,decimal(4:9)"`
	Name  string           `csv:"name" parquet:"name"`
}

const decimalCSV = "id,price,qty,big,opt,name\n" +
	"1,-1234.50,0.001,-123456789012345678901234567890123.45,0.0001,a\n" +
	"2,0,-999999999999.999,999999999999999999999999999999999999.99,,b\n" +
	"3,9999.990,1e3,-0.01,-99999.9999,c\n"

func readDecimalCSV(t *testing.T) []decimalStruct {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.csv")
	os.WriteFile(path, []byte(decimalCSV), 0o644)
	var rows []decimalStruct
	for v, err := range flow.Values[decimalStruct](t.Context(), flow.From(text.CSV[decimalStruct](path))) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, v)
	}
	return rows
}

// sameDecimals compares rows field by field, decimals by value (a column
// reads at its scale: 1e3 comes back as 1000.000).
func sameDecimals(t *testing.T, got, want []decimalStruct) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		ok := g.ID == w.ID && g.Name == w.Name && g.Price.Equal(w.Price) && g.Qty.Equal(w.Qty) && g.Big.Equal(w.Big) &&
			(g.Opt == nil) == (w.Opt == nil) && (g.Opt == nil || g.Opt.Equal(*w.Opt))
		if !ok {
			t.Errorf("row %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestParquetDecimalFields: CSV text → decimal.Decimal fields →
// shards.Parquet → parquet.Read gives the values back exactly, at the
// tag's scale, nulls as nil, with and without RowIDColumn, with writers
// that run at once and with PartitionBy; the files' columns are DECIMAL(p,s) on INT32, INT64 and FIXED_LEN_BYTE_ARRAY.
func TestParquetDecimalFields(t *testing.T) {
	rows := readDecimalCSV(t)
	// Many partitions of them, for writers that run at once.
	var many []decimalStruct
	for i := range 300 {
		r := rows[i%len(rows)]
		r.ID = int64(i)
		many = append(many, r)
	}
	for _, c := range []struct {
		rows []decimalStruct
		opts []shards.ParquetOption
		hive bool // files under name=…
	}{
		{rows, nil, false},
		{rows, []shards.ParquetOption{shards.RowIDColumn("_rid")}, false},
		{many, []shards.ParquetOption{shards.Writers(3)}, false},
		{rows, []shards.ParquetOption{shards.PartitionBy("name")}, true},
	} {
		dir := t.TempDir()
		if err := flow.From(sources.Slice(c.rows, sources.PartitionItems(7))).To(shards.Parquet[decimalStruct](dir, c.opts...)).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		var got []decimalStruct
		for v, err := range flow.Values[decimalStruct](t.Context(), flow.From(parquet.Read[decimalStruct](dir))) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		if files, _ := filepath.Glob(filepath.Join(dir, "*.parquet")); len(c.rows) == len(many) && len(files) != 3 {
			t.Errorf("Writers(3) wrote %d files", len(files))
		}
		slices.SortFunc(got, func(a, b decimalStruct) int { return cmp.Compare(a.ID, b.ID) })
		sameDecimals(t, got, c.rows)
		for i, want := range []int32{2, 3, 2} {
			if e := []decimal.Decimal{got[0].Price, got[0].Qty, got[0].Big}[i].Exponent(); e != -want {
				t.Errorf("column %d reads with exponent %d, want %d", i, e, -want)
			}
		}

		if c.hive {
			if files, _ := filepath.Glob(filepath.Join(dir, "name=*", "*.parquet")); len(files) != 3 {
				t.Errorf("PartitionBy wrote %v", files)
			}
			continue
		}
		f, err := os.Open(filepath.Join(dir, "part-00000-00000.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := pq.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{
			"price": "INT32 DECIMAL(6,2)", "qty": "INT64 DECIMAL(15,3)",
			"big": "FIXED_LEN_BYTE_ARRAY DECIMAL(38,2)", "opt": "INT32 DECIMAL(9,4)",
		}
		for _, col := range pf.Schema().Fields() {
			w, ok := want[col.Name()]
			if !ok {
				continue
			}
			if got := col.Type().Kind().String() + " " + col.Type().LogicalType().String(); got != w {
				t.Errorf("column %s: %s, want %s", col.Name(), got, w)
			}
			if optional := col.Optional(); optional != (col.Name() == "opt") {
				t.Errorf("column %s: optional %v", col.Name(), optional)
			}
		}
		f.Close()
	}
}

// TestParquetDecimalRefused: a value with more decimal places than the
// tag's scale, or more digits than its precision (exponents of a billion
// included, refused without computing their powers of ten), fails the run naming
// the field and the row, and leaves no data file (never rounded); a
// decimal field without a decimal tag, or one the writer cannot place
// (inside a slice or a nested struct), is refused when the sink is built.
func TestParquetDecimalRefused(t *testing.T) {
	rows := readDecimalCSV(t)
	for _, c := range []struct {
		row  int
		set  func(*decimalStruct)
		want string
	}{
		{1, func(r *decimalStruct) { r.Price = decimal.RequireFromString("1.005") }, "field Price: 1.005 has more than the 2 decimal places of DECIMAL(6,2)"},
		{2, func(r *decimalStruct) { r.Qty = decimal.RequireFromString("1e12") }, "field Qty: 1000000000000 has more than the 15 digits of DECIMAL(15,3)"},
		{0, func(r *decimalStruct) { v := decimal.RequireFromString("-100000"); r.Opt = &v }, "field Opt: -100000 has more than the 9 digits of DECIMAL(9,4)"},
		{2, func(r *decimalStruct) { v := decimal.New(7, -1000000000); r.Opt = &v }, "field Opt: 7e-1000000000 has more than the 4 decimal places of DECIMAL(9,4)"},
		{2, func(r *decimalStruct) { r.Big = decimal.New(1, 1000000000) }, "field Big: 1e1000000000 has more than the 38 digits of DECIMAL(38,2)"},
		{1, func(r *decimalStruct) { r.Big = decimal.RequireFromString("-1234567890123456789012345678901234567.8") }, "field Big: -1234567890123456789012345678901234567.8 has more than the 38 digits"},
		{0, func(r *decimalStruct) { r.Big = decimal.RequireFromString("0.1234567890123456789012") }, "field Big: 0.1234567890123456789012 has more than the 2 decimal places"},
	} {
		bad := append([]decimalStruct(nil), rows...)
		c.set(&bad[c.row])
		dir := t.TempDir()
		err := flow.From(sources.Slice(bad)).To(shards.Parquet[decimalStruct](dir)).Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "row ") {
			t.Errorf("row %d: %v, want an error with %q", c.row, err, c.want)
			continue
		}
		var se *flow.StageError
		if !errors.As(err, &se) || !se.HasID || se.ID != rowid.Ordinal(uint64(c.row)).Combine(rowid.FromString("slice")) {
			t.Errorf("%v: the error does not name row %d's ID", err, c.row)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
		if len(files) != 0 {
			t.Errorf("files left: %v", files)
		}
	}

	type untagged struct {
		P decimal.Decimal `parquet:"p"`
	}
	type inSlice struct {
		P []decimal.Decimal `parquet:"p,decimal(2:10)"`
	}
	type inner struct {
		P decimal.Decimal `parquet:"p,decimal(2:10)"`
	}
	type nested struct{ In inner }
	type tooWide struct {
		P decimal.Decimal `parquet:"p,decimal(2:39)"`
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{flow.From(sources.Slice([]untagged{{}})).To(shards.Parquet[untagged](t.TempDir())).Err(), "field P is a decimal.Decimal without a decimal(scale:precision) option in its parquet tag"},
		{flow.From(sources.Slice([]inSlice{{}})).To(shards.Parquet[inSlice](t.TempDir())).Err(), "field P: a decimal.Decimal in a slice"},
		{flow.From(sources.Slice([]nested{{}})).To(shards.Parquet[nested](t.TempDir())).Err(), "field In.P: a decimal.Decimal in a nested struct"},
		{flow.From(sources.Slice([]tooWide{{}})).To(shards.Parquet[tooWide](t.TempDir())).Err(), "precision from 1 to 38"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%v, want an error with %q", c.err, c.want)
		}
	}
}
