package operators_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// packEx is a training example whose labels and loss mask travel with its
// input ids; the tokens are not its first slice field.
type packEx struct {
	Labels []int64  `collate:"labels,pad=-100"`
	Input  []int32  `collate:"input_ids,tokens"`
	Mask   []uint8  `parquet:"loss_mask"`
	Weight float32  `collate:"weight,pad=1"`
	Note   string   // left out
	Extra  []string // left out
}

// packExamples returns n examples of 0 to 3L tokens (some of exactly L,
// some longer than a row), each field's values telling example and
// position apart.
func packExamples(n, L int, seed uint64) []packEx {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]packEx, n)
	for i := range out {
		k := r.IntN(3*L + 1)
		if r.IntN(8) == 0 {
			k = L
		}
		e := packEx{Input: make([]int32, k), Labels: make([]int64, k), Mask: make([]uint8, k), Weight: float32(i) + 0.5}
		for j := range k {
			e.Input[j] = int32(i*1000 + j + 1)
			e.Labels[j] = -int64(i*1000 + j + 1)
			e.Mask[j] = uint8(1 + (i+j)%3)
		}
		out[i] = e
	}
	return out
}

// packFieldsRef lays out the columns of a row that Pack made of the
// examples' tokens, from its segments alone: each segment's values of a
// field are the member's values from its offset, as many as the segment
// has positions, then the field's pad value to the row's length; weight
// is the member's weight per segment.
func packFieldsRef(p operators.Packed[int32], byID map[rowid.ID]packEx) (labels []int64, mask []uint8, weight []float32) {
	for s, m := range p.Members {
		e := byID[m]
		n := 0
		for _, seg := range p.Segments {
			if seg == int32(s+1) {
				n++
			}
		}
		off := int(p.Offsets[s])
		labels = append(labels, e.Labels[off:off+n]...)
		mask = append(mask, e.Mask[off:off+n]...)
		weight = append(weight, e.Weight)
	}
	for len(labels) < len(p.Tokens) {
		labels = append(labels, -100)
		mask = append(mask, 0)
	}
	return labels, mask, weight
}

// PackFields packs as Pack packs the tokens field, with the same layout,
// partitions and (under the same name) IDs, over random examples, windows
// and overlong policies, at several parallelisms of the stage before it;
// the other fields are cut and padded as a plain reference lays them out.
func TestPackFieldsMatchesPack(t *testing.T) {
	const L = 16
	for _, seed := range []uint64{1, 2} {
		exs := packExamples(150, L, seed)
		src := func(par int) *flow.Pipeline {
			return flow.From(sources.Slice(exs, sources.PartitionItems(7))).
				Via(operators.Map(func(e packEx) (packEx, error) { return e, nil })).Parallel(par)
		}
		byID := map[rowid.ID]packEx{}
		for it, err := range flow.Items[packEx](context.Background(), src(1)) {
			if err != nil {
				t.Fatal(err)
			}
			byID[it.ID] = it.Value
		}
		for _, w := range []int{1, 4, 16} {
			for _, o := range []overlong{splitOverlong, dropOverlong} {
				for _, par := range []int{1, 4} {
					t.Run(fmt.Sprintf("seed%d/w%d/%v/par%d", seed, w, o, par), func(t *testing.T) {
						opts := withOverlong(o, operators.Window(w), operators.PartitionItems(3), operators.Named("pack"))
						want := collect[operators.Packed[int32]](t, flow.From(sources.Slice(exs, sources.PartitionItems(7))).
							Via(operators.Map(func(e packEx) ([]int32, error) { return e.Input, nil })).Parallel(par).
							Via(operators.Pack(L, int32(0), opts...)))
						got := collect[operators.PackedColumns](t, src(par).Via(operators.PackFields[packEx](L, opts...)))
						if len(got) != len(want) || len(want) < 20 {
							t.Fatalf("%d rows, Pack made %d", len(got), len(want))
						}
						for i, g := range got {
							wi, p := want[i], want[i].Value
							if g.Part != wi.Part || g.ID != wi.ID {
								t.Fatalf("row %d: partition %d ID %s, Pack's %d %s", i, g.Part, g.ID, wi.Part, wi.ID)
							}
							v := g.Value
							if !slices.Equal(v.Segments, p.Segments) || !slices.Equal(v.Positions, p.Positions) ||
								!slices.Equal(v.Members, p.Members) || !slices.Equal(v.Offsets, p.Offsets) {
								t.Fatalf("row %d: layout %+v, Pack's %+v", i, v, p)
							}
							labels, mask, weight := packFieldsRef(p, byID)
							names := make([]string, len(v.Columns))
							for j, c := range v.Columns {
								names[j] = c.Name
							}
							if !slices.Equal(names, []string{"labels", "input_ids", "loss_mask", "weight"}) {
								t.Fatalf("columns %v", names)
							}
							for j, c := range []struct {
								data  any
								shape []int
							}{{labels, []int{L}}, {p.Tokens, []int{L}}, {mask, []int{L}}, {weight, []int{len(p.Members)}}} {
								col := v.Columns[j]
								if !reflect.DeepEqual(col.Data, c.data) || !slices.Equal(col.Shape, c.shape) || col.Lengths != nil || col.Mask != nil {
									t.Fatalf("row %d column %s: %+v, want data %v shape %v", i, col.Name, col, c.data, c.shape)
								}
							}
						}
					})
				}
			}
		}
	}
}

