package operators_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

type score float32

type pieces []uint16

// example is a training example with a field of every sort Collate
// handles, and some it leaves out.
type example struct {
	ID     int64     // untagged: column ID
	Tokens []int32   `parquet:"tokens,optional"`       // named by its parquet tag, padded by the options
	Labels []int64   `collate:"labels,pad=-100,right"` // always on the right
	Weight float32   `collate:"w,pad=0.5"`             // padding members weigh 0.5
	Flag   bool      // untagged bool
	Text   string    // left out: a string
	Small  []uint8   `collate:",pad=7,left,multiple=3"`  // column Small
	Fixed  []float64 `collate:"fixed,length=9,pad=-1.5"` // always 9 wide, or a multiple
	hidden int32     // left out: unexported
	Other  []int16   `collate:"-"` // left out by its tag
	Score  score     // a named float32: []float32
	Pieces pieces    `parquet:"-" collate:",pad=65535,multiple=4"` // a named []uint16
	Ptr    *int32    // left out: a pointer
}

// makeExample makes row i of a run: random values, rows of 0 to 16
// values (0 to 9 for Fixed).
func makeExample(seed uint64, i int64) example {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	list := func(max int) int { return r.IntN(max + 1) }
	e := example{ID: i, Weight: r.Float32(), Flag: r.IntN(2) == 1, Text: "t", hidden: 3, Score: score(r.NormFloat64())}
	for range list(16) {
		e.Tokens = append(e.Tokens, r.Int32())
	}
	for range list(16) {
		e.Labels = append(e.Labels, r.Int64N(1000)-500)
	}
	for range list(16) {
		e.Small = append(e.Small, uint8(r.IntN(256)))
	}
	for range list(9) {
		e.Fixed = append(e.Fixed, r.NormFloat64())
	}
	for range list(16) {
		e.Other = append(e.Other, 1)
	}
	for range list(16) {
		e.Pieces = append(e.Pieces, uint16(r.IntN(65535)))
	}
	return e
}

// refVector is the column of a number or bool field, written plainly.
func refVector[T, E any](name string, r operators.Rows[T], get func(T) E, pad E) operators.Column {
	data := make([]E, len(r.Values))
	for i, e := range r.Values {
		data[i] = get(e)
		if i >= len(r.Values)-r.Padding {
			data[i] = pad
		}
	}
	return operators.Column{Name: name, Shape: []int{len(r.Values)}, Data: data}
}

// refMatrix is the column of a slice field, written plainly.
func refMatrix[T, E any](name string, r operators.Rows[T], get func(T) []E, pad E, left bool, mult, length int) operators.Column {
	n := len(r.Values)
	real := func(i int) []E {
		if i >= n-r.Padding {
			return nil
		}
		return get(r.Values[i])
	}
	width := length
	if length == 0 {
		for i := range n {
			width = max(width, len(real(i)))
		}
	}
	for width%mult != 0 {
		width++
	}
	c := operators.Column{Name: name, Shape: []int{n, width}, Data: []E{}, Mask: []bool{}, Lengths: []int32{}}
	data := make([]E, 0, n*width)
	for i := range n {
		row := real(i)
		start := 0
		if left {
			start = width - len(row)
		}
		for j := range width {
			if j >= start && j < start+len(row) {
				data = append(data, row[j-start])
				c.Mask = append(c.Mask, true)
			} else {
				data = append(data, pad)
				c.Mask = append(c.Mask, false)
			}
		}
		c.Lengths = append(c.Lengths, int32(len(row)))
	}
	c.Data = data
	return c
}

// refCollate is Collate of an example batch with the defaults left, mult
// and length, written plainly from the tags above.
func refCollate(r operators.Rows[example], left bool, mult, length int) operators.Collated {
	cols := []operators.Column{
		refVector("ID", r, func(e example) int64 { return e.ID }, 0),
		refMatrix("tokens", r, func(e example) []int32 { return e.Tokens }, 0, left, mult, length),
		refMatrix("labels", r, func(e example) []int64 { return e.Labels }, -100, false, mult, length),
		refVector("w", r, func(e example) float32 { return e.Weight }, 0.5),
		refVector("Flag", r, func(e example) bool { return e.Flag }, false),
		refMatrix("Small", r, func(e example) []uint8 { return e.Small }, 7, true, 3, length),
		refMatrix("fixed", r, func(e example) []float64 { return e.Fixed }, -1.5, left, mult, 9),
		refVector("Score", r, func(e example) float32 { return float32(e.Score) }, 0),
		refMatrix("Pieces", r, func(e example) []uint16 { return e.Pieces }, 65535, left, 4, length),
	}
	return operators.Collated{Columns: cols, IDs: r.IDs}
}

