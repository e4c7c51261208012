package flow

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"

	"github.com/rowflow/rowflow/internal/api/limits"
)

// Pipeline is a source followed by stages and, once [Pipeline.To] is
// called, a sink. It is a value: every builder method returns a new
// Pipeline and leaves its receiver as it was, and a pipeline can be run any
// number of times, giving the same output each time.
//
// Building never panics and never fails on the spot: the first mistake
// (stages whose types do not fit, Parallel on a serial stage, a bad
// argument or option a source, stage or sink kept) is kept and returned by
// [Pipeline.Err], [Pipeline.Run] and the iterators.
type Pipeline struct {
	src    srcNode
	stages []step // stages[0] is the source's step, with op nil
	sink   srcSink
	seed   uint64
	err    error

	epochs      int64 // 0 means 1; see Epochs
	rank, world int   // see WithRank; world 0 means 1
	pass        int64 // see Pass

	tracker *Tracker    // see Checkpoints
	resume  *Checkpoint // see Resume
	seek    *seekSpec   // see Seek
}

type step struct {
	op        opNode // nil for the source
	n         int    // workers
	unordered bool
}

type srcSink struct{ n sinkNode }

// From starts a pipeline that reads src.
//
// If src has a method Err() error that returns an error (a bad option),
// the pipeline keeps that error. If src has a method Epochs() int64 (an
// epoch count among its options), the pipeline starts with that many
// epochs, as if [Pipeline.Epochs] had been called.
func From[T any](src Source[T]) *Pipeline {
	p := &Pipeline{src: srcAdapter[T]{src}, stages: []step{{n: 1}}, err: buildErr(src)}
	p.epochs = sourceEpochs(src)
	return p
}

func (p *Pipeline) clone() *Pipeline {
	q := *p
	q.stages = append([]step(nil), p.stages...)
	return &q
}

func (p *Pipeline) last() (Info, typeOps) {
	if s := p.stages[len(p.stages)-1]; s.op != nil {
		return s.op.info(), s.op.outOps()
	}
	return p.src.info(), p.src.outOps()
}

func (p *Pipeline) fail(err error) *Pipeline {
	q := p.clone()
	if q.err == nil {
		q.err = err
	}
	return q
}

// Via appends a stage. Its input type must be the output type of the stage
// before it. If the stage's operator has a method Err() error that returns
// an error (a bad argument or option), the pipeline keeps that error.
func (p *Pipeline) Via(s Stage) *Pipeline {
	switch {
	case p.err != nil:
		return p
	case s.n == nil:
		return p.fail(fmt.Errorf("flow: Via of a zero Stage; make stages with NewStage"))
	case s.n.buildErr() != nil:
		return p.fail(s.n.buildErr())
	case p.sink.n != nil:
		return p.fail(fmt.Errorf("flow: Via(%q) after To(%q)", s.n.info().Name, p.sink.n.info().Name))
	}
	prev, out := p.last()
	if err := fit(prev, out.typ(), s.n.info(), s.n.inOps().typ()); err != nil {
		return p.fail(err)
	}
	q := p.clone()
	q.stages = append(q.stages, step{op: s.n, n: 1})
	return q
}

// Parallel runs the most recent stage (or the source, right after From) on
// n workers. Output order stays the serial order unless [Pipeline.Unordered]
// is also called. Consecutive stages with the same parallelism run fused on
// the same workers, with no merge between them. Parallel on a stage that
// keeps state across partitions is an error, as is n < 1 or n more than
// 65,536 (2^16: a group's queues are made for its workers when the run
// starts).
func (p *Pipeline) Parallel(n int) *Pipeline {
	if p.err != nil {
		return p
	}
	info, _ := p.last()
	switch {
	case p.sink.n != nil:
		return p.fail(fmt.Errorf("flow: Parallel(%d) after To(%q): sinks run on one goroutine", n, p.sink.n.info().Name))
	case n < 1:
		return p.fail(fmt.Errorf("flow: Parallel(%d) on stage %q: need at least 1 worker", n, info.Name))
	case n > limits.MaxParallel:
		return p.fail(fmt.Errorf("flow: Parallel(%d) on stage %q: at most %d workers", n, info.Name, limits.MaxParallel))
	case info.Serial != "" && n > 1:
		return p.fail(fmt.Errorf("flow: stage %q cannot run in parallel: %s", info.Name, info.Serial))
	}
	q := p.clone()
	q.stages[len(q.stages)-1].n = n
	return q
}

