package shards_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

type (
	smallInt int16
	level    uint8
	label    string
)

type Embedded struct {
	Tag    label   `parquet:"tag"`
	Weight float32 `parquet:"weight"`
}

// kindsRow has a field of every type and shape that rowflow's struct
// writer covers.
type kindsRow struct {
	Embedded
	B    bool          `parquet:"b"`
	I8   int8          `parquet:"i8"`
	I16  smallInt      `parquet:"i16"`
	I32  int32         `parquet:"i32"`
	I    int           `parquet:"i"`
	U8   level         `parquet:"u8"`
	U16  uint16        `parquet:"u16"`
	U32  uint32        `parquet:"u32"`
	U64  uint64        `parquet:"u64"`
	U    uint          `parquet:"u"`
	F64  float64       `parquet:"f64"`
	S    string        `parquet:"s"`
	E    string        `parquet:"e,enum"`
	Raw  []byte        `parquet:"raw"`
	Fix  [6]byte       `parquet:"fix"`
	UUID [16]byte      `parquet:"uuid,uuid"`
	At   time.Time     `parquet:"at"`
	Ms   time.Time     `parquet:"ms,timestamp(millisecond)"`
	Days int32         `parquet:"days,date"`
	Dur  time.Duration `parquet:"dur"`
	PI   *int64        `parquet:"pi,optional"`
	PS   *string       `parquet:"ps"`
	PT   *time.Time    `parquet:"pt,timestamp(microsecond)"`
	OI   int32         `parquet:"oi,optional"`
	OS   string        `parquet:"os,optional"`
	RI   []int64       `parquet:"ri"`
	RS   []string      `parquet:"rs"`
	LF   []float64     `parquet:"lf,list"`
	LB   [][]byte      `parquet:"lb,list"`
	skip int
	Drop int `parquet:"-"`
}

// kindsRows returns n rows of random values, with zeros, nils, empty
// slices and extreme integers among them.
func kindsRows(n int) []kindsRow {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() bool { return r.IntN(4) == 0 }
	word := func() string { return strings.Repeat(string(rune('a'+r.IntN(26))), r.IntN(12)) }
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.FixedZone("x", -7200))
	rows := make([]kindsRow, n)
	for i := range rows {
		at := base.Add(time.Duration(r.Int64N(1e18)) - 5e17)
		k := kindsRow{
			Embedded: Embedded{Tag: label(word()), Weight: r.Float32()},
			B:        r.IntN(2) == 0, I8: int8(r.Uint32()), I16: smallInt(r.Uint32()), I32: int32(r.Uint32()),
			I: int(r.Uint64()), U8: level(r.Uint32()), U16: uint16(r.Uint32()), U32: r.Uint32(), U64: r.Uint64(),
			U: uint(r.Uint64()), F64: r.NormFloat64(), S: word(), E: []string{"red", "green", "blue"}[r.IntN(3)],
			At: at, Ms: at, Days: int32(r.IntN(40000)) - 20000, Dur: time.Duration(r.Int64()),
			OI: int32(r.IntN(3)), OS: word(),
		}
		if pick() {
			k.U32, k.U64, k.I8 = math.MaxUint32, math.MaxUint64, math.MinInt8
		}
		if pick() {
			k.F64 = math.Inf(-1)
		}
		if !pick() {
			k.Raw = []byte(word())
		}
		for j := range k.Fix {
			k.Fix[j] = byte(r.Uint32())
		}
		k.UUID[r.IntN(16)] = byte(i)
		if !pick() {
			v, s := r.Int64(), word()
			k.PI, k.PS, k.PT = &v, &s, &at
		}
		for range r.IntN(4) {
			k.RI = append(k.RI, r.Int64())
			k.RS = append(k.RS, word())
			k.LF = append(k.LF, r.Float64())
			k.LB = append(k.LB, []byte(word()))
		}
		if pick() {
			k.RI = []int64{} // empty, not nil: both are an empty list
		}
		k.skip, k.Drop = i, i
		rows[i] = k
	}
	return rows
}

// TestStructWriterMatchesParquetGo writes structs of every type and shape
// that rowflow's struct writer covers with it and with parquet-go's
// GenericWriter, and reads both back with parquet-go: the same rows.
func TestStructWriterMatchesParquetGo(t *testing.T) {
	rows := kindsRows(5000)
	ownDir, theirDir := writeBothWays(t, rows, shards.RowIDColumn("rid"))
	own, theirs := readBack[kindsRow](t, ownDir), readBack[kindsRow](t, theirDir)
	if len(own) != len(rows) {
		t.Fatalf("%d rows, want %d", len(own), len(rows))
	}
	for i := range rows {
		if !reflect.DeepEqual(own[i], theirs[i]) {
			t.Fatalf("row %d:\nrowflow's   %+v\nparquet-go's %+v", i, own[i], theirs[i])
		}
		if own[i].PI == nil != (rows[i].PI == nil) || own[i].OS != rows[i].OS || !own[i].At.Equal(rows[i].At) {
			t.Fatalf("row %d: read back %+v, wrote %+v", i, own[i], rows[i])
		}
	}
}