// Collate agrees with the plain reference over random examples, batch
// sizes, remainders and options, at parallelism 1 and 4, and keeps every
// item's ID and partition and every member's ID.
func TestCollate(t *testing.T) {
	for round := range 12 {
		r := rand.New(rand.NewPCG(uint64(round), 99))
		rows, size := int64(1+r.IntN(300)), 1+r.IntN(40)
		left, mult, length := r.IntN(2) == 1, []int{1, 2, 8}[r.IntN(3)], []int{0, 16, 17}[r.IntN(3)]
		last := []remainder{keepRemainder, padRemainder}[r.IntN(2)]
		var opts []operators.PadOption
		if left {
			opts = append(opts, operators.PadLeft())
		}
		if mult > 1 || r.IntN(2) == 1 {
			opts = append(opts, operators.PadMultiple(mult))
		}
		if length > 0 {
			opts = append(opts, operators.PadLength(length))
		}
		name := fmt.Sprintf("rows %d size %d %v left %t multiple %d length %d", rows, size, last, left, mult, length)
		t.Run(name, func(t *testing.T) {
			src := sources.Generate(rows, func(i int64) (example, error) { return makeExample(uint64(round), i), nil },
				sources.Named(srcName), sources.PartitionItems(1+r.IntN(50)), sources.ChunkSize(1+r.IntN(20)))
			batches := func(p int) *flow.Pipeline {
				return flow.From(src).Parallel(p).Via(operators.Batch[example](size, withRemainder[operators.BatchOption](last, operators.PartitionItems(3))...))
			}
			var want []flow.Item[operators.Collated]
			for _, it := range collect[operators.Rows[example]](t, batches(1)) {
				want = append(want, flow.Item[operators.Collated]{Part: it.Part, ID: it.ID, Value: refCollate(it.Value, left, mult, length)})
			}
			for _, p := range []int{1, 4} {
				got := collect[operators.Collated](t, batches(p).Via(operators.Collate[example](opts...)).Parallel(p))
				sameItems(t, fmt.Sprintf("parallelism %d", p), got, want)
			}
			if round < 3 {
				verify[operators.Collated](t, func(p int) *flow.Pipeline {
					return batches(p).Via(operators.Collate[example](opts...)).Parallel(p)
				})
			}
		})
	}
}

// A row longer than its field's fixed length fails the run with an error
// that names the column, the partition and the row; so does a row longer
// than PadLength.
func TestCollateTooLong(t *testing.T) {
	type fixed struct {
		Tokens []int32 `collate:"tokens,length=4"`
	}
	src := func() flow.Source[fixed] {
		return sources.Generate(100, func(i int64) (fixed, error) { return fixed{Tokens: tokens(i)}, nil },
			sources.Named(srcName), sources.PartitionItems(30), sources.ChunkSize(16))
	}
	for _, c := range []struct {
		stage flow.Stage
		msg   string
	}{
		{operators.Collate[fixed](), "more than its length 4"},
		{operators.Collate[fixed](operators.PadLength(3)), "more than its length 4"}, // the tag wins
	} {
		var err error
		for _, err = range flow.Items[operators.Collated](t.Context(), flow.From(src()).Via(operators.Batch[fixed](4)).Via(c.stage).Parallel(2)) {
			if err != nil {
				break
			}
		}
		// Row 1 has 7919 % 13 = 2 tokens, row 2 has 4, row 3 has 6: member
		// 3 of the first batch, in output partition 0.
		for _, s := range []string{"collate: column tokens: member 3", sourceID(3).String(), "partition 0", c.msg} {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("error %v: want one with %q", err, s)
			}
		}
	}
	type free struct{ Tokens []int32 }
	p := flow.From(sources.Generate(100, func(i int64) (free, error) { return free{tokens(i)}, nil }, sources.Named(srcName))).
		Via(operators.Batch[free](4)).Via(operators.Collate[free](operators.PadLength(5)))
	var err error
	for _, err = range flow.Items[operators.Collated](t.Context(), p) {
		if err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "column Tokens: member 3 (row "+sourceID(3).String()+") has 6 values, more than its length 5") {
		t.Errorf("error %v: want one naming row 3 and length 5", err)
	}
}

// buildErr is the error of a pipeline that collates batches of T: the
// pipeline's own, or else its run's.
func buildErr[T any](t *testing.T, opts ...operators.PadOption) error {
	t.Helper()
	p := flow.From(sources.Slice(make([]T, 3))).Via(operators.Batch[T](2)).Via(operators.Collate[T](opts...))
	if err := p.Err(); err != nil {
		return err
	}
	for _, err := range flow.Items[operators.Collated](t.Context(), p) {
		if err != nil {
			return err
		}
	}
	t.Errorf("Collate[%T] built and ran", *new(T))
	return nil
}

