package shards

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
	"github.com/rowflow/rowflow/internal/testutil"
)

// fastValue puts v with fast into an empty required column of kind k and
// returns the value it holds then, or false if fast did not take v (and
// then failing t if fast put anything).
func fastValue(t *testing.T, fast func(any, int, int, *colOut) bool, k parquet.Kind, v any) (parquet.Value, bool) {
	c := new(pqwrite.Column)
	if !fast(v, 0, 0, &colOut{c: c}) {
		if len(c.Boolean)+len(c.Int32)+len(c.Int64)+len(c.Double)+len(c.Bytes)+len(c.Offsets) > 0 {
			t.Errorf("%v ← %T %#v: not taken, but put", k, v, v)
		}
		return parquet.Value{}, false
	}
	switch k {
	case parquet.Boolean:
		return parquet.BooleanValue(c.Boolean[0]), len(c.Boolean) == 1
	case parquet.Int32:
		return parquet.Int32Value(c.Int32[0]), len(c.Int32) == 1
	case parquet.Int64:
		return parquet.Int64Value(c.Int64[0]), len(c.Int64) == 1
	case parquet.Double:
		return parquet.DoubleValue(c.Double[0]), len(c.Double) == 1
	case parquet.ByteArray:
		return parquet.ByteArrayValue(c.Bytes), len(c.Offsets) == 2
	}
	t.Fatalf("fastLeaf serves %v", k)
	return parquet.Value{}, false
}

// TestFastLeafAgrees converts values of every kind fastLeaf takes, and
// some it leaves, to each column type it serves: where it converts, the
// value is the one leafConverter gives, and leafConverter accepts it;
// where leafConverter refuses a value, fastLeaf leaves it (so the error
// is leafConverter's).
func TestFastLeafAgrees(t *testing.T) {
	types := []parquet.Node{
		parquet.Leaf(parquet.BooleanType), parquet.Leaf(parquet.Int32Type), parquet.Leaf(parquet.Int64Type),
		parquet.Leaf(parquet.DoubleType), parquet.Leaf(parquet.ByteArrayType), parquet.String(),
		parquet.Int(32), parquet.Int(64), parquet.Int(16), parquet.Uint(32), parquet.Uint(64),
		parquet.Leaf(parquet.FloatType), parquet.Date(), parquet.Decimal(2, 12, parquet.Int64Type),
	}
	texts := []string{"", "0", "-0", "+5", "-", "7", "-42", "123456789012345678", "-123456789012345678",
		"1234567890123456789", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"2147483647", "2147483648", "-2147483648", "-2147483649", "32768", "1e3", "1.5", "-1.25", "NaN",
		"inf", "x", " 1", "1 ", "0x10", "1_000", "007", "true", "false", "T", "2024-01-02", "héllo"}
	// Random decimals of up to 17 digits, which the float fast path
	// (textnum.Float) takes up to 15 and must read bit for bit as strconv.
	texts = append(texts, testutil.Decimals(rand.New(rand.NewPCG(3, 4)), 2000, 17)...)
	var vals []any
	for _, s := range texts {
		vals = append(vals, s, json.Number(s), []byte(s))
	}
	vals = append(vals, nil, true, int32(-5), int32(1<<30), int64(1<<40), int64(-1<<31), int64(-1<<31-1),
		int(3), uint32(4), uint64(1<<63), float64(2.5), float64(3), float32(1.5), []any{1})
	fastTypes := 0
	for _, node := range types {
		typ := node.Type()
		fast := fastLeaf(typ)
		if fast == nil {
			continue
		}
		fastTypes++
		slow, err := leafConverter(typ)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			name := fmt.Sprintf("%v ← %T %#v", typ, v, v)
			want, werr := slow(v)
			got, ok := fastValue(t, fast, typ.Kind(), v)
			switch {
			case ok && werr != nil:
				t.Errorf("%s: fastLeaf gives %v, leafConverter refuses it: %v", name, got, werr)
			case ok && got.Kind() == parquet.Double && math.Float64bits(got.Double()) == math.Float64bits(want.Double()):
			case ok && !parquet.Equal(got, want):
				t.Errorf("%s: fastLeaf gives %v, leafConverter %v", name, got, want)
			case ok && got.Kind() != want.Kind():
				t.Errorf("%s: fastLeaf gives a %v, leafConverter a %v", name, got.Kind(), want.Kind())
			}
		}
	}
	if fastTypes != 8 {
		t.Errorf("fastLeaf serves %d of the types, want 8 (bool, int32, int64, double, bytes, string, int(32), int(64))", fastTypes)
	}
}
