package operators

import (
	"context"
	"fmt"
	"slices"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// Packed is one fixed-length row of packed sequences, as LLM pre-training
// loaders feed a model: Tokens holds the row's tokens, and per token
// Segments gives the number (from 1) of the sequence it belongs to within
// the row, 0 for padding, and Positions its position within that
// sequence (0 for padding). Per segment, Members gives the row ID of the
// sequence it came from and Offsets where the segment starts in that
// sequence: 0 unless the sequence was split (see [SplitOverlong]).
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
// pieces of a sequence stay in order (SplitOverlong, the default); or the
// whole sequence is dropped (DropOverlong); see [OverlongPolicy]. Empty
// sequences are skipped.
//
// A packed row's ID folds, from the stage's fixed ID, the ID of each
// segment: the sequence's row ID, or for piece k of a split sequence that
// ID's Fork followed by k calls of Next, so two rows cut from one long
// sequence do not share an ID. Members keeps the sequences' own IDs.
//
// Pack is serial; its output partitions hold [PartitionItems] rows
// (default 16). Memory is the window and the row being filled. Its
// state in a checkpoint lists the [Mark] of each sequence it holds, at
// most the window plus the segments of one row.
func Pack[E Number](length int, pad E, opts ...PackOption) flow.Stage {
	return flow.NewStage[[]E, Packed[E]](newPackOp(length, pad, opts))
}

func newPackOp[E Number](length int, pad E, opts []PackOption) *packOp[E] {
	op := &packOp[E]{length: length, pad: pad, cfg: shapeConfig{name: "pack", perPart: 16, window: 16}}
	op.err = configure(&op.cfg, opts)
	if op.err == nil && length < 1 {
		op.err = fmt.Errorf("operators: Pack(%d): the row length must be at least 1", length)
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

// OverlongPolicy sets what Pack does with sequences longer than a row
// (default SplitOverlong).
func OverlongPolicy(o Overlong) PackOption {
	return packOpt{option{"OverlongPolicy", func(c *shapeConfig) error {
		if o != SplitOverlong && o != DropOverlong {
			return fmt.Errorf("OverlongPolicy(%d): unknown policy", int(o))
		}
		c.overlong = o
		return nil
	}}}
}

type packOp[E Number] struct {
	length int
	pad    E
	cfg    shapeConfig
	err    error
}

func (p *packOp[E]) Info() flow.Info {
	return flow.Info{Name: p.cfg.name, Serial: "it packs rows across partitions", Settings: p.cfg.settings(fmt.Sprintf("length=%d pad=%v", p.length, p.pad))}
}

// Err reports a bad length or option.
func (p *packOp[E]) Err() error { return p.err }

func (p *packOp[E]) NewProcessor(env flow.Env) flow.Processor[[]E, Packed[E]] {
	if p.err != nil {
		return failed[[]E, Packed[E]]{p.err}
	}
	pp := &packProc[E]{op: p, base: rowid.FromString(p.cfg.name), out: outParts[Packed[E]]{per: p.cfg.perPart, steps: newStepLimit(&p.cfg, env, nil)}}
	r, err := resumeRegroup(p.cfg.name, env, &pp.in, &pp.out)
	if err != nil {
		return failed[[]E, Packed[E]]{err}
	}
	if r != nil {
		pp.resumed = r
		pp.skipAt, pp.skipPieces = r.Next, r.Piece
		pp.restore = &packRestore[E]{next: r.Next, window: map[Mark]bool{}, row: map[Mark]int{}, slots: make([]seq[E], len(r.Row))}
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
type packRestore[E Number] struct {
	next   Mark
	window map[Mark]bool
	row    map[Mark]int // segment index
	slots  []seq[E]

	restoreWindow []seq[E]
}

// seq is a sequence, or a piece of one, waiting in the window.
type seq[E Number] struct {
	tokens []E
	member rowid.ID // the sequence's row ID
	id     rowid.ID // the piece's ID
	offset int32
	mark   Mark
}

type packProc[E Number] struct {
	op     *packOp[E]
	base   rowid.ID
	in     inCursor
	window []seq[E]
	row    Packed[E]
	used   int        // tokens of row filled
	ids    []rowid.ID // the segments' IDs
	held   []Mark     // marks of the row's segments
	piece  int        // pieces handled of the sequence being read, if not all
	out    outParts[Packed[E]]

	resumed    *regroupState   // the state the processor resumed from
	restore    *packRestore[E] // while replaying up to the resume point
	skipAt     Mark            // the sequence whose first skipPieces pieces
	skipPieces int             // were given out before the resume point
}

func (p *packProc[E]) Process(ctx context.Context, c flow.Chunk[[]E], out flow.Emitter[Packed[E]]) error {
	defer c.Release()
	at := p.in.at(c.Part)
	if p.restore != nil && p.out.crosses(c.Part) {
		p.restored()
	}
	if err := epochStart(ctx, p, &p.out, out, c.Part); err != nil {
		return err
	}
	L := p.op.length
	for k, toks := range c.Values {
		mark := Mark{Part: at.Part, Row: at.Row + int64(k)}
		if p.restore != nil && !before(mark, p.restore.next) {
			p.restored()
		}
		skip := 0
		if p.skipPieces > 0 && mark == p.skipAt {
			skip, p.skipPieces = p.skipPieces, 0
		}
		id := c.IDs.At(k)
		if len(toks) > L && p.op.cfg.overlong == DropOverlong {
			continue
		}
		pieceID := id
		if len(toks) > L {
			pieceID = id.Fork()
		}
		for j, off := 0, 0; off < len(toks); j, off = j+1, off+L {
			piece := toks[off:min(off+L, len(toks))]
			s := seq[E]{tokens: append([]E(nil), piece...), member: id, id: pieceID, offset: int32(off), mark: mark}
			pieceID = pieceID.Next()
			if j < skip {
				continue // given out before the resume point
			}
			if p.restore != nil {
				p.restore.keep(s, len(piece) == L)
				continue
			}
			if off+L >= len(toks) {
				p.in.to(at, k+1) // the sequence's last piece
				p.piece = 0
			} else {
				p.in.to(at, k)
				p.piece = j + 1
			}
			if len(piece) == L {
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
func (r *packRestore[E]) keep(s seq[E], whole bool) {
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
func (p *packProc[E]) restored() {
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
func (p *packProc[E]) Checkpoint() (any, Mark) {
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
	s.Row = slices.Clone(p.held)
	for _, m := range s.Row {
		if before(m, s.From) {
			s.From = m
		}
	}
	return &s, s.From
}

// whole emits a sequence that fills a row by itself, leaving the row being
// filled as it is.
func (p *packProc[E]) whole(ctx context.Context, out flow.Emitter[Packed[E]], s seq[E]) error {
	L := p.op.length
	r := Packed[E]{Tokens: s.tokens, Segments: make([]int32, L), Positions: make([]int32, L),
		Members: []rowid.ID{s.member}, Offsets: []int32{s.offset}}
	for j := range L {
		r.Segments[j], r.Positions[j] = 1, int32(j)
	}
	return p.out.put(ctx, out, r, p.base.Combine(s.id))
}

// place moves one sequence from the window into the row: the first that
// fits, or, if none does, the oldest into a new row.
func (p *packProc[E]) place(ctx context.Context, out flow.Emitter[Packed[E]]) error {
	room := p.op.length - p.used
	pick := -1
	for i, s := range p.window {
		if len(s.tokens) <= room {
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
func (p *packProc[E]) put(s seq[E]) {
	if p.row.Tokens == nil {
		L := p.op.length
		p.row = Packed[E]{Tokens: make([]E, 0, L), Segments: make([]int32, L), Positions: make([]int32, L)}
	}
	seg := int32(len(p.row.Members) + 1)
	for j := range s.tokens {
		p.row.Segments[p.used+j] = seg
		p.row.Positions[p.used+j] = int32(j)
	}
	p.row.Tokens = append(p.row.Tokens, s.tokens...)
	p.row.Members = append(p.row.Members, s.member)
	p.row.Offsets = append(p.row.Offsets, s.offset)
	p.ids = append(p.ids, s.id)
	p.held = append(p.held, s.mark)
	p.used += len(s.tokens)
}

// emit pads the row, if it has segments, and pushes it.
func (p *packProc[E]) emit(ctx context.Context, out flow.Emitter[Packed[E]]) error {
	if len(p.row.Members) == 0 {
		return nil
	}
	r := p.row
	for len(r.Tokens) < p.op.length {
		r.Tokens = append(r.Tokens, p.op.pad)
	}
	id := fold(p.base, p.ids)
	p.row, p.used, p.ids, p.held = Packed[E]{}, 0, p.ids[:0], p.held[:0]
	return p.out.put(ctx, out, r, id)
}

func (p *packProc[E]) Flush(ctx context.Context, out flow.Emitter[Packed[E]]) error {
	return flush(ctx, p, &p.out, out)
}

func (p *packProc[E]) end(ctx context.Context, out flow.Emitter[Packed[E]]) error {
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
