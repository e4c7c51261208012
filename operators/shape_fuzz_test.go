package operators_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// FuzzShape checks the stages that shape sequences for a model against
// plain references written from their docs: Pack (packSerial,
// checkPacked), PackFields (packSerial and packFieldsRef), and Batch
// followed by Pad or Collate (batchSerial, refMatrix, refCollate).
//
// A seed draws the input sequences (from none to 90 of them, of lengths
// 0, below, at, above and at multiples of the row length, random values),
// the source's partition and chunk sizes, the number of epochs, the
// stage and its options (Window, DropOverlong, PartitionItems, Named
// for the packers; Batch's size and remainder policy, PadLeft, PadMultiple,
// PadLength and whether Pad or Collate runs on several workers), with an
// identity Map on several workers before it. Every item of the run —
// value, row ID, partition — must be the reference's, at parallelism 1,
// 2, 4 and 8, and resumed from checkpoints at other parallelisms
// (matrixResume); the packed rows must keep every token of every
// sequence not dropped exactly once, and the padded batches every row.
// Some seeds draw a bad option, which must be the pipeline's error; a
// row longer than PadLength (or a field's length), or a PackFields field
// whose length differs from its tokens', which must fail the run with an
// error naming the stage, the partition and the row, after items that
// the reference gives first.
func FuzzShape(f *testing.F) {
	for i := range testutil.FuzzSeeds(64) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 7)
	}
	// PackFields with example 12 of 90, in the middle of a chunk, whose
	// labels outnumber its tokens: the error names that example's row.
	f.Add(uint64(5232703935550177738))
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
		s := &shapeDraw{r: r}
		switch r.IntN(4) {
		case 0:
			fuzzPack(t, s)
		case 1:
			fuzzPackFields(t, s)
		case 2:
			fuzzPad(t, s)
		default:
			fuzzCollate(t, s)
		}
	})
}

// shapeDraw draws what the four cases share and describes it.
type shapeDraw struct {
	r           *rand.Rand
	part, chunk int
	epochs      int64
	desc        []string
}

func (s *shapeDraw) pick(xs ...int) int { return xs[s.r.IntN(len(xs))] }

func (s *shapeDraw) say(format string, args ...any) {
	s.desc = append(s.desc, fmt.Sprintf(format, args...))
}

// count draws how many sequences the source holds, and its partition
// and chunk sizes and the epochs.
func (s *shapeDraw) count() int {
	n := s.pick(0, 1, 3, 10, 40, 90)
	s.part, s.chunk, s.epochs = s.pick(1, 2, 7, 32), s.pick(1, 3, 1024), int64(1+s.r.IntN(2))
	s.say("%d rows, partitions of %d, chunks of %d, %d epochs", n, s.part, s.chunk, s.epochs)
	return n
}

// length draws a sequence length around a row length L: empty, shorter,
// exactly L, a multiple of L, or longer.
func (s *shapeDraw) length(L int) int {
	switch s.r.IntN(7) {
	case 0:
		return 0
	case 1:
		return L
	case 2:
		return L * (2 + s.r.IntN(2))
	case 3:
		return L + 1 + s.r.IntN(2*L)
	default:
		return 1 + s.r.IntN(max(L-1, 1))
	}
}

// tokens draws n tokens.
func (s *shapeDraw) tokens(n int) []int32 {
	t := make([]int32, n)
	for i := range t {
		t[i] = s.r.Int32N(2000) - 1000
	}
	return t
}

// bad reports whether this seed draws a bad option (one in eight).
func (s *shapeDraw) bad() bool { return s.r.IntN(8) == 0 }

// shapeInput is the source of vals, with the drawn partition and chunk
// sizes, and an identity Map on par workers.
func shapeInput[T any](s *shapeDraw, vals []T) func(par int) *flow.Pipeline {
	part, chunk := s.part, s.chunk
	return func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(vals, sources.PartitionItems(part), sources.ChunkSize(chunk), sources.Named(srcName))).
			Via(operators.Map(func(v T) (T, error) { return v, nil })).Parallel(par)
	}
}

// shapeIDs are the row IDs of the source's first n rows.
func shapeIDs(n int) []rowid.ID {
	ids := make([]rowid.ID, n)
	for i := range ids {
		ids[i] = sourceID(int64(i))
	}
	return ids
}