// A struct Collate cannot take, or a bad tag or option, fails the
// pipeline before it runs, naming the field and what is wrong.
func TestCollateBadFields(t *testing.T) {
	type (
		text   struct{ S string }
		tagged struct {
			S string `collate:"s"`
		}
		private struct {
			//lint:ignore U1000 the field is there to be refused: an unexported field cannot be read
			n int32 `collate:"n"`
		}
		twice struct {
			A int32 `parquet:"x"`
			B int64 `collate:"x"`
		}
		unknown struct {
			A []int32 `collate:"a,pad=1,wide"`
		}
		leftVec struct {
			A int32 `collate:"a,left"`
		}
		overflow struct {
			A []uint8 `collate:"a,pad=-1"`
		}
		notNumber struct {
			A []float32 `collate:"a,pad=x"`
		}
		notBool struct {
			A bool `collate:"a,pad=2"`
		}
		zeroMult struct {
			A []int32 `collate:"a,multiple=0"`
		}
		badLength struct {
			A []int32 `collate:"a,length=ten"`
		}
		bools struct {
			A []bool `collate:"a"`
		}
		fine struct{ A []int32 }
	)
	for _, c := range []struct {
		err error
		msg string
	}{
		{buildErr[int](t), "operators: collate: int is not a struct"},
		{buildErr[text](t), "has no field of a number, a bool or a slice of numbers"},
		{buildErr[tagged](t), "field S of operators_test.tagged is tagged but its type string is not a number, a bool or a slice of numbers"},
		{buildErr[private](t), "field n of operators_test.private is tagged but not exported"},
		{buildErr[twice](t), `fields A and B of operators_test.twice both make column "x"`},
		{buildErr[unknown](t), `field A of operators_test.unknown: tag option "wide": want pad=V, left, right, multiple=K or length=N`},
		{buildErr[leftVec](t), `tag option "left": only pad= applies to a field that is not a slice`},
		{buildErr[overflow](t), "pad=-1: not a value of uint8"},
		{buildErr[notNumber](t), "pad=x: not a value of float32"},
		{buildErr[notBool](t), "pad=2: not a bool"},
		{buildErr[zeroMult](t), `tag option "multiple=0": "0" is not a whole number of at least 1`},
		{buildErr[badLength](t), `tag option "length=ten": "ten" is not a whole number of at least 1`},
		{buildErr[bools](t), "its type []bool is not a number"},
		{buildErr[fine](t, operators.PadMultiple(0)), "operators: collate: PadMultiple(0): must be at least 1"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.msg) {
			t.Errorf("error %v: want one with %q", c.err, c.msg)
		}
	}
}

// The options of Collate are part of the pipeline's fingerprint, so a
// checkpoint of one layout does not resume another.
func TestCollateFingerprint(t *testing.T) {
	build := func(opts ...operators.PadOption) *flow.Pipeline {
		return flow.From(sources.Slice(make([]example, 10))).Via(operators.Batch[example](4)).Via(operators.Collate[example](opts...))
	}
	fps := map[string]string{}
	for name, opts := range map[string][]operators.PadOption{
		"none": nil, "left": {operators.PadLeft()}, "multiple": {operators.PadMultiple(4)}, "length": {operators.PadLength(20)},
	} {
		fp := build(opts...).Fingerprint()
		if again := build(opts...).Fingerprint(); again != fp {
			t.Errorf("%s: two fingerprints %s and %s", name, fp, again)
		}
		if other, ok := fps[fp]; ok {
			t.Errorf("options %s and %s give one fingerprint", name, other)
		}
		fps[fp] = name
	}
}

// A pipeline that buckets and collates resumes from every checkpoint
// with exactly the rest of its batches.
func TestCollateResume(t *testing.T) {
	type seq struct {
		N    int64
		Toks []int32 `collate:"toks,pad=-1,multiple=4"`
	}
	seqs := matrixSeqs(200)
	rows := make([]seq, len(seqs))
	for i, s := range seqs {
		rows[i] = seq{int64(i), s}
	}
	build := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(rows, sources.PartitionItems(19))).
			Via(operators.BucketByLength(func(s seq) int { return len(s.Toks) }, operators.Buckets([]int{3, 8}, []int{5, 3, 2}), operators.PartitionItems(2))).
			Via(operators.Collate[seq]()).Parallel(par).
			Epochs(2)
	}
	matrixResume[operators.Collated](t, build, matrixOpts{stops: 4, min: 30})
}