// Unordered lets the most recent stage's merge emit partitions in whatever
// order the workers finish them, instead of in batch order. Items keep
// their partition numbers and IDs; only the order of partitions changes. It
// does nothing for a stage on one worker.
func (p *Pipeline) Unordered() *Pipeline {
	if p.err != nil {
		return p
	}
	q := p.clone()
	q.stages[len(q.stages)-1].unordered = true
	return q
}

// WithSeed sets the seed every stage sees in its [Env]. The default is 0.
func (p *Pipeline) WithSeed(seed uint64) *Pipeline {
	q := p.clone()
	q.seed = seed
	return q
}

// To ends the pipeline with a sink, whose input type must be the output
// type of the last stage. If the sink's stage has a method Err() error
// that returns an error (a bad option), the pipeline keeps that error.
func (p *Pipeline) To(s Sink) *Pipeline {
	switch {
	case p.err != nil:
		return p
	case s.n == nil:
		return p.fail(fmt.Errorf("flow: To of a zero Sink; make sinks with NewSink"))
	case s.n.buildErr() != nil:
		return p.fail(s.n.buildErr())
	case p.sink.n != nil:
		return p.fail(fmt.Errorf("flow: To(%q) after To(%q)", s.n.info().Name, p.sink.n.info().Name))
	}
	prev, out := p.last()
	if err := fit(prev, out.typ(), s.n.info(), s.n.inOps().typ()); err != nil {
		return p.fail(err)
	}
	q := p.clone()
	q.sink = srcSink(s)
	return q
}

// Err returns the first mistake made while building p, or nil.
func (p *Pipeline) Err() error { return p.err }

// outType returns the type of the values the last stage produces.
func (p *Pipeline) outType() reflect.Type {
	_, out := p.last()
	return out.typ()
}

func fit(prev Info, out reflect.Type, next Info, in reflect.Type) error {
	if out == in {
		return nil
	}
	return fmt.Errorf("flow: stage %q produces %v but stage %q takes %v", prev.Name, out, next.Name, in)
}

// continuation returns p as its sink, which records its progress,
// continues it: resumed from the sink's checkpoint if it has one, and
// followed by a tracker so that the sink can take checkpoints.
func (p *Pipeline) continuation(c continuer, env Env) (*Pipeline, error) {
	name := p.sink.n.info().Name
	ck, ok, err := callContinuation(c, env)
	if err != nil {
		return nil, stageError(name, 0, false, err)
	}
	q := p.clone()
	if ok {
		if p.resume != nil || p.seek != nil {
			return nil, fmt.Errorf("flow: %s continues the run it recorded, and the pipeline was resumed too (Resume): say where the run starts once", name)
		}
		q = q.Resume(ck)
		if q.err != nil {
			return nil, q.err
		}
	}
	if q.tracker == nil {
		q.tracker = new(Tracker)
	}
	return q, nil
}

// callContinuation calls c.Continuation, turning a panic into an error.
func callContinuation(c continuer, env Env) (ck Checkpoint, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	return c.Continuation(env)
}

