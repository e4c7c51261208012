package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// Packed is one fixed-length row of packed sequences, as LLM pre-training
// loaders feed a model: Tokens holds the row's tokens, and per token
// Segments gives the number (from 1) of the sequence it belongs to within
// the row, 0 for padding, and Positions its position within that
// sequence (0 for padding). Per segment, Members gives the row ID of the
// sequence it came from and Offsets where the segment starts in that
// sequence: 0 unless the sequence was split (see [Pack]).
type Packed[E Number] struct {
	Tokens    []E
	Segments  []int32
	Positions []int32
	Members   []rowid.ID
	Offsets   []int32
}

// Pack returns a stage that packs variable-length token sequences into
// rows of exactly length tokens, padded with pad, each row one item whose
// value is a [Packed].
//
// Packing is greedy within a window of [Window] sequences (default 16):
// the row being filled takes the first sequence of the window that still
// fits; when none fits, the row is emitted and a new one starts with the
// oldest sequence of the window. A window of 1 packs in stream order. A
// sequence of exactly length tokens makes a row of its own at once. A
// sequence longer than a row is cut into pieces of length tokens, each a
// row of its own, and a shorter last piece that enters the window, so the
// pieces of a sequence stay in order (the default); or, with
// [DropOverlong], the whole sequence is dropped. Empty sequences are
// skipped.
//
// A packed row's ID folds, from the stage's fixed ID, the ID of each
// segment: the sequence's row ID, or for piece k of a split sequence that
// ID's Fork followed by k calls of Next, so two rows cut from one long
// sequence do not share an ID. Members keeps the sequences' own IDs.
//
// Pack is serial; its output partitions hold [PartitionItems] rows
// (default 16). Memory is the window and the row being filled. Its
// state in a checkpoint lists the [flow.Mark] of each sequence it holds, at
// most the window plus the segments of one row. [PackFields] packs
// structs alike, their other fields going with their tokens.
func Pack[E Number](length int, pad E, opts ...PackOption) flow.Stage {
	return flow.NewStage[[]E, Packed[E]](newPackOp(length, pad, opts))
}

func newPackOp[E Number](length int, pad E, opts []PackOption) *packOp[[]E, Packed[E]] {
	op := newPacker[[]E, Packed[E]]("pack", "Pack", length, opts)
	op.settings = fmt.Sprintf("length=%d pad=%v", length, pad)
	op.size = func(toks []E) (int, error) { return len(toks), nil }
	op.build = func(segs []seq[[]E], l packLayout) Packed[E] {
		r := Packed[E]{Tokens: make([]E, 0, length), Segments: l.Segments, Positions: l.Positions, Members: l.Members, Offsets: l.Offsets}
		for _, s := range segs {
			r.Tokens = append(r.Tokens, s.val[s.offset:s.offset+s.n]...)
		}
		for len(r.Tokens) < length {
			r.Tokens = append(r.Tokens, pad)
		}
		return r
	}
	return op
}

// newPacker returns the packing of values V into rows R of length items,
// for Pack and PackFields (fn, the stage named name by default) to give
// the size of a value and build a row.
func newPacker[V, R any](name, fn string, length int, opts []PackOption) *packOp[V, R] {
	op := &packOp[V, R]{length: length, cfg: shapeConfig{name: name, perPart: 16, window: 16}}
	op.err = configure(&op.cfg, opts)
	if op.err == nil && length < 1 {
		op.err = fmt.Errorf("operators: %s(%d): the row length must be at least 1", fn, length)
	}
	return op
}

// packOpt is taken by Pack.
type packOpt struct{ option }

func (packOpt) packOption() {}

// Window sets how many sequences Pack looks ahead to fill a row (default
// 16).
func Window(n int) PackOption {
	return packOpt{option{"Window", func(c *shapeConfig) error {
		if n < 1 {
			return fmt.Errorf("Window(%d): must be at least 1", n)
		}
		c.window = n
		return nil
	}}}
}

// DropOverlong makes [Pack] and [PackFields] drop every sequence longer
// than a row. The default splits such a sequence into pieces of the row
// length, each packed as a sequence of its own.
func DropOverlong() PackOption {
	return packOpt{option{"DropOverlong", func(c *shapeConfig) error {
		c.overlong = overlongDrop
		return nil
	}}}
}

// packOp packs values V, each a sequence of size items, into rows R: it
// decides which sequences, or pieces of them, make each row, and build
// lays the row out.
type packOp[V, R any] struct {
	length   int
	cfg      shapeConfig
	err      error
	settings string // the settings of the stage beyond cfg's

	// size returns how many items v has, or why v cannot be packed.
	size func(v V) (int, error)
	// build lays out a row of the segments segs, whose layout is l.
	build func(segs []seq[V], l packLayout) R
}

