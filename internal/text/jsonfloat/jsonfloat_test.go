package jsonfloat

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

type inner struct {
	X float32 `json:"x"`
	N string  `json:"n"`
}

type row struct {
	A      float64            `json:"a"`
	B      float32            `json:"b,omitempty"`
	P      *float64           `json:"p"`
	L      []float64          `json:"l"`
	Arr    [2]float32         `json:"arr"`
	In     inner              `json:"in"`
	Ins    []*inner           `json:"ins"`
	M      map[string]float64 `json:"m"`
	T      time.Time          `json:"t"`
	S      string             `json:"s"`
	hidden float64
	Named  score `json:"named"`
}

type score float64

func marshalShadow(t *testing.T, s reflect.Type, v *row) string {
	t.Helper()
	b, err := json.Marshal(reflect.NewAt(s, unsafe.Pointer(v)).Interface())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestShadowSameBytes checks that a value without NaN or infinities
// encodes through the shadow to the bytes encoding/json writes for it.
func TestShadowSameBytes(t *testing.T) {
	s, ok := Shadow(reflect.TypeFor[row]())
	if !ok {
		t.Fatal("no shadow for row")
	}
	p := 1e-7
	for _, v := range []row{
		{},
		{A: 1.5, B: 1e21, P: &p, L: []float64{0, -0.000001, 123456789e20}, Arr: [2]float32{0.1, 3.4028235e38},
			In: inner{X: 1e-7, N: "<&>"}, Ins: []*inner{nil, {X: 2}}, M: map[string]float64{"k": 1},
			T: time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC), S: "s", hidden: 9, Named: 0.25},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := marshalShadow(t, s, &v); got != string(want) {
			t.Errorf("shadow wrote\n%s\nencoding/json\n%s", got, want)
		}
	}
}

