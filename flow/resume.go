package flow

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"reflect"

	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/run/epoch"
)

// Checkpoints makes every run of the returned pipeline followed by t, so
// that t gives a [Checkpoint] after any item the run delivered (see
// [Tracker]). It changes neither the items nor the fingerprint.
func (p *Pipeline) Checkpoints(t *Tracker) *Pipeline {
	if p.err != nil {
		return p
	}
	if t == nil {
		return p.fail(fmt.Errorf("flow: Checkpoints(nil)"))
	}
	q := p.clone()
	q.tracker = t
	return q
}

// Resume makes the returned pipeline's runs start at ck, the one value a
// run starts from: a checkpoint a [Tracker] took in an earlier run, or a
// position made by [At].
//
// From a tracker's checkpoint, a run gives exactly the items that the run
// ck was taken from gave after that point (values, row IDs, partition
// numbers and order), at any parallelism. The run fails, before it reads
// anything, if ck was taken from a pipeline of another definition or seed
// ([Pipeline.Fingerprint]), naming what differs, or holds positions no
// run takes or lacks the state of a stage that keeps rows across
// partitions; and it fails when it gets there if a position of ck lies
// beyond the end of its partition (more items delivered than the
// partition has): such a checkpoint was edited, or taken from another
// pipeline, and is never resumed from a wrong place.
//
// What a resumed run reads before its first item is bounded by the
// pipeline's windows, not by the position: the source skips every
// partition before the oldest one a stateful stage still held (skipped
// partitions are planned but not read), and the stages and the consumer
// drop what had been delivered of the partitions they restart in. A
// source's epochs before the checkpoint's are not planned at all.
//
// A source that keeps state across its partitions is resumed too: the
// checkpoint holds its [Partition].State at the partition a resume
// starts at (for operators.Mix, each input's own checkpoint and the
// draws), which the source gets back in [Env].Resume.
//
// A position made by At is found as At describes. The zero Checkpoint is
// not a position: resuming from it is an error.
func (p *Pipeline) Resume(ck Checkpoint) *Pipeline {
	if p.err != nil {
		return p
	}
	if ck.version != checkpointVersion {
		return p.fail(fmt.Errorf("flow: Resume: checkpoint version %d, want %d (the zero Checkpoint is not a position)", ck.version, checkpointVersion))
	}
	if ck.at != nil {
		if err := ck.check(); err != nil {
			return p.fail(fmt.Errorf("flow: Resume: %w", err))
		}
		q := p.clone()
		q.seek, q.resume = ck.at, nil
		return q
	}
	q := p.clone()
	q.resume, q.seek = &ck, nil
	return q
}

// runCk is what a run that is followed or resumed tells its stages.
type runCk struct {
	tracker *Tracker
	resume  *Checkpoint
	states  map[int]*stageState
	from    int64           // the source's first partition number
	source  json.RawMessage // the state of a source that keeps one

	seek     *seekSpec
	mode     seekMode
	seekDrop *dropper // the consumer's, for a seeking run
}

// newRunCk returns the checkpoint plumbing of a run of p with env, or nil
// if the run is neither followed nor resumed.
func (p *Pipeline) newRunCk(env Env) *runCk {
	if p.tracker == nil && p.resume == nil && p.seek == nil {
		return nil
	}
	rc := &runCk{tracker: p.tracker, from: math.MinInt64}
	pos := streamStart
	if s := p.seek; s != nil {
		rc.seek, rc.mode = s, p.seekMode()
		rc.seekDrop = &dropper{to: Mark{Part: epoch.Part(s.epoch, 0)}, count: true, left: s.item, epoch: s.epoch, tr: p.tracker}
		switch rc.mode {
		case seekPlan:
			rc.seekDrop.count = false // the source sets the mark
			rc.from = epoch.Part(s.epoch, 0)
		case seekEpoch:
			rc.from = epoch.Part(s.epoch, 0)
		}
	}
	if ck := p.resume; ck != nil {
		rc.resume, pos = ck, ck.position()
		rc.states = make(map[int]*stageState, len(ck.stages))
		rc.from = ck.part
		for i := range ck.stages {
			s := &ck.stages[i]
			rc.states[s.Position] = s
			switch {
			case i > 0:
			case s.Position == 0 && s.State == nil:
				rc.from = math.MinInt64 // the source starts afresh
			case s.Position == 0:
				rc.from, rc.source = s.Out.Part, s.State
			default:
				rc.from = s.In.Part
			}
		}
	}
	if rc.tracker != nil {
		rc.tracker.begin(env.Fingerprint, definitionText(env.definition), pos, len(p.stages)-1, p.seek != nil)
		for _, s := range p.stages {
			if s.unordered && s.n > 1 {
				rc.tracker.refuse(fmt.Errorf("flow: a pipeline with an Unordered stage has no reproducible order, so no checkpoint of it resumes"))
			}
		}
	}
	return rc
}