// inEpochs repeats one epoch's items for every epoch: each epoch is
// shaped on its own, its output partitions numbered within it.
func inEpochs[T any](one []flow.Item[T], epochs int64) []flow.Item[T] {
	var all []flow.Item[T]
	for e := range epochs {
		for _, it := range one {
			it.Part = epoch.Part(e, it.Part)
			all = append(all, it)
		}
	}
	return all
}

// shapeMatches checks build's runs against want, the reference's items
// of every epoch, and returns the serial run's.
func shapeMatches[T any](t *testing.T, s *shapeDraw, build func(par int) *flow.Pipeline, want []flow.Item[T]) []flow.Item[T] {
	t.Helper()
	epochs := s.epochs
	b := func(par int) *flow.Pipeline { return build(par).Epochs(epochs) }
	got := matrixResume[T](t, b, matrixOpts{stride: 1 + len(want)/6, stops: 2})
	sameItems(t, "the serial run", got, want)
	return got
}

// shapeFails checks that build fails at every parallelism with an error
// that check accepts, after the serial run's items, which are a prefix of
// want.
func shapeFails[T any](t *testing.T, s *shapeDraw, build func(par int) *flow.Pipeline, want []flow.Item[T], check func(err error) string) {
	t.Helper()
	var serial []flow.Item[T]
	for _, par := range matrixPars {
		got, err := matrixCollect[T](build(par).Epochs(s.epochs))
		if err == nil {
			t.Fatalf("parallelism %d: no error", par)
		}
		if msg := check(err); msg != "" {
			t.Fatalf("parallelism %d: error %v: %s", par, err, msg)
		}
		if par == 1 {
			serial = got
			if len(got) > len(want) || !itemsEqual(got, want[:len(got)]) {
				t.Fatalf("the items before the error are not the reference's first: %s", firstDiff(got, want[:min(len(got), len(want))]))
			}
		} else if !itemsEqual(got, serial) {
			t.Fatalf("parallelism %d: the items before the error are not the serial run's: %s", par, firstDiff(got, serial))
		}
	}
}

// stageErr checks that err is a StageError of stage at partition part
// and row id whose message holds msg.
func stageErr(err error, stage string, part int64, id rowid.ID, msg string) string {
	var se *flow.StageError
	switch {
	case !errors.As(err, &se):
		return "not a StageError"
	case se.Stage != stage || !se.HasPart || se.Part != part || !se.HasID || se.ID != id:
		return fmt.Sprintf("want stage %q, partition %d, row %s", stage, part, id)
	case !strings.Contains(err.Error(), msg):
		return fmt.Sprintf("want one saying %q", msg)
	}
	return ""
}

// shapeRefused checks that a pipeline with a bad option keeps an error
// saying want, and that its run gives that error and no item.
func shapeRefused[T any](t *testing.T, p *flow.Pipeline, want string) {
	t.Helper()
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("the pipeline's error is %v, want one saying %q", err, want)
	}
	got, err := matrixCollect[T](p)
	if err == nil || len(got) > 0 {
		t.Fatalf("the run gave %d items and error %v", len(got), err)
	}
}

// packDraw is a drawn configuration of Pack or PackFields.
type packDraw struct {
	L, window, per int
	policy         overlong
	name           string
	opts           []operators.PackOption
	badWant        string // what the error of a bad option says, or ""
}