// TestShadowNonFinite checks that NaN and the infinities, at every depth
// the shadow reaches, encode as the three strings and decode back.
func TestShadowNonFinite(t *testing.T) {
	s, _ := Shadow(reflect.TypeFor[row]())
	nan, inf := math.NaN(), math.Inf(1)
	v := row{A: nan, B: float32(math.Inf(-1)), P: &inf, L: []float64{1, nan}, Arr: [2]float32{float32(inf), 2},
		In: inner{X: float32(nan)}, Ins: []*inner{{X: float32(-inf)}}, M: map[string]float64{"k": -inf, "j": 0.5}, Named: score(inf)}
	got := marshalShadow(t, s, &v)
	want := `{"a":"NaN","b":"-Inf","p":"+Inf","l":[1,"NaN"],"arr":["+Inf",2],"in":{"x":"NaN","n":""},"ins":[{"x":"-Inf","n":""}],` +
		`"m":{"j":0.5,"k":"-Inf"},"t":"0001-01-01T00:00:00Z","s":"","named":"+Inf"}`
	if got != want {
		t.Fatalf("wrote\n%s\nwant\n%s", got, want)
	}
	var back row
	if err := json.Unmarshal([]byte(got), reflect.NewAt(s, unsafe.Pointer(&back)).Interface()); err != nil {
		t.Fatal(err)
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	if !same(back.A, nan) || !same(float64(back.B), -inf) || back.P == nil || *back.P != inf ||
		len(back.L) != 2 || back.L[0] != 1 || !same(back.L[1], nan) || back.Arr != [2]float32{float32(inf), 2} ||
		!same(float64(back.In.X), nan) || len(back.Ins) != 1 || back.Ins[0].X != float32(-inf) || back.Named != score(inf) ||
		len(back.M) != 2 || back.M["k"] != -inf || back.M["j"] != 0.5 {
		t.Errorf("read back %+v", back)
	}
}

// TestShadowUnmarshalErrors checks that the shadow reads only the three
// strings, null and numbers that fit into floats.
func TestShadowUnmarshalErrors(t *testing.T) {
	var f Float32 = 7
	if err := json.Unmarshal([]byte(`null`), &f); err != nil || f != 7 {
		t.Errorf("null: %v, %v; want 7 kept", f, err)
	}
	for _, in := range []string{`"nan"`, `"Infinity"`, `"1"`, `1e40`, `true`, `{}`} {
		if err := json.Unmarshal([]byte(in), &f); err == nil {
			t.Errorf("%s read as %v, want an error", in, f)
		}
	}
	var d Float64
	if err := json.Unmarshal([]byte(`1e40`), &d); err != nil || d != 1e40 {
		t.Errorf("1e40 as a float64: %v, %v", d, err)
	}
}

// TestShadowNone checks the types that get no shadow: no floats, floats
// only in interfaces, and the shapes the shadow cannot keep.
func TestShadowNone(t *testing.T) {
	type list struct {
		V    float64
		Next *list
	}
	type embeds struct {
		inner
		Y float64
	}
	type quoted struct {
		F float64 `json:"f,string"`
	}
	type plain struct {
		S string
		M map[string]string
		A any
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[plain](), reflect.TypeFor[list](), reflect.TypeFor[embeds](),
		reflect.TypeFor[quoted](), reflect.TypeFor[time.Time](), reflect.TypeFor[json.Number](),
	} {
		if s, ok := Shadow(typ); ok {
			t.Errorf("%v has the shadow %v", typ, s)
		}
	}
}

// TestValue checks Value on the values of records.
func TestValue(t *testing.T) {
	in := []any{1.5, math.NaN(), float32(math.Inf(-1)), []any{math.Inf(1), "x"}, map[string]any{"k": math.NaN()}, nil}
	b, err := json.Marshal(Value(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[1.5,"NaN","-Inf",["+Inf","x"],{"k":"NaN"},null]`; string(b) != want {
		t.Errorf("wrote %s, want %s", b, want)
	}
}

// TestShadowMaps checks maps of floats, of slices of floats and of
// structs with floats, at a depth, through the shadow; and that a map
// the decoding made under the shadow type works under its own type: read,
// grown well past its first size, deleted from and encoded again.
func TestShadowMaps(t *testing.T) {
	type point struct {
		X, Y float32
		Tag  string
	}
	type maps struct {
		F  map[string]float64
		L  map[int][]float32
		P  map[string]point
		PP *map[string]*point
	}
	s, ok := Shadow(reflect.TypeFor[maps]())
	if !ok {
		t.Fatal("no shadow for maps")
	}
	nan, inf := math.NaN(), math.Inf(1)
	pp := map[string]*point{"n": nil, "q": {X: float32(-inf)}}
	v := maps{F: map[string]float64{"a": nan, "b": 1}, L: map[int][]float32{2: {float32(inf), 3}}, P: map[string]point{"p": {X: float32(nan), Y: 2, Tag: "t"}}, PP: &pp}
	b, err := json.Marshal(reflect.NewAt(s, unsafe.Pointer(&v)).Interface())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"F":{"a":"NaN","b":1},"L":{"2":["+Inf",3]},"P":{"p":{"X":"NaN","Y":2,"Tag":"t"}},"PP":{"n":null,"q":{"X":"-Inf","Y":0,"Tag":""}}}`
	if string(b) != want {
		t.Fatalf("wrote\n%s\nwant\n%s", b, want)
	}
	var back maps
	if err := json.Unmarshal(b, reflect.NewAt(s, unsafe.Pointer(&back)).Interface()); err != nil {
		t.Fatal(err)
	}
	if len(back.F) != 2 || !math.IsNaN(back.F["a"]) || back.F["b"] != 1 || len(back.L[2]) != 2 || back.L[2][0] != float32(inf) ||
		!math.IsNaN(float64(back.P["p"].X)) || back.P["p"].Tag != "t" || back.PP == nil || (*back.PP)["q"].X != float32(-inf) {
		t.Fatalf("read back %+v", back)
	}
	for i := range 5000 {
		back.F[strconv.Itoa(i)] = float64(i)
		back.P[strconv.Itoa(i)] = point{X: float32(i), Tag: strconv.Itoa(i)}
	}
	for i := range 5000 {
		if i%2 == 0 {
			delete(back.F, strconv.Itoa(i))
		}
	}
	for i := range 5000 {
		f, ok := back.F[strconv.Itoa(i)]
		if ok != (i%2 == 1) || ok && f != float64(i) || back.P[strconv.Itoa(i)].Tag != strconv.Itoa(i) {
			t.Fatalf("key %d after growing: %v, %v, %+v", i, f, ok, back.P[strconv.Itoa(i)])
		}
	}
	if len(back.F) != 2+2500 || len(back.P) != 5001 {
		t.Fatalf("%d and %d keys after growing", len(back.F), len(back.P))
	}
	b, err = json.Marshal(reflect.NewAt(s, unsafe.Pointer(&back)).Interface())
	if err != nil || !strings.Contains(string(b), `"4999":{"X":4999,"Y":0,"Tag":"4999"}`) || !strings.Contains(string(b), `"a":"NaN"`) {
		t.Fatalf("the grown maps wrote %.200s…, %v", b, err)
	}
}