// decRow has decimals of each physical type, beside other fields.
type decRow struct {
	Embedded
	ID    int64            `parquet:"id"`
	Price decimal.Decimal  `parquet:"price,decimal(2:9)"`
	Qty   decimal.Decimal  `parquet:"qty,decimal(3:18)"`
	Big   decimal.Decimal  `parquet:"big,decimal(4:30)"`
	Opt   *decimal.Decimal `parquet:"opt,decimal(2:20)"`
	Note  *string          `parquet:"note"`
}

// TestStructWriterDecimals: structs with decimals, which parquet-go's
// writer takes as rows of a shadow struct, give the same values and
// levels through rowflow's writer.
func TestStructWriterDecimals(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([]decRow, 3000)
	for i := range rows {
		d := func(digits int, scale int32) decimal.Decimal {
			v := decimal.NewFromInt(r.Int64N(1e18))
			for range digits / 18 {
				v = v.Mul(decimal.NewFromInt(1e18)).Add(decimal.NewFromInt(r.Int64N(1e18)))
			}
			v = v.Mod(decimal.New(1, int32(digits))).Shift(-scale)
			if r.IntN(2) == 0 {
				v = v.Neg()
			}
			return v
		}
		rows[i] = decRow{Embedded: Embedded{Tag: label(fmt.Sprint(i % 7))}, ID: int64(i),
			Price: d(9, 2), Qty: d(18, 3), Big: d(30, 4)}
		if i%3 != 0 {
			o, note := d(20, 2), fmt.Sprint("note ", i)
			rows[i].Opt, rows[i].Note = &o, &note
		}
	}
	writeBothWays(t, rows, shards.RowIDColumn("rid"))
}

// writeBothWays writes rows with rowflow's struct writer and with
// parquet-go's, at parallelism 1, and checks that parquet-go reads the
// same values and levels (row-ID columns included) from both, and that
// rowflow's files are the same at parallelism 2 and 4. It writes with
// RowGroupRows(2000) and opts, and returns the directories that each
// wrote at parallelism 1.
func writeBothWays[T any](t *testing.T, rows []T, opts ...shards.ParquetOption) (ownDir, theirDir string) {
	t.Helper()
	if !shards.WritesOwnStructs[T]() {
		t.Fatalf("%T is not written by rowflow's writer", rows[0])
	}
	write := func(own bool, par int) string {
		defer shards.SetOwnStructWriter(own)()
		dir := filepath.Join(t.TempDir(), "out")
		p := flow.From(sources.Slice(rows, sources.PartitionItems(700), sources.ChunkSize(333))).
			Via(operators.Map(func(r T) (T, error) { return r, nil })).Parallel(par)
		opts := append([]shards.ParquetOption{shards.RowGroupRows(2000)}, opts...)
		if err := p.To(shards.Parquet[T](dir, opts...)).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	ownDir, theirDir = write(true, 1), write(false, 1)
	ownRows, theirRows := fileRows(t, ownDir), fileRows(t, theirDir)
	if len(ownRows) != len(rows) || len(theirRows) != len(rows) {
		t.Fatalf("%d and %d rows, want %d", len(ownRows), len(theirRows), len(rows))
	}
	for i := range rows {
		if !ownRows[i].Equal(theirRows[i]) {
			t.Fatalf("row %d, values and levels:\nrowflow's   %v\nparquet-go's %v", i, ownRows[i], theirRows[i])
		}
	}
	for _, par := range []int{2, 4} {
		dir := write(true, par)
		for _, name := range []string{"part-00000-00000.parquet", shards.ManifestName(0)} {
			a, errA := os.ReadFile(filepath.Join(ownDir, name))
			b, errB := os.ReadFile(filepath.Join(dir, name))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Fatalf("parallelism %d: %s differs from parallelism 1's (%v, %v)", par, name, errA, errB)
			}
		}
	}
	return ownDir, theirDir
}

