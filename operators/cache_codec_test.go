package operators_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
)

// A disk cache of []int32 rows uses NumbersCodec: a file built with it
// explicitly is replayed by a plain Cache, and one built with gob is
// refused.
func TestCacheDefaultCodecForNumberRows(t *testing.T) {
	tokens := flow.From(source(500, 50, 16)).Via(operators.Map(func(v int64) ([]int32, error) {
		r := make([]int32, v%9)
		for k := range r {
			r[k] = int32(v*10 + int64(k))
		}
		return r, nil
	})).Parallel(2)
	items := func(p *flow.Pipeline) ([]flow.Item[[]int32], error) {
		var out []flow.Item[[]int32]
		for it, err := range flow.Items[[]int32](t.Context(), p) {
			if err != nil {
				return out, err
			}
			out = append(out, it)
		}
		return out, nil
	}
	want, err := items(tokens)
	if err != nil {
		t.Fatal(err)
	}
	// A replay gives each empty row as nil, as a gob cache does.
	same := func(what string, got []flow.Item[[]int32], replay bool) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
		}
		for i := range got {
			if got[i].Part != want[i].Part || got[i].ID != want[i].ID || !slices.Equal(got[i].Value, want[i].Value) || replay && (got[i].Value == nil) != (len(want[i].Value) == 0) {
				t.Fatalf("%s: item %d is %+v, want %+v", what, i, got[i], want[i])
			}
		}
	}
	dir := t.TempDir()
	numbers := filepath.Join(dir, "numbers")
	got, err := items(flow.From(operators.CacheWithCodec[[]int32](tokens, operators.NumbersCodec[int32]{}, operators.OnDisk(numbers))))
	if err != nil {
		t.Fatalf("build with NumbersCodec: %v", err)
	}
	same("first pass", got, false)
	// The default codec replays it: it is the same codec.
	got, err = items(flow.From(operators.Cache[[]int32](tokens, operators.OnDisk(numbers))).Parallel(3))
	if err != nil {
		t.Fatalf("the default codec on a NumbersCodec cache: %v; want a replay", err)
	}
	same("replay", got, true)
	gob := filepath.Join(dir, "gob")
	if _, err := items(flow.From(operators.CacheWithCodec[[]int32](tokens, operators.GobCodec[[]int32]{}, operators.OnDisk(gob)))); err != nil {
		t.Fatal(err)
	}
	if _, err := items(flow.From(operators.Cache[[]int32](tokens, operators.OnDisk(gob)))); err == nil || !strings.Contains(err.Error(), "built by another pipeline") {
		t.Fatalf("the default codec on a gob cache: %v, want a refusal", err)
	}
}