// drawPack draws the row length and options of a packer whose default
// name is name.
func drawPack(s *shapeDraw, name string) packDraw {
	d := packDraw{L: s.pick(1, 2, 3, 5, 8, 16), window: 16, per: 16, name: name}
	if w := s.pick(0, 1, 2, 3, 16, 100); w > 0 {
		d.window = w
		d.opts = append(d.opts, operators.Window(w))
	}
	if k := s.r.IntN(3); k > 0 {
		d.policy = []overlong{splitOverlong, dropOverlong}[k-1]
		d.opts = withOverlong(d.policy, d.opts...)
	}
	if per := s.pick(0, 1, 2, 5); per > 0 {
		d.per = per
		d.opts = append(d.opts, operators.PartitionItems(per))
	}
	if s.r.IntN(3) == 0 {
		d.name = []string{"pack", "shaped"}[s.r.IntN(2)]
		d.opts = append(d.opts, operators.Named(d.name))
	}
	if s.bad() {
		switch k := s.r.IntN(4); k {
		case 0:
			d.L = s.pick(0, -3)
			d.badWant = fmt.Sprintf("(%d): the row length must be at least 1", d.L)
		case 1:
			w := s.pick(0, -1)
			d.opts, d.badWant = append(d.opts, operators.Window(w)), fmt.Sprintf("Window(%d): must be at least 1", w)
		case 2:
			d.opts, d.badWant = append(d.opts, operators.PartitionItems(0)), "PartitionItems(0): must be at least 1"
		default:
			d.opts, d.badWant = append(d.opts, operators.Named("")), `Named(""): empty name`
		}
	}
	s.say("L %d, window %d, %v, %d per partition, named %q, options %d, bad %q", d.L, d.window, d.policy, d.per, d.name, len(d.opts), d.badWant)
	return d
}

// fuzzPack checks Pack.
func fuzzPack(t *testing.T, s *shapeDraw) {
	n := s.count()
	d := drawPack(s, "pack")
	pad := int32(s.pick(-1, 0, 7))
	seqs := make([][]int32, n)
	for i := range seqs {
		seqs[i] = s.tokens(s.length(max(d.L, 1)))
	}
	t.Logf("Pack: %s; pad %d", strings.Join(s.desc, "; "), pad)
	input := shapeInput(s, seqs)
	build := func(par int) *flow.Pipeline { return input(par).Via(operators.Pack(d.L, pad, d.opts...)) }
	if d.badWant != "" {
		shapeRefused[operators.Packed[int32]](t, build(2), d.badWant)
		return
	}
	ids := shapeIDs(n)
	want := packSerial(seqs, ids, d.L, pad, d.window, d.policy, d.name, d.per)
	got := shapeMatches(t, s, build, inEpochs(want, s.epochs))
	checkPacked(t, splitEpochs(t, got, s.epochs)[0], seqs, ids, d.L, pad, d.window, d.policy)
}

// fuzzPackFields checks PackFields over packEx: the layout and IDs of
// the packed tokens as packSerial gives them, and the other fields laid
// out by packFieldsRef. Some seeds give one example a field of another
// length than its tokens.
func fuzzPackFields(t *testing.T, s *shapeDraw) {
	n := s.count()
	d := drawPack(s, "packfields")
	exs := make([]packEx, n)
	seqs := make([][]int32, n)
	for i := range exs {
		tok := s.tokens(s.length(max(d.L, 1)))
		e := packEx{Input: tok, Labels: make([]int64, len(tok)), Mask: make([]uint8, len(tok)), Weight: float32(s.r.IntN(100)) / 4, Note: "n"}
		for j := range tok {
			e.Labels[j], e.Mask[j] = s.r.Int64N(1<<40), uint8(s.r.IntN(256))
		}
		exs[i], seqs[i] = e, tok
	}
	bad, badField := -1, ""
	if n > 0 && d.badWant == "" && s.r.IntN(3) == 0 {
		bad = s.r.IntN(n)
		if s.r.IntN(2) == 0 {
			exs[bad].Labels, badField = append(exs[bad].Labels, 1), "labels"
		} else {
			exs[bad].Mask, badField = append(exs[bad].Mask, 1), "loss_mask"
		}
	}
	t.Logf("PackFields: %s; mismatched field %q at %d", strings.Join(s.desc, "; "), badField, bad)
	input := shapeInput(s, exs)
	build := func(par int) *flow.Pipeline { return input(par).Via(operators.PackFields[packEx](d.L, d.opts...)) }
	if d.badWant != "" {
		shapeRefused[operators.PackedColumns](t, build(2), d.badWant)
		return
	}
	ids := shapeIDs(n)
	if bad >= 0 {
		// The rows packed before the bad example came are the first rows
		// of the packing of the examples before it.
		var want []flow.Item[operators.PackedColumns]
		for _, it := range packSerial(seqs[:bad], ids[:bad], d.L, 0, d.window, d.policy, d.name, d.per) {
			want = append(want, packFieldsItem(it, d.L, exs, ids))
		}
		m := len(exs[bad].Labels)
		if badField == "loss_mask" {
			m = len(exs[bad].Mask)
		}
		msg := fmt.Sprintf("column %s has %d values, its tokens (input_ids) %d", badField, m, len(seqs[bad]))
		shapeFails(t, s, build, want, func(err error) string {
			return stageErr(err, d.name, int64(bad/s.part), ids[bad], msg)
		})
		return
	}
	var want []flow.Item[operators.PackedColumns]
	for _, it := range packSerial(seqs, ids, d.L, 0, d.window, d.policy, d.name, d.per) {
		want = append(want, packFieldsItem(it, d.L, exs, ids))
	}
	shapeMatches(t, s, build, inEpochs(want, s.epochs))
}