// readBack reads the rows of the files of dir's manifest with
// parquet-go's GenericReader.
func readBack[T any](t *testing.T, dir string) []T {
	t.Helper()
	m, err := shards.ReadManifest(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return concatFiles[T](t, dir, m)
}

// fileRows reads the rows of the manifest's files as parquet-go's rows:
// values with their levels.
func fileRows(t *testing.T, dir string) []parquet.Row {
	t.Helper()
	m, err := shards.ReadManifest(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []parquet.Row
	for _, mf := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(mf.Path)))
		if err != nil {
			t.Fatal(err)
		}
		r := parquet.NewReader(openParquet(t, b))
		rows := make([]parquet.Row, 100)
		for {
			n, err := r.ReadRows(rows)
			for _, row := range rows[:n] {
				out = append(out, row.Clone())
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		r.Close()
	}
	return out
}

type point struct {
	X float64 `parquet:"x"`
	Y float64 `parquet:"y"`
}

// nestedRow has groups and lists of every shape: required, optional and
// repeated groups, lists of groups and of lists, and an optional list.
// (parquet-go's dynamic rows cannot write a list of pointers, so it has
// none.)
type nestedRow struct {
	ID      int64     `parquet:"id"`
	At      point     `parquet:"at"`
	Maybe   *point    `parquet:"maybe"`
	Path    []point   `parquet:"path"`
	Segs    []point   `parquet:"segs,list"`
	Grid    [][]int32 `parquet:"grid,list"`
	OptList []int64   `parquet:"opt_list,optional,list"`
	Inner   struct {
		A []string `parquet:"a"`
		B *int32   `parquet:"b"`
		C struct {
			D []uint16 `parquet:"d,list"`
		} `parquet:"c"`
	} `parquet:"inner"`
}

// TestStructWriterNested: nested groups and lists, with nulls and empty
// lists at every level, give the values and levels of parquet-go's
// writer.
func TestStructWriterNested(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pt := func() point { return point{r.Float64(), r.Float64()} }
	rows := make([]nestedRow, 4000)
	for i := range rows {
		n := &rows[i]
		n.ID, n.At = int64(i), pt()
		if r.IntN(3) > 0 {
			p := pt()
			n.Maybe = &p
		}
		for range r.IntN(4) {
			n.Path = append(n.Path, pt())
			n.Segs = append(n.Segs, pt())
			var cell []int32
			for range r.IntN(3) {
				cell = append(cell, r.Int32())
			}
			n.Grid = append(n.Grid, cell)
			n.Inner.A = append(n.Inner.A, fmt.Sprint(r.IntN(10)))
			n.Inner.C.D = append(n.Inner.C.D, uint16(r.Uint32()))
		}
		switch r.IntN(3) {
		case 0:
			n.OptList = []int64{} // empty, not null
		case 1:
			n.OptList = []int64{r.Int64(), r.Int64()}
		}
		if r.IntN(2) == 0 {
			b := r.Int32()
			n.Inner.B = &b
		}
	}
	ownDir, theirDir := writeBothWays(t, rows, shards.RowIDColumn("rid"))
	own, theirs := readBack[nestedRow](t, ownDir), readBack[nestedRow](t, theirDir)
	for i := range rows {
		if !reflect.DeepEqual(own[i], theirs[i]) {
			t.Fatalf("row %d:\nrowflow's   %+v\nparquet-go's %+v", i, own[i], theirs[i])
		}
	}
}

// TestStructWriterListOfPointers: a LIST of pointers (optional elements),
// which parquet-go writes with its typed writer only (its dynamic rows,
// taken with RowIDColumn, fail on it).
func TestStructWriterListOfPointers(t *testing.T) {
	type named struct {
		ID    int64     `parquet:"id"`
		Names []*string `parquet:"names,list"`
	}
	rows := make([]named, 3000)
	for i := range rows {
		rows[i].ID = int64(i)
		for k := range i % 4 {
			var s *string
			if (i+k)%3 != 0 {
				v := fmt.Sprint("n", i*k%50)
				s = &v
			}
			rows[i].Names = append(rows[i].Names, s)
		}
	}
	ownDir, theirDir := writeBothWays(t, rows)
	own, theirs := readBack[named](t, ownDir), readBack[named](t, theirDir)
	if !reflect.DeepEqual(own, theirs) || len(own) != len(rows) || !reflect.DeepEqual(own[7], rows[7]) {
		t.Fatalf("read back %d and %d rows; row 7: %+v and %+v, wrote %+v", len(own), len(theirs), own[7], theirs[7], rows[7])
	}
}

// TestStructWriterRowGroupsByBytes: rows of lists of numbers (say
// embeddings) end a row group once its lists take recordGroupBytes (64
// KiB here, 128 MiB by default), whatever RowGroupRows says, after the
// run of up to 1024 rows that gets there; the files are the same at
// every parallelism, and the rows read back.
func TestStructWriterRowGroupsByBytes(t *testing.T) {
	defer shards.SetRecordGroupBytes(64 << 10)()
	type embedding struct {
		ID  int64     `parquet:"id"`
		Vec []float32 `parquet:"vec,list"`
	}
	rows := make([]embedding, 3000)
	for i := range rows {
		rows[i] = embedding{ID: int64(i), Vec: make([]float32, 16+i%48)} // 64 to 252 bytes
		for k := range rows[i].Vec {
			rows[i].Vec[k] = float32(i) + float32(k)/64
		}
	}
	var first []byte
	for _, par := range []int{1, 3} {
		dir := filepath.Join(t.TempDir(), "out")
		p := flow.From(sources.Slice(rows, sources.PartitionItems(500), sources.ChunkSize(100))).
			Via(operators.Map(func(r embedding) (embedding, error) { return r, nil })).Parallel(par)
		if err := p.To(shards.Parquet[embedding](dir, shards.RowGroupRows(100_000))).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "part-00000-00000.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if first != nil {
			if !bytes.Equal(b, first) {
				t.Fatalf("parallelism %d: the file differs from parallelism 1's", par)
			}
			continue
		}
		first = b
		f := openParquet(t, b)
		groups := f.Metadata().RowGroups
		for _, rg := range groups {
			// At most 64 KiB and a run of 1024 rows of 252 bytes.
			if values := 4 * rg.Columns[1].MetaData.NumValues; values > 64<<10+1024*252 {
				t.Errorf("a row group of %d rows holds %d bytes of lists", rg.NumRows, values)
			}
		}
		if len(groups) < 3 {
			t.Fatalf("%d row groups, want at least 3", len(groups))
		}
		if got := readBack[embedding](t, dir); !reflect.DeepEqual(got, rows) {
			t.Fatalf("read back %d rows, not the rows written", len(got))
		}
	}
}

