package operators

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/run/slicepool"
)

// uneven is what [EvenRanks] does when the rows do not divide evenly
// among the ranks: drop the rest (the default), [PadUneven] or
// [AllowUneven]. Its String is part of the source's settings.
type uneven int

const (
	unevenDrop uneven = iota
	unevenPad
	unevenAllow
)

func (u uneven) String() string {
	return [...]string{"DropUneven", "PadUneven", "AllowUneven"}[u]
}

// EvenOption configures [EvenRanks]: [PadUneven], [AllowUneven].
type EvenOption interface{ evenOption() }

// evenOpt sets the policy of EvenRanks.
type evenOpt struct{ policy uneven }

func (evenOpt) evenOption() {}

// PadUneven makes [EvenRanks] give every rank ceil(total/world) rows: the
// ranks short of a row each repeat one row from the end of the stream,
// which another rank also delivers. While the total is at least the
// number of ranks short of a row (world - total%world), the repeated rows
// differ and each is delivered twice; with fewer rows, as with 1 row on 3
// ranks, a row is repeated by several ranks (as DistributedSampler pads
// in PyTorch), and the account says which. The default gives every rank
// total/world rows, the last total%world rows of the stream delivered to
// no rank. Of PadUneven and [AllowUneven], the last one given wins.
func PadUneven() EvenOption { return evenOpt{unevenPad} }

// AllowUneven makes [EvenRanks] give each rank its own rows, however many:
// counts differ by at most one when the source can count its rows, and by
// up to one per partition when it cannot. The default gives every rank
// total/world rows, the last total%world rows of the stream delivered to
// no rank. Of [PadUneven] and AllowUneven, the last one given wins.
func AllowUneven() EvenOption { return evenOpt{unevenAllow} }

// EvenAccount reports what [EvenRanks] decided for one epoch: the total
// rows of the stream, what each rank delivers, and which rows were
// dropped or repeated, as positions in the serial stream of the source
// (row i is the i-th row of the epoch, counted from 0).
type EvenAccount struct {
	// Known reports whether the total was known before reading. It is
	// not when the source cannot count its rows (a Parquet RowFilter),
	// which only [AllowUneven] accepts: Total is then 0.
	Known   bool
	Total   int64
	World   int
	PerRank int64 // rows each rank delivers; -1 under AllowUneven
	// Dropped is the range of positions [Dropped[0], Dropped[1]) that no
	// rank delivers (by default).
	Dropped [2]int64
	// Repeated maps a rank to the position of the row it delivers in
	// addition to its own ([PadUneven]); that row's own rank delivers it too,
	// and so may other ranks when the total is below the ranks short of a
	// row.
	Repeated map[int]int64
}

// EvenRanks returns a source that delivers the share of src's rows that
// belongs to this process's rank: row i of the stream (counted over the
// partitions in order) goes to rank i mod world, where rank and world come
// from the run's [flow.Env] ([flow.Pipeline.WithRank]). It is the run's one
// place of division: src reads as rank 0 of 1, whether or not it could
// divide its rows itself, so every rank reads all of src's partitions and
// keeps its own rows of each. Use it for sources that cannot divide their
// rows (a channel, a go-streams source), or to make the shares exactly
// equal; the dataset sources, slices and generators divide their rows
// evenly themselves, reading only their share. The decision is made per
// partition from the partitions' row counts, so the source stays
// parallel: nothing is read twice and no rank reads another rank's
// partitions' rows into its stream.
//
// When world does not divide the total, every rank by default delivers
// total/world rows, the last total%world rows of the stream delivered by
// none; [PadUneven] repeats rows instead, so that every rank delivers
// ceil(total/world). Either way every rank yields the same number of
// rows, and after Batch with the same size and remainder policy, the same
// number of batches. [AllowUneven] lets the counts differ. Rows keep their
// IDs and partition numbers; a repeated row has the same ID on both ranks
// that deliver it.
//
// The counts come from src's [flow.RowCounter], which slices, generators
// and Parquet datasets (from their footers) implement. When src cannot
// count without reading, as with a Parquet RowFilter, the run fails
// before any row is read, with an error that says why, unless AllowUneven
// is given: it then splits each partition on its own, starting the
// rotation at the partition's partition number. A partition that yields a
// different number of rows than its count fails the run.
//
// If account is not nil, it is set when each epoch is planned; runs that
// go on at the same time should not share one.
//
// The shares are planned from the counts alone, the same every time an
// epoch is planned, and the partitions keep src's numbers: a run resumed
// from a checkpoint starts at a partition number and reads nothing before
// it.
func EvenRanks[T any](src flow.Source[T], account *EvenAccount, opts ...EvenOption) flow.Source[T] {
	e := &evenSource[T]{src: src, account: account}
	for _, o := range opts {
		o, ok := o.(evenOpt)
		if !ok {
			e.err = fmt.Errorf("operators: EvenRanks: nil option")
			break
		}
		e.policy = o.policy
	}
	if src == nil && e.err == nil {
		e.err = fmt.Errorf("operators: EvenRanks: nil source")
	}
	if b, ok := src.(interface{ Err() error }); ok && e.err == nil {
		e.err = b.Err()
	}
	return e
}

type evenSource[T any] struct {
	src     flow.Source[T]
	policy  uneven
	account *EvenAccount
	mu      sync.Mutex // guards *account
	err     error
}

