package determinism

import (
	"context"
	"errors"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
)

// partDigest is one partition of a stream: its number, item count and
// the digest of its items.
type partDigest struct {
	part, items int64
	sum         Sum
}

// Bisect finds the first item where the streams of a and b differ, as
// [Compare] does, without running them side by side: it reads each
// pipeline once, keeping only a digest per partition (as a golden file
// records them), takes the first partition whose digests differ, and
// reads both again from that partition's first item with
// [flow.Pipeline.Resume] at [flow.At], to name the item, its row ID and the field
// that differs. Use it when the two runs cannot be held at once (two
// versions of a pipeline that each need the machine, or runs on two
// machines), or when reading again from a position is cheap and the
// stream is long: a run resumed at At skips the partitions before the position
// without reading them where the pipeline allows (see there).
//
// The per-partition digests make a binary search over prefixes
// unnecessary: one pass over each stream locates the partition, and a
// second pass from there locates the item.
//
// It returns nil if the streams are equal, a [*Divergence] whose
// Position counts from the stream's start, or the error of a run.
func Bisect[T any](ctx context.Context, a, b *flow.Pipeline) error {
	if a == nil || b == nil {
		return errors.New("determinism: Bisect of a nil pipeline")
	}
	if err := encodable[T](); err != nil {
		return err
	}
	da, err := partDigests[T](ctx, a, "the first pipeline")
	if err != nil {
		return err
	}
	db, err := partDigests[T](ctx, b, "the second pipeline")
	if err != nil {
		return err
	}
	i := 0
	for i < len(da) && i < len(db) && da[i] == db[i] {
		i++
	}
	if i == len(da) && i == len(db) {
		return nil
	}
	// The streams agree before partition i: start both there, each in the
	// epoch of its own partition i, since one stream can go on in an epoch
	// that the other has ended. A stream that has ended starts where the
	// other does, and gives nothing.
	var before int64
	for _, d := range da[:i] {
		before += d.items
	}
	from := func(d, other []partDigest) flow.Checkpoint {
		if i == len(d) {
			d = other
		}
		e, inEpoch := epoch.Of(d[i].part), int64(0)
		for _, p := range da[:i] {
			if epoch.Of(p.part) == e {
				inEpoch += p.items
			}
		}
		return flow.At(e, inEpoch)
	}
	atA, atB := from(da, db), from(db, da)
	ref := lane[T]{c: openCursor[T](ctx, func(int) *flow.Pipeline { return a.Resume(atA) }, 0), name: "the first pipeline"}
	defer ref.c.stop()
	cand := lane[T]{c: openCursor[T](ctx, func(int) *flow.Pipeline { return b.Resume(atB) }, 0), name: "the second pipeline"}
	defer cand.c.stop()
	err = compareLanes(ref, []lane[T]{cand})
	var d *Divergence
	if errors.As(err, &d) {
		d.Position += before
		return d
	}
	if err == nil {
		return fmt.Errorf("determinism: Bisect: the partition digests differ at partition %d of the first pipeline, but reading both again from there finds no difference: a run is not deterministic", i)
	}
	return err
}

// partDigests reads p and returns its partitions' digests.
func partDigests[T any](ctx context.Context, p *flow.Pipeline, name string) ([]partDigest, error) {
	var out []partDigest
	h := NewHasher[T]()
	cur := int64(-1)
	flush := func() {
		out = append(out, partDigest{part: cur, items: h.n, sum: h.Sum()})
		h.reset()
	}
	started := false
	for c, err := range flow.Chunks[T](ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("determinism: %s: %w", name, err)
		}
		if started && c.Part != cur {
			flush()
		}
		started, cur = true, c.Part
		err := h.addChunk(&c)
		c.Release()
		if err != nil {
			return nil, err
		}
	}
	if started {
		flush()
	}
	return out, nil
}