// packLayout is the layout of a packed row: the fields of [Packed] but
// Tokens.
type packLayout struct {
	Segments  []int32
	Positions []int32
	Members   []rowid.ID
	Offsets   []int32
}

func (p *packOp[V, R]) Info() flow.Info {
	return flow.Info{Name: p.cfg.name, Serial: "it packs rows across partitions", Settings: p.cfg.settings(p.settings)}
}

// Err reports a bad length or option.
func (p *packOp[V, R]) Err() error { return p.err }

func (p *packOp[V, R]) NewProcessor(env flow.Env) flow.Processor[V, R] {
	if p.err != nil {
		return failed[V, R]{p.err}
	}
	pp := &packProc[V, R]{op: p, base: rowid.FromString(p.cfg.name), out: outParts[R]{per: p.cfg.perPart, steps: newStepLimit(&p.cfg, env, nil)}}
	r, err := resumeRegroup(p.cfg.name, env, &pp.in, &pp.out)
	if err != nil {
		return failed[V, R]{err}
	}
	if r != nil {
		pp.resumed = r
		pp.skipAt, pp.skipPieces = r.Next, r.Piece
		pp.restore = &packRestore[V]{next: r.Next, window: map[flow.Mark]bool{}, row: map[flow.Mark]int{}, slots: make([]seq[V], len(r.Row))}
		for _, m := range r.Held {
			pp.restore.window[m] = true
		}
		for i, m := range r.Row {
			pp.restore.row[m] = i
		}
	}
	return pp
}

// packRestore is what a resumed Pack rebuilds before it goes on: the
// sequences of the window and of the row being filled, found again by
// their marks as the input is replayed up to next.
type packRestore[V any] struct {
	next   flow.Mark
	window map[flow.Mark]bool
	row    map[flow.Mark]int // segment index
	slots  []seq[V]

	restoreWindow []seq[V]
}

// seq is a sequence, or a piece of one, waiting in the window: items
// offset to offset+n of the value val.
type seq[V any] struct {
	val    V
	offset int32
	n      int32
	member rowid.ID // the sequence's row ID
	id     rowid.ID // the piece's ID
	mark   flow.Mark
}

type packProc[V, R any] struct {
	op     *packOp[V, R]
	base   rowid.ID
	in     inCursor
	window []seq[V]
	row    []seq[V] // the segments of the row being filled
	used   int      // items of row filled
	piece  int      // pieces handled of the sequence being read, if not all
	out    outParts[R]

	resumed    *regroupState   // the state the processor resumed from
	restore    *packRestore[V] // while replaying up to the resume point
	skipAt     flow.Mark       // the sequence whose first skipPieces pieces
	skipPieces int             // were given out before the resume point
}

func (p *packProc[V, R]) Process(ctx context.Context, c flow.Chunk[V], out flow.Emitter[R]) error {
	defer c.Release()
	at := p.in.at(c.Part)
	if p.restore != nil && p.out.crosses(c.Part) {
		p.restored()
	}
	if err := epochStart(ctx, p, &p.out, out, c.Part); err != nil {
		return err
	}
	L := p.op.length
	for k, v := range c.Values {
		mark := flow.Mark{Part: at.Part, Row: at.Row + int64(k)}
		if p.restore != nil && !before(mark, p.restore.next) {
			p.restored()
		}
		skip := 0
		if p.skipPieces > 0 && mark == p.skipAt {
			skip, p.skipPieces = p.skipPieces, 0
		}
		id := c.IDs.At(k)
		size, err := p.op.size(v)
		if err != nil {
			return flow.ErrorAt(&c, k, err)
		}
		if size > L && p.op.cfg.overlong == overlongDrop {
			continue
		}
		pieceID := id
		if size > L {
			pieceID = id.Fork()
		}
		for j, off := 0, 0; off < size; j, off = j+1, off+L {
			n := min(L, size-off)
			s := seq[V]{val: v, offset: int32(off), n: int32(n), member: id, id: pieceID, mark: mark}
			pieceID = pieceID.Next()
			if j < skip {
				continue // given out before the resume point
			}
			if p.restore != nil {
				p.restore.keep(s, n == L)
				continue
			}
			if off+L >= size {
				p.in.to(at, k+1) // the sequence's last piece
				p.piece = 0
			} else {
				p.in.to(at, k)
				p.piece = j + 1
			}
			if n == L {
				if err := p.whole(ctx, out, s); err != nil {
					return err
				}
				continue
			}
			p.window = append(p.window, s)
			for len(p.window) >= p.op.cfg.window {
				if err := p.place(ctx, out); err != nil {
					return err
				}
			}
		}
	}
	p.in.advance(at, len(c.Values), c.End)
	return p.out.sync(ctx, out)
}