// TestStructWriterCoverage: the types that parquet-go's writer keeps.
func TestStructWriterCoverage(t *testing.T) {
	type nested struct {
		A struct {
			X int `parquet:"x"`
		} `parquet:"a"`
	}
	type mapped struct {
		M map[string]int `parquet:"m"`
	}
	type pointers struct {
		P []*int `parquet:"p"`
	}
	type compressed struct {
		S string `parquet:"s,snappy"`
	}
	type jsonText struct {
		S string `parquet:"s,json"`
	}
	type local struct {
		T time.Time `parquet:"t,timestamp(millisecond:local)"`
	}
	for name, got := range map[string]bool{
		"pqRow":      shards.WritesOwnStructs[pqRow](),
		"nested":     shards.WritesOwnStructs[nested](),
		"nestedRow":  shards.WritesOwnStructs[nestedRow](),
		"mapped":     shards.WritesOwnStructs[mapped](),
		"pointers":   shards.WritesOwnStructs[pointers](),
		"compressed": shards.WritesOwnStructs[compressed](),
		"jsonText":   shards.WritesOwnStructs[jsonText](),
		"local":      shards.WritesOwnStructs[local](),
	} {
		if want := name == "pqRow" || name == "nested" || name == "nestedRow"; got != want {
			t.Errorf("%s: written by rowflow's writer: %v, want %v", name, got, want)
		}
	}
}

// TestStructWriterTimeRange: a time.Time that its column's unit cannot
// hold fails the run, naming the column and the row, where parquet-go
// wrote a number that reads back as another time.
func TestStructWriterTimeRange(t *testing.T) {
	type event struct {
		ID int64     `parquet:"id"`
		At time.Time `parquet:"at"`
	}
	rows := []event{{1, time.Unix(0, 0)}, {2, time.Time{}}}
	var ids []rowid.ID
	for it, err := range flow.Items[event](t.Context(), flow.From(sources.Slice(rows))) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	dir := filepath.Join(t.TempDir(), "out")
	err := flow.From(sources.Slice(rows)).To(shards.Parquet[event](dir)).Run(t.Context())
	var se *flow.StageError
	if !errors.As(err, &se) || !se.HasID || se.ID != ids[1] || !strings.Contains(err.Error(), `column "at"`) || !strings.Contains(err.Error(), "out of the range") {
		t.Fatalf("got %v, want a row error naming column at", err)
	}
	if _, err := os.Stat(filepath.Join(dir, shards.ManifestName(0))); err == nil {
		t.Fatal("a manifest was written")
	}
}