// packFieldsItem is the PackFields row of packEx for the Pack row it of
// their tokens: the same layout, ID and partition, and a column per
// field.
func packFieldsItem(it flow.Item[operators.Packed[int32]], L int, exs []packEx, ids []rowid.ID) flow.Item[operators.PackedColumns] {
	byID := make(map[rowid.ID]packEx, len(exs))
	for _, m := range it.Value.Members {
		byID[m] = exs[slices.Index(ids, m)]
	}
	p := it.Value
	labels, mask, weight := packFieldsRef(p, byID)
	cols := []operators.Column{
		{Name: "labels", Shape: []int{L}, Data: labels},
		{Name: "input_ids", Shape: []int{L}, Data: p.Tokens},
		{Name: "loss_mask", Shape: []int{L}, Data: mask},
		{Name: "weight", Shape: []int{len(p.Members)}, Data: weight},
	}
	v := operators.PackedColumns{Columns: cols, Segments: p.Segments, Positions: p.Positions, Members: p.Members, Offsets: p.Offsets}
	return flow.Item[operators.PackedColumns]{Part: it.Part, ID: it.ID, Value: v}
}

// batchDraw is a drawn Batch before Pad or Collate and the padding
// options after it.
type batchDraw struct {
	size, per    int
	last         remainder
	batchOpts    []operators.BatchOption
	left         bool
	mult, length int
	opts         []operators.PadOption
	parallel     bool
	badWant      string
}

func drawBatch(s *shapeDraw) batchDraw {
	d := batchDraw{size: s.pick(1, 2, 3, 7, 16), per: 16, mult: 1, parallel: s.r.IntN(3) > 0}
	if k := s.r.IntN(4); k > 0 {
		d.last = remainders[k-1]
		d.batchOpts = withRemainder(d.last, d.batchOpts...)
	}
	if per := s.pick(0, 1, 3); per > 0 {
		d.per = per
		d.batchOpts = append(d.batchOpts, operators.PartitionItems(per))
	}
	if s.r.IntN(2) == 0 {
		d.left = true
		d.opts = append(d.opts, operators.PadLeft())
	}
	if s.r.IntN(2) == 0 {
		d.mult = s.pick(1, 2, 4, 5)
		d.opts = append(d.opts, operators.PadMultiple(d.mult))
	}
	if s.r.IntN(3) == 0 {
		d.length = s.pick(1, 4, 9, 16, 40)
		d.opts = append(d.opts, operators.PadLength(d.length))
	}
	if s.r.IntN(2) == 0 {
		slices.Reverse(d.opts) // options apply in any order
	}
	if s.bad() {
		switch s.r.IntN(3) {
		case 0:
			k := s.pick(0, -2)
			d.opts, d.badWant = append(d.opts, operators.PadMultiple(k)), fmt.Sprintf("PadMultiple(%d): must be at least 1", k)
		case 1:
			k := s.pick(0, -1)
			d.opts, d.badWant = append(d.opts, operators.PadLength(k)), fmt.Sprintf("PadLength(%d): must be at least 1", k)
		default:
			d.size, d.badWant = 0, "Batch(0): the size must be at least 1"
		}
	}
	s.say("Batch(%d, %v, %d per partition), left %t, multiple %d, length %d, parallel %t, bad %q",
		d.size, d.last, d.per, d.left, d.mult, d.length, d.parallel, d.badWant)
	return d
}

// then adds stage after b, on par workers if drawn so.
func (d batchDraw) then(b *flow.Pipeline, stage flow.Stage, par int) *flow.Pipeline {
	b = b.Via(stage)
	if d.parallel {
		b = b.Parallel(par)
	}
	return b
}

