package operators

import (
	"reflect"
	"testing"

	"github.com/rowflow/rowflow/rowid"
)

// The tag parser: names from the collate tag, the parquet tag or the Go
// name; options over the stage's defaults; fields left out.
func TestCollateFields(t *testing.T) {
	type tagged struct {
		A []int32   `collate:"input_ids,pad=0,left,multiple=8"`
		B []int64   `collate:"labels,pad=-100"`
		C float32   `collate:",pad=1.5"`
		D []uint8   `parquet:"d_col,optional" collate:",right,length=12,multiple=1"`
		E int16     `parquet:"e_col"`
		F []float64 `parquet:"-"`
		G bool
		H string
		I []int32 `collate:"-"`
		//lint:ignore U1000 the field is there to be left out: an unexported field is not a column
		j  int32
		K  *int32
		L  [4]int32
		M  struct{ X int32 }
		N  []bool
		O  map[string]int32
		P  uint      `collate:"p,pad=18446744073709551615"`
		Q  []int8    `collate:"q,pad=-128,length=3,left,right"`
		RR []float32 `collate:"r,pad=-Inf"`
	}
	def := shapeConfig{padLeft: true, padMult: 2, padLength: 20}
	fields, err := collateFields(reflect.TypeFor[tagged](), def)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range fields {
		got = append(got, fields[i].String())
	}
	want := []string{
		"input_ids:[]int32 pad=0 left=true multiple=8 length=20",
		"labels:[]int64 pad=-100 left=true multiple=2 length=20",
		"C:float32 pad=1.5",
		"d_col:[]uint8 pad=0 left=false multiple=1 length=12",
		"e_col:int16 pad=0",
		"F:[]float64 pad=0 left=true multiple=2 length=20",
		"G:bool pad=0",
		"p:uint pad=18446744073709551615",
		"q:[]int8 pad=-128 left=false multiple=2 length=3",
		"r:[]float32 pad=-Inf left=true multiple=2 length=20",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fields:\n%q\nwant\n%q", got, want)
	}
	if off := reflect.TypeFor[tagged]().Field(4).Offset; fields[4].off != off {
		t.Errorf("field E at offset %d, want %d", fields[4].off, off)
	}
}

// benchRows is a batch of 32 token lists of 0 to 127 tokens.
func benchRows() [][]int32 {
	rows := make([][]int32, 32)
	for i := range rows {
		rows[i] = make([]int32, (i*7919)%128)
	}
	return rows
}

// Collate of a struct with one []int32 field costs about what Pad of
// the same token lists costs: the benchmarks report ns/row for each.
func BenchmarkCollatePad(b *testing.B) {
	type one struct{ Tokens []int32 }
	rows := benchRows()
	ids := make([]rowid.ID, len(rows))
	structs := make([]one, len(rows))
	for i := range rows {
		structs[i] = one{rows[i]}
	}
	b.Run("Pad", func(b *testing.B) {
		op := &padOp[int32]{cfg: shapeConfig{name: "pad", padMult: 8}}
		r := Rows[[]int32]{Values: rows, IDs: ids}
		for b.Loop() {
			if _, err := op.pad(r); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
	})
	b.Run("Collate", func(b *testing.B) {
		cfg := shapeConfig{name: "collate", padMult: 8}
		fields, err := collateFields(reflect.TypeFor[one](), cfg)
		if err != nil {
			b.Fatal(err)
		}
		op := &collateOp[one]{fields: fields, cfg: cfg}
		r := Rows[one]{Values: structs, IDs: ids}
		for b.Loop() {
			if _, err := op.collate(r); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
	})
}