// Without Named, the rows' IDs fold from "packfields", not Pack's.
func TestPackFieldsIDs(t *testing.T) {
	exs := packExamples(20, 8, 3)
	got := collect[operators.PackedColumns](t, flow.From(sources.Slice(exs)).Via(operators.PackFields[packEx](8)))
	want := collect[operators.Packed[int32]](t, flow.From(sources.Slice(exs)).
		Via(operators.Map(func(e packEx) ([]int32, error) { return e.Input, nil })).Via(operators.Pack(8, int32(0))))
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if g, w := got[i].ID, want[i].ID; g == w {
			t.Fatalf("row %d: the ID of Pack's row", i)
		}
	}
}

// A field whose length differs from the tokens' fails the run, naming the
// column, the partition and the row.
func TestPackFieldsLengthMismatch(t *testing.T) {
	exs := packExamples(40, 8, 4)
	exs[23].Input = []int32{1, 2, 3}
	exs[23].Labels = []int64{1, 2, 3}
	exs[23].Mask = []uint8{1, 1}
	p := flow.From(sources.Slice(exs, sources.PartitionItems(10))).Via(operators.PackFields[packEx](8))
	var ids []rowid.ID
	for it, err := range flow.Items[packEx](context.Background(), flow.From(sources.Slice(exs, sources.PartitionItems(10)))) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	_, err := matrixCollect[operators.PackedColumns](p)
	var se *flow.StageError
	if !errors.As(err, &se) || se.Stage != "packfields" || !se.HasPart || se.Part != 2 || !se.HasID || se.ID != ids[23] {
		t.Fatalf("error %v, want one at partition 2 row %s", err, ids[23])
	}
	if msg := err.Error(); !strings.Contains(msg, "column loss_mask has 2 values, its tokens (input_ids) 3") || !strings.Contains(msg, "partition 2") {
		t.Fatalf("error %q does not name the column, its length and the partition", msg)
	}
}