// firstTooLong returns the first batch (by index) with a real member of
// more than limit(member, field) values for one of fields, which member
// and field: -1 if there is none.
func firstTooLong[T any](batches []flow.Item[operators.Rows[T]], fields int, size func(v T, field int) (n, limit int)) (batch, member, field int) {
	for b, it := range batches {
		rows := it.Value
		for f := range fields {
			for i, v := range rows.Values[:len(rows.Values)-rows.Padding] {
				if n, limit := size(v, f); limit > 0 && n > limit {
					return b, i, f
				}
			}
		}
	}
	return -1, -1, -1
}

// fuzzPad checks Batch then Pad against batchSerial and refMatrix.
func fuzzPad(t *testing.T, s *shapeDraw) {
	n := s.count()
	d := drawBatch(s)
	pad := int32(s.pick(-1, 0, 9))
	seqs := make([][]int32, n)
	L := s.pick(3, 8, 16)
	for i := range seqs {
		seqs[i] = s.tokens(s.length(L))
	}
	t.Logf("Pad: %s; pad %d", strings.Join(s.desc, "; "), pad)
	input := shapeInput(s, seqs)
	build := func(par int) *flow.Pipeline {
		return d.then(input(par).Via(operators.Batch[[]int32](d.size, d.batchOpts...)), operators.Pad(pad, d.opts...), par)
	}
	if d.badWant != "" {
		shapeRefused[operators.Padded[int32]](t, build(2), d.badWant)
		return
	}
	ids := shapeIDs(n)
	batches := batchSerial(seqs, ids, d.size, d.per, d.last)
	var want []flow.Item[operators.Padded[int32]]
	for _, it := range batches {
		col := refMatrix("", it.Value, func(v []int32) []int32 { return v }, pad, d.left, d.mult, d.length)
		v := operators.Padded[int32]{Data: col.Data.([]int32), Shape: [2]int{col.Shape[0], col.Shape[1]}, Lengths: col.Lengths, Mask: col.Mask, IDs: it.Value.IDs}
		want = append(want, flow.Item[operators.Padded[int32]]{Part: it.Part, ID: it.ID, Value: v})
	}
	if b, m, _ := firstTooLong(batches, 1, func(v []int32, _ int) (int, int) { return len(v), d.length }); b >= 0 {
		it := batches[b]
		msg := fmt.Sprintf("pad: member %d (row %s) has %d values, more than PadLength(%d)", m, it.Value.IDs[m], len(it.Value.Values[m]), d.length)
		shapeFails(t, s, build, want[:b], func(err error) string { return stageErr(err, "pad", it.Part, it.ID, msg) })
		return
	}
	got := shapeMatches(t, s, build, inEpochs(want, s.epochs))
	checkPadded(t, splitEpochs(t, got, s.epochs)[0], seqs, ids, d.size, d.last)
}

// checkPadded checks that padded batches hold, in order, every row of
// seqs (whose IDs are ids) once, the last short batch dropped under
// DropRemainder: each row's values where its mask is set, its length in
// Lengths, its ID in IDs; padding members empty with the zero ID.
func checkPadded(t *testing.T, items []flow.Item[operators.Padded[int32]], seqs [][]int32, ids []rowid.ID, size int, last remainder) {
	t.Helper()
	keep := len(seqs)
	if last == dropRemainder {
		keep -= keep % size
	}
	next := 0
	for b, it := range items {
		p := it.Value
		rows, w := p.Shape[0], p.Shape[1]
		if len(p.Data) != rows*w || len(p.Mask) != rows*w || len(p.Lengths) != rows || len(p.IDs) != rows || rows != size && b != len(items)-1 {
			t.Fatalf("batch %d: shape %v, %d values, %d mask, %d lengths, %d IDs", b, p.Shape, len(p.Data), len(p.Mask), len(p.Lengths), len(p.IDs))
		}
		for i := range rows {
			var real []int32
			for j := range w {
				if p.Mask[i*w+j] {
					real = append(real, p.Data[i*w+j])
				}
			}
			if next == keep {
				if p.IDs[i] != (rowid.ID{}) || p.Lengths[i] != 0 || len(real) != 0 {
					t.Fatalf("batch %d member %d: padding member %v with %d values", b, i, p.IDs[i], p.Lengths[i])
				}
				continue
			}
			if p.IDs[i] != ids[next] || int(p.Lengths[i]) != len(seqs[next]) || !slices.Equal(real, seqs[next]) {
				t.Fatalf("batch %d member %d: row %v, length %d, values %v; want row %d (%v) %v", b, i, p.IDs[i], p.Lengths[i], real, next, ids[next], seqs[next])
			}
			next++
		}
	}
	if next != keep {
		t.Fatalf("%d rows in the batches, want %d", next, keep)
	}
}