// Run runs a pipeline that ends in a sink, and returns once every
// goroutine of the run has returned: nil if the stream ended and the sink
// committed, the first error otherwise.
func (p *Pipeline) Run(ctx context.Context) error {
	if p.err != nil {
		return p.err
	}
	if p.sink.n == nil {
		return fmt.Errorf("flow: Run of a pipeline with no sink; add one with To, or read it with Items")
	}
	env := p.env()
	if err := p.rankErr(); err != nil {
		return err
	}
	if c := p.sink.n.continuer(); c != nil {
		q, err := p.continuation(c, env)
		if err != nil {
			return err
		}
		p = q
	}
	if err := p.resumeErr(); err != nil {
		return err
	}
	if err := p.heldErr(); err != nil {
		return err
	}
	env.ck = p.newRunCk(env)
	r, runCtx := newRunner(ctx)
	name := p.sink.n.info().Name
	env.obs = r.observe(ctx, p, name)
	var closeSink func(error) error
	r.guard(runCtx, name, func() {
		var head any
		head, closeSink = p.sink.n.open(env)
		p.start(runCtx, r, env, head)
	})
	err := r.wait(ctx)
	if closeSink != nil {
		if cerr := callClose(closeSink, err); err == nil && cerr != nil {
			err = stageError(name, 0, false, cerr)
		}
	}
	return p.located(ctx, env, err)
}

// callClose calls a consumer's Close, turning a panic into an error.
func callClose(closeSink func(error) error, runErr error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	return closeSink(runErr)
}

// start builds the run's links from the last stage back to the source and
// starts its goroutines. next is a downstream of the last stage's type.
//
// Each goroutine's chain ends in the downstream of the next goroutine
// (term): a dispatcher into a group, a buffer's channel, a cursor feed or
// the sink. A goroutine whose stream fails hands the failure to it in
// band, where it takes it (see inBand).
func (p *Pipeline) start(ctx context.Context, r *runner, env Env, next any) {
	term := next
	rows := p.newRankRows(env)
	end := len(p.stages)
	for end > 0 {
		// The group is stages[begin:end]: equal parallelism, fused.
		n, begin, unordered := p.stages[end-1].n, end-1, false
		for begin > 0 && p.stages[begin-1].n == n && p.stages[begin].op.info().Buffer == 0 {
			begin--
		}
		for _, s := range p.stages[begin:end] {
			unordered = unordered || s.unordered
		}
		withSource := begin == 0 && p.stages[0].op == nil
		first := begin // the position of ops[0]
		if withSource {
			first++
		}
		ops := p.stages[first:end]
		chain := func(env Env, terminal any) any {
			for i := len(ops) - 1; i >= 0; i-- {
				env.Position = first + i
				env.rankRows = nil
				if p.oneToOneBefore(first + i) {
					env.rankRows = rows
				}
				terminal = ops[i].op.link(env, terminal)
			}
			return terminal
		}
		if n == 1 {
			next = chain(env, next)
			if len(ops) > 0 && ops[0].op.info().Buffer > 0 {
				next, ctx = startBuffer(ctx, r, ops[0].op, next, term)
				term = next
			}
			if withSource {
				p.startSerialSource(ctx, r, env, next, term)
			}
			end = begin
			continue
		}
		var in typeOps
		if withSource {
			in = p.src.outOps()
		} else {
			in = ops[0].op.inOps()
		}
		_, out := stepOut(p, end-1)
		g := newGroup(n, unordered, in, out, chain, env)
		upCtx, stopUp := context.WithCancelCause(ctx)
		g.start(r, upCtx, ctx, stopUp, next, term)
		ctx = upCtx
		if withSource {
			p.startParallelSource(ctx, r, env, g)
		} else {
			next = in.newDispatcher(g)
			term = next
		}
		end = begin
	}
}

func stepOut(p *Pipeline, i int) (Info, typeOps) {
	if op := p.stages[i].op; op != nil {
		return op.info(), op.outOps()
	}
	return p.src.info(), p.src.outOps()
}

// startSerialSource starts the goroutine that reads the source into head,
// a chain that ends in term.
func (p *Pipeline) startSerialSource(ctx context.Context, r *runner, env Env, head, term any) {
	r.goroutine(ctx, func() error {
		_, err := handOn(ctx, term, p.readSerial(ctx, env, head))
		if err == ErrStop {
			return nil
		}
		return err
	})
}

func (p *Pipeline) readSerial(ctx context.Context, env Env, head any) error {
	for part, err := range p.partitions(ctx, env) {
		if err != nil {
			return err
		}
		if err := part.read(ctx, head); err != nil {
			return err
		}
	}
	return head.(closer).close(ctx)
}