// resumeErr says why p cannot be resumed from its checkpoint, if it
// cannot: it is checked before a run starts.
func (p *Pipeline) resumeErr() error {
	ck := p.resume
	if ck == nil {
		return nil
	}
	if env := p.env(); ck.fingerprint != env.Fingerprint {
		return fmt.Errorf("flow: Resume: the checkpoint was taken from another pipeline: %s (its fingerprint %s; this pipeline's %s)",
			definitionDiff(ck.definition, definitionText(env.definition)), ck.fingerprint, env.Fingerprint)
	}
	if err := ck.check(); err != nil {
		return fmt.Errorf("flow: Resume: %w", err)
	}
	last := -1
	has := map[int]bool{}
	for _, s := range ck.stages {
		if s.Position == 0 && last < 0 && p.src.keepsState() {
			last = 0
			continue
		}
		if s.Position <= last || s.Position >= len(p.stages) || !p.stages[s.Position].keepsRows() {
			return fmt.Errorf("flow: Resume: the checkpoint has a state for stage %d, which is not a stage of this pipeline that keeps rows across partitions", s.Position)
		}
		has[s.Position] = true
		last = s.Position
	}
	// Every checkpoint a tracker takes holds a state for each stage that
	// keeps rows across partitions; one without (an edited JSON file) would
	// start that stage afresh, from the consumer's partition.
	for i, st := range p.stages {
		if st.keepsRows() && !has[i] {
			return fmt.Errorf("flow: Resume: the checkpoint has no state for stage %d (%s), which keeps rows across partitions: it was not taken from a run of this pipeline, or it was edited", i, st.op.info().Name)
		}
	}
	return nil
}

// heldErr refuses, for a consumer other than a cursor set, a checkpoint
// of a cursor set whose cursors had handed out items past its first
// partition not wholly handed out: one stream cannot leave those out.
func (p *Pipeline) heldErr() error {
	if ck := p.resume; ck != nil {
		for _, h := range ck.held {
			if h.Part != ck.part {
				return fmt.Errorf("flow: Resume: the checkpoint was taken of a cursor set whose cursors had handed out items of partition %d and later ones, past partition %d; resume it with Cursors", h.Part, ck.part)
			}
		}
	}
	return nil
}

// keepsRows reports whether the stage keeps rows across partitions: a
// serial stage, whose processor a tracker follows.
func (s step) keepsRows() bool { return s.op != nil && s.op.info().Serial != "" }

// consumerDrop returns what the run's consumer drops, or nil.
func (rc *runCk) consumerDrop() *dropper {
	if rc != nil && rc.seekDrop != nil {
		return rc.seekDrop
	}
	if rc == nil || rc.resume == nil || rc.resume.part == math.MinInt64 {
		return nil
	}
	return newDropper(rc.resume.position(), rc.resume.stages, len(rc.resume.stages))
}

// newDropper returns the dropper in front of the consumer of a stream
// that must start at to, fed by the stage whose state is stages[k-1] or,
// for k = 0, by the source. A resumed stage gives its output from its Out
// mark on, so what the dropper sees of Out's partition starts at Out.Row.
func newDropper(to Mark, stages []stageState, k int) *dropper {
	d := &dropper{to: to}
	if k > 0 {
		if out := stages[k-1].Out; stages[k-1].State != nil && out.Part == to.Part {
			d.seen = out.Row
		}
	}
	return d
}

// consumerTracker returns the tracker the run's consumer moves, or nil.
func (rc *runCk) consumerTracker() *Tracker {
	if rc == nil {
		return nil
	}
	return rc.tracker
}