// fuzzCollate checks Batch then Collate of examples against batchSerial
// and refCollate. Some examples have a fixed column longer than its tag's
// length=9.
func fuzzCollate(t *testing.T, s *shapeDraw) {
	n := s.count()
	d := drawBatch(s)
	exs := make([]example, n)
	seed := s.r.Uint64()
	for i := range exs {
		exs[i] = makeExample(seed, int64(i))
		if s.r.IntN(40) == 0 {
			exs[i].Fixed = append(exs[i].Fixed, make([]float64, 10-len(exs[i].Fixed))...)
		}
	}
	t.Logf("Collate: %s; examples from seed %d", strings.Join(s.desc, "; "), seed)
	input := shapeInput(s, exs)
	build := func(par int) *flow.Pipeline {
		return d.then(input(par).Via(operators.Batch[example](d.size, d.batchOpts...)), operators.Collate[example](d.opts...), par)
	}
	if d.badWant != "" {
		shapeRefused[operators.Collated](t, build(2), d.badWant)
		return
	}
	batches := batchSerial(exs, shapeIDs(n), d.size, d.per, d.last)
	var want []flow.Item[operators.Collated]
	for _, it := range batches {
		want = append(want, flow.Item[operators.Collated]{Part: it.Part, ID: it.ID, Value: refCollate(it.Value, d.left, d.mult, d.length)})
	}
	// The slice columns in field order, with their fixed lengths.
	cols := []struct {
		name   string
		get    func(example) int
		length int
	}{
		{"tokens", func(e example) int { return len(e.Tokens) }, d.length},
		{"labels", func(e example) int { return len(e.Labels) }, d.length},
		{"Small", func(e example) int { return len(e.Small) }, d.length},
		{"fixed", func(e example) int { return len(e.Fixed) }, 9},
		{"Pieces", func(e example) int { return len(e.Pieces) }, d.length},
	}
	if b, m, f := firstTooLong(batches, len(cols), func(e example, f int) (int, int) { return cols[f].get(e), cols[f].length }); b >= 0 {
		it, c := batches[b], cols[f]
		msg := fmt.Sprintf("collate: column %s: member %d (row %s) has %d values, more than its length %d", c.name, m, it.Value.IDs[m], c.get(it.Value.Values[m]), c.length)
		shapeFails(t, s, build, want[:b], func(err error) string { return stageErr(err, "collate", it.Part, it.ID, msg) })
		return
	}
	got := shapeMatches(t, s, build, inEpochs(want, s.epochs))
	// Every member of every batch, in order, and its ID.
	var members []rowid.ID
	for _, it := range splitEpochs(t, got, s.epochs)[0] {
		if !reflect.DeepEqual(it.Value.IDs, batchIDs(it.Value)) {
			t.Fatalf("batch %s: IDs %v", it.ID, it.Value.IDs)
		}
		members = append(members, it.Value.IDs...)
	}
	members = slices.DeleteFunc(members, func(id rowid.ID) bool { return id == (rowid.ID{}) })
	keep := n
	if d.last == dropRemainder {
		keep -= n % d.size
	}
	if !slices.Equal(members, shapeIDs(keep)) {
		t.Fatalf("the batches hold rows %v, want the first %d", members, keep)
	}
}

// batchIDs is the ID column of a collated batch read back as row IDs of
// the source: example.ID is the row's index.
func batchIDs(c operators.Collated) []rowid.ID {
	col, _ := c.Column("ID")
	var ids []rowid.ID
	for i, v := range col.Data.([]int64) {
		if c.IDs[i] == (rowid.ID{}) {
			ids = append(ids, rowid.ID{}) // a padding member
			continue
		}
		ids = append(ids, sourceID(v))
	}
	return ids
}