// keep puts a replayed sequence back where it was held, if it was: in
// the window, in stream order, or in its slot of the row. Whole rows and
// what was not held were delivered.
func (r *packRestore[V]) keep(s seq[V], whole bool) {
	switch i, inRow := r.row[s.mark]; {
	case whole:
	case inRow:
		r.slots[i] = s
	case r.window[s.mark]:
		r.restoreWindow = append(r.restoreWindow, s)
	}
}

// restored ends the replay: the row gets its segments back in order and
// the window its sequences.
func (p *packProc[V, R]) restored() {
	r := p.restore
	p.restore = nil
	for _, s := range r.slots {
		p.put(s)
	}
	p.window = append(p.window, r.restoreWindow...)
}

// Checkpoint reports the stage's state after the rows it has pushed: the
// marks of the sequences in its window (Held) and in the row being filled
// (Row, in segment order), and the input position (Next, and Piece pieces
// of the sequence there); From is the oldest of them.
func (p *packProc[V, R]) Checkpoint() (any, flow.Mark) {
	if p.restore != nil {
		return p.resumed, p.resumed.From // not yet back at the resume point
	}
	next := p.in.next()
	s := state(&p.out, next)
	s.Next, s.Piece = next, p.piece
	for _, w := range p.window {
		s.Held = append(s.Held, w.mark)
		if before(w.mark, s.From) {
			s.From = w.mark
		}
	}
	s.Row = make([]flow.Mark, len(p.row))
	for i, seg := range p.row {
		s.Row[i] = seg.mark
		if before(seg.mark, s.From) {
			s.From = seg.mark
		}
	}
	return &s, s.From
}

// whole emits a sequence that fills a row by itself, leaving the row being
// filled as it is.
func (p *packProc[V, R]) whole(ctx context.Context, out flow.Emitter[R], s seq[V]) error {
	segs := []seq[V]{s}
	return p.out.put(ctx, out, p.op.build(segs, p.layout(segs)), p.base.Combine(s.id))
}

// place moves one sequence from the window into the row: the first that
// fits, or, if none does, the oldest into a new row.
func (p *packProc[V, R]) place(ctx context.Context, out flow.Emitter[R]) error {
	room := p.op.length - p.used
	pick := -1
	for i, s := range p.window {
		if int(s.n) <= room {
			pick = i
			break
		}
	}
	if pick < 0 {
		if err := p.emit(ctx, out); err != nil {
			return err
		}
		pick = 0
	}
	s := p.window[pick]
	p.window = append(p.window[:pick], p.window[pick+1:]...)
	p.put(s)
	if p.used == p.op.length {
		return p.emit(ctx, out)
	}
	return nil
}

// put appends s to the row being filled.
func (p *packProc[V, R]) put(s seq[V]) {
	p.row = append(p.row, s)
	p.used += int(s.n)
}

// layout lays out a row of the segments segs.
func (p *packProc[V, R]) layout(segs []seq[V]) packLayout {
	L := p.op.length
	l := packLayout{Segments: make([]int32, L), Positions: make([]int32, L),
		Members: make([]rowid.ID, len(segs)), Offsets: make([]int32, len(segs))}
	at := 0
	for i, s := range segs {
		for j := range int(s.n) {
			l.Segments[at+j] = int32(i + 1)
			l.Positions[at+j] = int32(j)
		}
		at += int(s.n)
		l.Members[i], l.Offsets[i] = s.member, s.offset
	}
	return l
}

// emit lays out the row, if it has segments, and pushes it.
func (p *packProc[V, R]) emit(ctx context.Context, out flow.Emitter[R]) error {
	if len(p.row) == 0 {
		return nil
	}
	id := p.base
	for _, s := range p.row {
		id = id.Combine(s.id)
	}
	r := p.op.build(p.row, p.layout(p.row))
	p.row, p.used = nil, 0
	return p.out.put(ctx, out, r, id)
}

func (p *packProc[V, R]) Flush(ctx context.Context, out flow.Emitter[R]) error {
	return flush(ctx, p, &p.out, out)
}

func (p *packProc[V, R]) end(ctx context.Context, out flow.Emitter[R]) error {
	if p.restore != nil {
		p.restored()
	}
	for len(p.window) > 0 {
		if err := p.place(ctx, out); err != nil {
			return err
		}
	}
	return p.emit(ctx, out)
}