// startParallelSource starts the goroutine that hands the source's
// partitions to g's workers. If listing them fails, the partition after
// the last fails with the error where an ordered group's merge meets it,
// as in a serial run (see inBand).
func (p *Pipeline) startParallelSource(ctx context.Context, r *runner, env Env, g *group) {
	r.goroutine(ctx, func() error {
		next := int64(0)
		for part, err := range p.partitions(ctx, env) {
			if err != nil {
				if g.failsAtOnce() || ctx.Err() != nil {
					return err
				}
				failed := err
				err = g.submit(ctx, next, func(context.Context, any) error { return failed })
				g.finish()
				return err
			}
			if err := g.submit(ctx, part.batch, part.read); err != nil {
				return err
			}
			next = part.batch + 1
		}
		g.finish()
		return nil
	})
}

type closer interface{ close(context.Context) error }

// env returns the Env of a run of p.
func (p *Pipeline) env() Env {
	h := sha256.New()
	def := p.definition()
	var jobBase []byte
	for _, part := range def {
		if jobBase == nil && (part.label == "sink" || part.label == "epochs" || part.label == "rank") {
			jobBase = h.Sum(nil) // the job is the rows made, not how a sink writes them
		}
		h.Write([]byte(part.line))
	}
	if jobBase == nil {
		jobBase = h.Sum(nil)
	}
	env := Env{Seed: p.seed, Rank: p.rank, World: max(p.world, 1), Epoch: p.firstEpoch(), definition: def}
	job := sha256.Sum256(fmt.Appendf(jobBase, "epochs %d\njob of world %d\n", p.epochCount(), env.World))
	env.Job = hex.EncodeToString(job[:16])
	env.Fingerprint = hex.EncodeToString(h.Sum(nil)[:16])
	return env
}

// defPart is one part of a pipeline's definition: the line the
// fingerprint hashes, and the label and value a refused resume names.
type defPart struct {
	label, value string
	line         string
}

// definition returns the parts of p's definition that its fingerprint
// covers, in the order it hashes them.
func (p *Pipeline) definition() []defPart {
	var def []defPart
	add := func(label, value, line string) { def = append(def, defPart{label, value, line}) }
	add("format", "v2", "rowflow pipeline v2\n")
	add("seed", fmt.Sprint(p.seed), fmt.Sprintf("seed %d\n", p.seed))
	src := p.src.info()
	add("source", fmt.Sprintf("%s (%v)", src.Name, p.src.outOps().typ()),
		fmt.Sprintf("source %q %v settings %q\n", src.Name, p.src.outOps().typ(), src.Settings))
	for k, s := range p.stages[1:] {
		info := s.op.info()
		add(fmt.Sprintf("stage %d", k+1), fmt.Sprintf("%s (%v → %v)", info.Name, s.op.inOps().typ(), s.op.outOps().typ()),
			fmt.Sprintf("stage %q %v %v unordered=%t settings %q\n", info.Name, s.op.inOps().typ(), s.op.outOps().typ(), s.unordered, info.Settings))
	}
	if p.stages[0].unordered {
		add("source order", "unordered", "source unordered\n")
	}
	if p.pass > 0 {
		add("pass", fmt.Sprint(p.pass), fmt.Sprintf("pass %d\n", p.pass))
	}
	if p.sink.n != nil {
		info := p.sink.n.info()
		add("sink", fmt.Sprintf("%s (%v)", info.Name, p.sink.n.inOps().typ()),
			fmt.Sprintf("sink %q %v settings %q\n", info.Name, p.sink.n.inOps().typ(), info.Settings))
	}
	if n := p.epochCount(); n != 1 {
		add("epochs", fmt.Sprint(n), fmt.Sprintf("epochs %d\n", n))
	}
	if w := max(p.world, 1); w != 1 {
		add("rank", fmt.Sprintf("%d of %d", p.rank, w), fmt.Sprintf("rank %d of %d\n", p.rank, w))
	}
	return def
}