// Tags and types PackFields refuses, before the pipeline runs; the
// tokens option only PackFields takes.
func TestPackFieldsBadFields(t *testing.T) {
	type left struct {
		A []int32 `collate:"a,left"`
	}
	type twoTokens struct {
		A []int32 `collate:"a,tokens"`
		B []int32 `collate:"b,tokens"`
	}
	type noSlice struct {
		A int32
	}
	type scalarTokens struct {
		A int32 `collate:"a,tokens"`
		B []int32
	}
	type badPad struct {
		A []uint8 `collate:"a,pad=-1"`
	}
	type tokens struct {
		A []int32 `collate:"a,tokens"`
	}
	toks := [][]int32{{1}}
	for name, c := range map[string]struct {
		p    *flow.Pipeline
		want string
	}{
		"left":          {flow.From(sources.Slice([]left{{}})).Via(operators.PackFields[left](4)), "only pad= applies"},
		"two tokens":    {flow.From(sources.Slice([]twoTokens{{}})).Via(operators.PackFields[twoTokens](4)), "columns a and b of"},
		"no slice":      {flow.From(sources.Slice([]noSlice{{}})).Via(operators.PackFields[noSlice](4)), "no field of a slice of numbers"},
		"scalar tokens": {flow.From(sources.Slice([]scalarTokens{{}})).Via(operators.PackFields[scalarTokens](4)), "only pad= applies to a field that is not a slice"},
		"bad pad":       {flow.From(sources.Slice([]badPad{{}})).Via(operators.PackFields[badPad](4)), "pad=-1"},
		"not a struct":  {flow.From(sources.Slice(toks)).Via(operators.PackFields[[]int32](4)), "packfields: []int32 is not a struct"},
		"length":        {flow.From(sources.Slice([]tokens{{}})).Via(operators.PackFields[tokens](0)), "PackFields(0)"},
		"collate tokens": {flow.From(sources.Slice([]operators.Rows[tokens]{{}})).Via(operators.Collate[tokens]()),
			`tag option "tokens": only PackFields takes it`},
	} {
		_, err := matrixCollect[operators.PackedColumns](c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", name, err, c.want)
		}
	}
}

// Every setting of PackFields, the tags' included, is in the fingerprint.
func TestPackFieldsFingerprint(t *testing.T) {
	type padA struct {
		A []int32 `collate:"a,pad=0"`
		B []int32
	}
	type padB struct {
		A []int32 `collate:"a,pad=1"`
		B []int32
	}
	type tokB struct {
		A []int32 `collate:"a,pad=0"`
		B []int32 `collate:",tokens"`
	}
	a := func(opts ...operators.PackOption) *flow.Pipeline {
		return flow.From(sources.Slice([]padA{{}})).Via(operators.PackFields[padA](8, opts...))
	}
	base := a().Fingerprint()
	if a().Fingerprint() != base {
		t.Fatal("two builds of one pipeline differ")
	}
	for name, p := range map[string]*flow.Pipeline{
		"length":   flow.From(sources.Slice([]padA{{}})).Via(operators.PackFields[padA](9)),
		"window":   a(operators.Window(3)),
		"overlong": a(operators.DropOverlong()),
		"per part": a(operators.PartitionItems(2)),
		"named":    a(operators.Named("pack")),
		"pad":      flow.From(sources.Slice([]padB{{}})).Via(operators.PackFields[padB](8)),
		"tokens":   flow.From(sources.Slice([]tokB{{}})).Via(operators.PackFields[tokB](8)),
	} {
		if p.Fingerprint() == base {
			t.Errorf("%s: the fingerprint does not change", name)
		}
	}
}

// PackFields resumes from every checkpoint, at every parallelism of the
// stages around it, to exactly the rest of the run.
func TestResumeMatrixPackFields(t *testing.T) {
	for _, o := range []overlong{splitOverlong, dropOverlong} {
		t.Run(fmt.Sprint(o), func(t *testing.T) {
			exs := packExamples(300, 10, 5)
			build := func(par int) *flow.Pipeline {
				return flow.From(sources.Slice(exs, sources.PartitionItems(9))).
					Via(operators.Filter(func(e packEx) bool { return len(e.Input)%7 != 3 })).Parallel(par).
					Via(operators.PackFields[packEx](10, withOverlong(o, operators.Window(4), operators.PartitionItems(3))...)).
					Via(operators.Map(func(r operators.PackedColumns) (operators.PackedColumns, error) { return r, nil })).Parallel(par).
					Epochs(2).WithSeed(7)
			}
			matrixResume[operators.PackedColumns](t, build, matrixOpts{stops: 6, min: 60})
		})
	}
}