func (e *evenSource[T]) Info() flow.Info {
	var i flow.Info
	if e.src != nil {
		i = e.src.Info()
	}
	i.Name = "even-ranks(" + i.Name + ")"
	i.Ranked = true
	i.Settings = fmt.Sprintf("policy=%v source=%q", e.policy, i.Settings)
	return i
}

// Err reports a nil source or option, or an error of the source.
func (e *evenSource[T]) Err() error { return e.err }

// share is what one rank takes of a partition: rows k with
// (first+k) % world == rank and first+k < limit, plus the row at extra
// (a position in the stream) if extra >= 0.
type share struct {
	first, limit, extra int64
	count               int64 // -1 when not known
	rank, world         int64
}

func (s share) takes(k int64) bool {
	g := s.first + k
	return g < s.limit && g%s.world == s.rank || g == s.extra
}

func (e *evenSource[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		if e.err != nil {
			yield(flow.Partition[T]{}, e.err)
			return
		}
		world, rank := int64(max(env.World, 1)), int64(env.Rank)
		// EvenRanks is where this run divides its rows: src reads as one
		// rank of one, so it does not divide them again.
		env.Rank, env.World = 0, 1
		var counts []int64 // the partitions' row counts, if known
		known := false     // (a source of no partitions knows them: none)
		if rc, ok := e.src.(flow.RowCounter); ok {
			var err error
			counts, err = rc.RowCounts(ctx, env)
			switch {
			case err != nil && e.policy != unevenAllow:
				yield(flow.Partition[T]{}, fmt.Errorf("operators: EvenRanks needs the row total before reading, unless AllowUneven is given: %w", err))
				return
			case err != nil:
				counts = nil
			default:
				known = true
			}
		} else if e.policy != unevenAllow {
			yield(flow.Partition[T]{}, fmt.Errorf("operators: EvenRanks needs the row total before reading, unless AllowUneven is given, and source %q cannot count its rows (no RowCounts method)", e.src.Info().Name))
			return
		}
		limit, extra := e.plan(counts, known, rank, world)
		i, first := 0, int64(0)
		for part, err := range e.src.Partitions(ctx, env) {
			if err != nil {
				yield(part, err)
				return
			}
			s := share{first: first, limit: limit, extra: extra, count: -1, rank: rank, world: world}
			if !known {
				s.first = epoch.Partition(part.Part) // rotate per partition
			} else {
				if i >= len(counts) {
					yield(flow.Partition[T]{}, fmt.Errorf("operators: EvenRanks: source %q yielded more partitions than its %d row counts", e.src.Info().Name, len(counts)))
					return
				}
				s.count = counts[i]
				first += counts[i]
			}
			i++
			read := part.Read
			part.Read = func(ctx context.Context, out flow.Emitter[T]) error {
				return readShare(ctx, read, s, out)
			}
			if !yield(part, nil) {
				return
			}
		}
	}
}

// plan returns the stream positions this rank keeps below (limit) and the
// extra row it repeats (-1 for none), and fills the account. known says
// whether the partitions' row counts are counts (none for no partitions).
func (e *evenSource[T]) plan(counts []int64, known bool, rank, world int64) (limit, extra int64) {
	limit, extra = 1<<63-1, -1
	acct := EvenAccount{World: int(world), PerRank: -1}
	if known {
		acct.Known = true
		for _, c := range counts {
			acct.Total += c
		}
		t := acct.Total
		q, rem := t/world, t%world
		switch {
		case e.policy == unevenDrop:
			limit, acct.PerRank, acct.Dropped = q*world, q, [2]int64{q * world, t}
		case e.policy == unevenPad && rem > 0 && t > 0:
			acct.PerRank, acct.Repeated = q+1, map[int]int64{}
			for r := rem; r < world; r++ {
				acct.Repeated[int(r)] = ((t-world+r)%t + t) % t
			}
			if r, ok := acct.Repeated[int(rank)]; ok {
				extra = r
			}
		case e.policy == unevenPad:
			acct.PerRank = q
		}
	}
	if e.account != nil {
		e.mu.Lock()
		*e.account = acct
		e.mu.Unlock()
	}
	return limit, extra
}

// readShare reads a partition and passes on the rows of s.
func readShare[T any](ctx context.Context, read func(context.Context, flow.Emitter[T]) error, s share, out flow.Emitter[T]) error {
	f := &shareOut[T]{s: s, out: out}
	if err := read(ctx, f); err != nil {
		return err
	}
	if s.count >= 0 && f.k != s.count {
		return fmt.Errorf("operators: EvenRanks: the partition yielded %d rows, but its row count said %d", f.k, s.count)
	}
	return nil
}

type shareOut[T any] struct {
	s   share
	out flow.Emitter[T]
	k   int64 // rows of the partition seen
}

func (f *shareOut[T]) Push(ctx context.Context, c flow.Chunk[T]) error {
	kept := slicepool.Alloc[uint32](len(c.Values))
	for k := range c.Values {
		if f.s.takes(f.k + int64(k)) {
			c.Values[len(kept)] = c.Values[k]
			kept = append(kept, uint32(k))
		}
	}
	f.k += int64(len(c.Values))
	c.Values = c.Values[:len(kept)]
	c.IDs.Keep(kept)
	if len(kept) == 0 && !c.End {
		c.Release()
		return nil
	}
	return f.out.Push(ctx, c)
}