// dropper drops the items of a stream before a mark: whole partitions
// numbered below it, and the first items of its own partition. Partitions
// arrive in order, so once a later partition comes it is done.
type dropper struct {
	to   Mark
	seen int64 // items of partition to.Part seen
	done bool
	// With count set, the dropper drops the first left items from
	// partition to.Part on, across partitions (a position of At that cannot find the
	// position from the plan), and tells tr how many of the partition it
	// stops in it dropped.
	count bool
	left  int64
	epoch int64 // the epoch the position is in
	tr    *Tracker
	// over is set once a counting dropper has seen the epoch end before
	// the position: the stream has nothing more to give, and its consumer
	// ends it (an endless pipeline would otherwise be read for ever).
	over bool
	// err is set once the stream has shown that the mark lies beyond the
	// end of its partition: the checkpoint was not taken from a run of
	// this pipeline, or it was edited. The stream fails with it.
	err error
}

// short records that partition d.to.Part ended, or was passed, after only
// d.seen items, if the mark lies beyond them.
func (d *dropper) short() bool {
	if d.seen >= d.to.Row {
		return false
	}
	d.err = fmt.Errorf("flow: Resume: the checkpoint's position (partition %d, after %d items) is not one this pipeline reaches: the partition has %d items; the checkpoint was not taken from a run of this pipeline, or it was edited", d.to.Part, d.to.Row, d.seen)
	return true
}

// finish reports, at the end of the stream, whether the dropper's mark
// was reached: a stream that ends before it fails.
func (d *dropper) finish() error {
	if d == nil || d.count || d.done || d.err != nil {
		return d.errOrNil()
	}
	d.short()
	return d.err
}

func (d *dropper) errOrNil() error {
	if d == nil {
		return nil
	}
	return d.err
}

// dropBefore removes from c the items before d's mark, and reports
// whether anything of c is left to pass on (items, or the End of a
// partition not wholly dropped).
func dropBefore[T any](d *dropper, c *Chunk[T]) bool {
	switch {
	case d.done:
		return true
	case d.err != nil:
		c.Release()
		return false
	case c.Part < d.to.Part:
		c.Release()
		return false
	case d.count:
		return dropCount(d, c)
	case c.Part > d.to.Part:
		if d.short() {
			c.Release()
			return false
		}
		d.done = true
		return true
	}
	n := int64(c.Len())
	k := min(n, max(d.to.Row-d.seen, 0))
	d.seen += n
	if c.End && d.short() {
		c.Release()
		return false
	}
	if k > 0 {
		c.Values = c.Values[k:]
		c.IDs = c.IDs.Slice(int(k), int(n))
	}
	if d.tr != nil && d.seen >= d.to.Row {
		d.done = true
		d.tr.delivered(c.Part, int(d.to.Row)) // a seeking run's consumer starts here
	}
	if c.Len() == 0 && !c.End {
		c.Release()
		return false
	}
	return true
}

// dropCount is dropBefore for a dropper that counts.
func dropCount[T any](d *dropper, c *Chunk[T]) bool {
	if epoch.Of(c.Part) > d.epoch {
		// The epoch ended before the position: there is nothing to give.
		c.Release()
		d.over = true
		return false
	}
	if c.Part != d.to.Part {
		d.to, d.seen = Mark{Part: c.Part}, 0
	}
	n := int64(c.Len())
	k := min(n, d.left)
	d.left -= k
	d.seen += k
	if k > 0 {
		c.Values = c.Values[k:]
		c.IDs = c.IDs.Slice(int(k), int(n))
	}
	if d.left == 0 && k < n {
		// The position's item is here. (Where the count ends with a
		// partition, the next partition of the epoch holds it, if any
		// does: a later epoch's does not.)
		d.done = true
		if d.tr != nil {
			d.tr.delivered(c.Part, int(d.seen))
		}
	}
	if c.Len() == 0 && !c.End {
		c.Release()
		return false
	}
	return true
}

func init() {
	linkage.Pass = func(p any, k int64) any { return p.(*Pipeline).withPass(k) }
	linkage.OutType = func(p any) reflect.Type { return p.(*Pipeline).outType() }
	linkage.StartOf = func(p any) string {
		q := p.(*Pipeline)
		switch {
		case q.seek != nil:
			return fmt.Sprintf("at %d %d", q.seek.epoch, q.seek.item)
		case q.resume != nil:
			b, err := q.resume.MarshalJSON()
			if err != nil {
				return fmt.Sprintf("checkpoint %v", err)
			}
			return fmt.Sprintf("checkpoint %x", sha256.Sum256(b))
		}
		return ""
	}
}
