package gostreams_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/reugn/go-streams"
	"github.com/reugn/go-streams/extension"
	gsflow "github.com/reugn/go-streams/flow"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/interop/gostreams"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// FuzzGoStreams runs the adapters in every direction against an oracle
// written from the package documentation. A seed draws the number of rows
// and how the go-streams side batches them (single int64 elements, []int64
// elements of one size or of mixed sizes with empty and nil slices among
// them, or go-streams' own timer-driven NewBatch), a go-streams Map before
// the adapter or not, PartitionItems, ChunkSize, Named and Chunked, the
// parallelism of a rowflow Map (and maybe a Filter) in between, the
// direction (From an Outlet read as rowflow items, over several epochs
// through operators.Cache as From's doc shows; NewSource over such a
// pipeline feeding a go-streams Map, through its Via or not; NewFlow between
// two go-streams stages, or with its To into a sink; NewSink ending the
// stream in a rowflow sink), and at most one fault: an element of the wrong
// type after row k, the context cancelled once k rows have come out, the Map
// failing at row k, or the consumer stopping after k rows. With a fault, the
// go-streams producer may hold its channel open after its last element until
// the test has seen the run end; without one, it may pause before an element
// (most often where a partition has just filled). An OnStop function that
// ends the producer may be given.
//
// The oracle: element i of the input, however batched, is row i; it lies in
// partition i/PartitionItems and has the ID
// rowid.Ordinal(i).Combine(rowid.FromString(name)); a serial stage at the
// end records both, so that they can be checked in every direction. Without
// a fault the output is exactly the mapped, filtered rows in input order, at
// every parallelism, and Err is nil; with Chunked every element is a
// non-empty []T of one partition. With a fault the output is a prefix of
// that, ending before the partition holding a wrong element or before the
// failing row; Err names the wrong element's row and type, or is the Map's
// StageError with the failing row's partition and ID, or is context.Canceled
// (nil only if the whole output came). A consumer that stops reading and
// cancels gets Err at once. A run that ends early returns even while the
// go-streams source holds its channel open (so a full partition comes out
// without waiting for the end of the stream), and once the source closes it
// no goroutine of either side is left (testutil.Synctest). While the
// producer pauses, once every goroutine is blocked, exactly the rows of the
// full partitions sent so far have come out: a partition waits for its own
// rows, no more. OnStop is called at most once: never by a run that read its
// input to the end, and by the time the run has ended if it ended while the
// input was held open. A second run of a From source fails, saying that the
// stream can be read once, unless a Cache replays the same rows, which it
// must if the first run came to its end; an epoch after the first replays
// the first with the epoch in its partition numbers.
func FuzzGoStreams(f *testing.F) {
	// The low bits of a seed choose the direction and the fault, so the
	// seeds cover every pair.
	for i := range testutil.FuzzSeeds(80) {
		f.Add(uint64(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		c := drawGSCase(seed)
		t.Logf("case: %v", c)
		testutil.Synctest(t, func(t *testing.T) { runGSCase(t, c) })
	})
}

const (
	gsFaultNone = iota
	gsFaultWrongType
	gsFaultCancel
	gsFaultStage
	gsFaultStop
	gsFaults
)

var gsDirections = [...]string{"From", "NewSource", "NewFlow", "NewSink"}

// gsCase is a drawn case of FuzzGoStreams.
type gsCase struct {
	dir   int // an index of gsDirections
	fault int
	n     int
	salt  uint64
	// sizes are the go-streams elements: -1 a single value, -2 a nil
	// []int64, else a []int64 of that many values (0 an empty one).
	sizes   []int
	batch   int  // above 0: single values through gsflow.NewBatch of this size
	upMap   bool // a go-streams Map before the adapter
	part    int  // PartitionItems, 0 for the default
	chunk   int  // ChunkSize, 0 for the default
	name    string
	chunked bool
	w       int // the rowflow Map's parallelism
	filter  bool
	k       int // the fault's row, or rows out
	badAt   int // the wrong element goes before element badAt
	bad     any
	hold    bool // the producer keeps its channel open until the run has ended
	onStop  bool // an OnStop function that ends the producer
	pauseAt int  // at or above 0: the producer pauses before element pauseAt
	epochs  int  // From: the epochs of a run, read through operators.Cache if more than 1
	via     int  // NewSource, NewFlow: output through gsflow.DoStream (0), the adapter's Via (1) or NewFlow's To (2)
}

func (c *gsCase) String() string {
	return fmt.Sprintf("%s fault=%d n=%d elements=%d sizes[:8]=%v batch=%d upMap=%v part=%d chunk=%d name=%q chunked=%v w=%d filter=%v k=%d badAt=%d bad=%#v hold=%v onStop=%v pauseAt=%d epochs=%d via=%d",
		gsDirections[c.dir], c.fault, c.n, len(c.sizes), c.sizes[:min(8, len(c.sizes))], c.batch, c.upMap, c.part, c.chunk, c.name, c.chunked, c.w, c.filter, c.k, c.badAt, c.bad, c.hold, c.onStop, c.pauseAt, c.epochs, c.via)
}

func drawGSCase(seed uint64) *gsCase {
	r := rand.New(rand.NewPCG(seed, seed^0x243f6a8885a308d3))
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	c := &gsCase{
		dir:     int(seed % 4),
		fault:   int(seed / 4 % gsFaults),
		n:       pick(0, 1, 2, 5, 17, 64, 300, 1000, 2500),
		salt:    r.Uint64(),
		upMap:   r.IntN(3) == 0,
		part:    pick(0, 1, 2, 3, 7, 64, 500),
		chunk:   pick(0, 0, 1, 3, 50),
		name:    []string{"", "events", "\xff/ü\x00"}[r.IntN(3)],
		chunked: r.IntN(2) == 0,
		w:       pick(1, 2, 3, 4, 8),
		filter:  r.IntN(3) == 0,
		onStop:  r.IntN(2) == 0,
		epochs:  1,
	}
	switch c.dir {
	case 0:
		c.epochs = pick(1, 1, 2, 3)
	case 1, 2:
		c.via = r.IntN(c.dir + 1)
	}
	if c.fault == gsFaultStop && (c.dir == 1 || c.dir == 2) && r.IntN(2) == 0 {
		// A consumer that stops early in a long stream: the output
		// channel fills, and the run must still end when cancelled.
		c.n, c.chunked, c.k = 2500, false, -1
	}
	if c.part == 1 && c.n > 300 {
		c.n = 300 // a partition a row: keep the case quick
	}
	mode := r.IntN(4)
	if mode == 3 && c.fault == gsFaultWrongType {
		mode = 2 // NewBatch asserts the type of every element
	}
	switch mode {
	case 0:
		for range c.n {
			c.sizes = append(c.sizes, -1)
		}
	case 1:
		s := pick(1, 2, 3, 7, 64, 1000)
		for rest := c.n; rest > 0; rest -= s {
			c.sizes = append(c.sizes, min(s, rest))
		}
	case 2:
		most := pick(2, 10, 300)
		for rest := c.n; rest > 0 || r.IntN(4) == 0; {
			switch x := r.IntN(20); {
			case x < 8 && rest > 0:
				c.sizes = append(c.sizes, -1)
				rest--
			case x < 10:
				c.sizes = append(c.sizes, 0)
			case x < 11:
				c.sizes = append(c.sizes, -2)
			case rest > 0:
				s := 1 + r.IntN(min(rest, most))
				c.sizes = append(c.sizes, s)
				rest -= s
			}
		}
	default:
		for range c.n {
			c.sizes = append(c.sizes, -1)
		}
		c.batch = pick(1, 3, 50)
	}
	early := c.k < 0
	c.k, c.hold, c.pauseAt = 0, c.fault != gsFaultNone && r.IntN(2) == 0, -1
	if c.fault == gsFaultNone && c.batch == 0 && r.IntN(4) > 0 {
		// Not with NewBatch, which may hold elements while the producer
		// pauses. Most often where a partition has just filled, the case
		// that shows a partition waiting for more than its rows.
		if c.n >= 4 && c.partSize() > c.n/2 {
			c.part = 2 + r.IntN(c.n/2-1) // so that partitions fill before the end
		}
		var ends []int
		for i, sent := range c.sent() {
			if sent > 0 && sent%c.partSize() == 0 {
				ends = append(ends, i)
			}
		}
		if c.pauseAt = r.IntN(len(c.sizes) + 1); len(ends) > 0 && r.IntN(3) > 0 {
			c.pauseAt = ends[r.IntN(len(ends))]
		}
	}
	switch c.fault {
	case gsFaultWrongType:
		c.badAt = r.IntN(len(c.sizes) + 1)
		c.bad = []any{"oops", int(7), int32(7), []int32{1}, []any{int64(1)}, nil, struct{}{}}[r.IntN(7)]
		if c.bad == nil {
			c.upMap = false // go-streams' Map asserts every element to its input type, which a nil is not
		}
		c.k = c.sent()[c.badAt]
	case gsFaultCancel, gsFaultStop:
		want, from := c.oracle()
		if c.k = r.IntN(len(want) + 1); early {
			c.k = r.IntN(min(len(want)+1, 300))
		}
		// A partition is delivered once it is full, without waiting for the
		// end of the stream: the run can end early over a producer that
		// holds its channel open if the k-th row out is in a full partition.
		full := c.n / c.partSize() * c.partSize()
		if c.k == 0 {
			// A loop or sink that stops after no rows does not stop: it reads
			// to the end.
			c.hold = c.hold && (c.fault == gsFaultCancel || c.dir == 1 || c.dir == 2)
		} else {
			c.hold = c.hold && from[c.k-1] < full
		}
	case gsFaultStage:
		if c.n == 0 {
			c.fault, c.hold = gsFaultNone, false
		} else {
			c.k = r.IntN(c.n)
			c.hold = c.hold && (c.k/c.partSize()+1)*c.partSize() <= c.n
		}
	}
	return c
}

// sent returns, for each i up to len(c.sizes), the number of rows in the
// elements before element i.
func (c *gsCase) sent() []int {
	out := []int{0}
	for _, s := range c.sizes {
		out = append(out, out[len(out)-1]+max(s, 0)+btoi(s == -1))
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// gsVal is the value of row i: distinct for distinct rows.
func (c *gsCase) gsVal(i int) int64 { return int64(uint64(i)*0x9e3779b97f4a7c15 + c.salt) }

// mapped is what the rowflow Map makes of v.
func mapped(v int64) int64 { return 3*v + 1 }

// kept is the Filter's predicate.
func kept(v int64) bool { return bits.OnesCount64(uint64(v))%3 != 0 }

// partSize is the partition size in force.
func (c *gsCase) partSize() int {
	if c.part == 0 {
		return 4096
	}
	return c.part
}

func (c *gsCase) rowID(i int) rowid.ID {
	name := c.name
	if name == "" {
		name = "gostreams"
	}
	return rowid.Ordinal(uint64(i)).Combine(rowid.FromString(name))
}

// gsRow is an output row with the partition and ID that the stage at the
// end of the pipeline saw it with.
type gsRow struct {
	V    int64
	Part int64
	ID   rowid.ID
}

// oracle returns the rows that a run without a fault gives, in order, and
// the input row each comes from, counted on over the epochs: row i of
// epoch e is e*n + i. An epoch after the first replays the first with the
// epoch in its partition numbers.
func (c *gsCase) oracle() (rows []gsRow, from []int) {
	for e := range c.epochs {
		for i := range c.n {
			v := mapped(c.gsVal(i))
			if c.filter && !kept(v) {
				continue
			}
			rows = append(rows, gsRow{V: v, Part: epoch.Part(int64(e), int64(i/c.partSize())), ID: c.rowID(i)})
			from = append(from, e*c.n+i)
		}
	}
	return rows, from
}

// elements returns the go-streams elements that the producer sends.
func (c *gsCase) elements() []any {
	var out []any
	i := 0
	for e, s := range c.sizes {
		if c.fault == gsFaultWrongType && e == c.badAt {
			out = append(out, c.bad)
		}
		switch s {
		case -1:
			out = append(out, c.gsVal(i))
			i++
		case -2:
			out = append(out, []int64(nil))
		default:
			vals := make([]int64, s)
			for j := range vals {
				vals[j] = c.gsVal(i)
				i++
			}
			out = append(out, vals)
		}
	}
	if c.fault == gsFaultWrongType && c.badAt == len(c.sizes) {
		out = append(out, c.bad)
	}
	return out
}

func (c *gsCase) options() []gostreams.InputOption {
	var opts []gostreams.InputOption
	if c.part > 0 {
		opts = append(opts, sources.PartitionItems(c.part))
	}
	if c.chunk > 0 {
		opts = append(opts, sources.ChunkSize(c.chunk))
	}
	if c.name != "" {
		opts = append(opts, sources.Named(c.name))
	}
	return opts
}

// build appends the rowflow stages to p: the Map on c.w workers, maybe a
// Filter, and the serial stage that records partitions and IDs.
func (c *gsCase) build() func(*flow.Pipeline) *flow.Pipeline {
	bad := c.gsVal(c.k)
	return func(p *flow.Pipeline) *flow.Pipeline {
		p = p.Via(operators.Map(func(v int64) (int64, error) {
			if c.fault == gsFaultStage && v == bad {
				return 0, errBad
			}
			return mapped(v), nil
		})).Parallel(c.w)
		if c.filter {
			p = p.Via(operators.Filter(kept)).Parallel(c.w)
		}
		return p.Via(flow.NewStage[int64, gsRow](recordOp{}))
	}
}

// recordOp is a serial stage that turns every value into a gsRow holding
// its partition and ID.
type recordOp struct{}

func (recordOp) Info() flow.Info                                    { return flow.Info{Name: "record", OneToOne: true} }
func (recordOp) NewProcessor(flow.Env) flow.Processor[int64, gsRow] { return recordProc{} }

type recordProc struct{}

func (recordProc) Process(ctx context.Context, c flow.Chunk[int64], out flow.Emitter[gsRow]) error {
	rows := make([]gsRow, len(c.Values))
	for k, v := range c.Values {
		rows[k] = gsRow{V: v, Part: c.Part, ID: c.IDs.At(k)}
	}
	return out.Push(ctx, flow.Chunk[gsRow]{Part: c.Part, IDs: c.IDs, Values: rows, End: c.End})
}

func (recordProc) Flush(context.Context, flow.Emitter[gsRow]) error { return nil }

// gsOutput gathers what comes out of a run, and the first thing wrong
// with it that the oracle's rows cannot show.
type gsOutput struct {
	c    *gsCase
	mu   sync.Mutex // for a look at rows from the test's goroutine
	rows []gsRow
	bad  error
}

func (o *gsOutput) fail(format string, args ...any) {
	if o.bad == nil {
		o.bad = fmt.Errorf(format, args...)
	}
}

// item adds an item read on the rowflow side, whose partition and ID must
// be those the last stage saw.
func (o *gsOutput) item(it flow.Item[gsRow]) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if it.Part != it.Value.Part || it.ID != it.Value.ID {
		o.fail("item %d: partition %d, ID %v; the last stage saw %d, %v", len(o.rows), it.Part, it.ID, it.Value.Part, it.Value.ID)
	}
	o.rows = append(o.rows, it.Value)
}

// element adds a go-streams element: a gsRow, or with Chunked a
// non-empty []gsRow of one partition.
func (o *gsOutput) element(e any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.c.chunked {
		r, ok := e.(gsRow)
		if !ok {
			o.fail("element %d is a %T, want a gsRow", len(o.rows), e)
			return
		}
		o.rows = append(o.rows, r)
		return
	}
	rs, ok := e.([]gsRow)
	if !ok || len(rs) == 0 {
		o.fail("after %d rows, an element %T of %d rows, want a non-empty []gsRow", len(o.rows), e, len(rs))
		return
	}
	for _, r := range rs {
		if r.Part != rs[0].Part {
			o.fail("after %d rows, a chunk spans partitions %d and %d", len(o.rows), rs[0].Part, r.Part)
			break
		}
	}
	o.rows = append(o.rows, rs...)
}

// gsRun is a run of a case: the context, what came out, and the
// go-streams stream feeding the adapter.
type gsRun struct {
	c         *gsCase
	ctx       context.Context
	cancel    context.CancelFunc
	cancelled bool
	out       *gsOutput
	up        streams.Outlet
	stops     atomic.Int32 // calls of the OnStop function
}

// runGSCase runs c in a synctest bubble and checks it against the oracle.
func runGSCase(t *testing.T, c *gsCase) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &gsRun{c: c, ctx: ctx, cancel: cancel, out: &gsOutput{c: c}}
	ch := gsProducer{gate: make(chan struct{}), stop: make(chan struct{}), paused: make(chan struct{}), resume: make(chan struct{})}
	defer close(ch.gate) // after the run has ended: the producer may close its channel
	r.up = c.produce(ch)
	var opts []gostreams.InputOption
	if c.onStop {
		opts = append(opts, gostreams.OnStop(func() {
			if r.stops.Add(1) == 1 {
				close(ch.stop)
			}
		}))
	}
	r.cancelAt()
	done := make(chan error, 1)
	go func() {
		switch c.dir {
		case 0:
			done <- r.from(t, opts)
		case 1, 2:
			done <- r.source(opts)
		case 3:
			done <- r.sink(opts)
		}
	}()
	if c.pauseAt >= 0 {
		awaitGS(c, ch.paused)
		r.checkPaused(t)
		close(ch.resume)
	}
	err := awaitGS(c, done)
	// The run has ended: OnStop was called if it ended before the input
	// closed, which it must have if the producer holds the input open.
	switch n := r.stops.Load(); {
	case n > 1, c.onStop && c.hold && n != 1:
		t.Fatalf("OnStop called %d times by a run that ended before the input closed, want once", n)
	case c.fault == gsFaultNone && n != 0:
		t.Fatalf("OnStop called %d times by a run that read its input to the end", n)
	}
	if r.out.bad != nil {
		t.Fatal(r.out.bad)
	}
	want, from := c.oracle()
	checkGSOutput(t, c, want, from, r.out.rows, err)
}

// awaitGS receives from ch. A run that hangs leaves every goroutine of the
// bubble blocked, which synctest reports as a deadlock, but NewBatch's
// ticker keeps the bubble's clock going: after an hour of it, awaitGS
// panics, and the panic lists every goroutine.
func awaitGS[T any](c *gsCase, ch <-chan T) T {
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Hour):
		panic(fmt.Sprintf("the run has not ended after an hour of the bubble's clock: %v", c))
	}
}

// gsProducer holds the channels that steer the go-streams producer.
type gsProducer struct {
	gate   chan struct{} // closed once the run has ended
	stop   chan struct{} // closed by the OnStop function
	paused chan struct{} // closed by the producer when it pauses
	resume chan struct{} // closed to let it go on
}

// produce starts the go-streams producer and returns the stream that
// feeds the adapter. The producer pauses before element c.pauseAt, if
// that is at or above 0, and ends when p.stop is closed; after its last
// element it keeps its channel open until p.gate is closed if c.hold.
func (c *gsCase) produce(p gsProducer) streams.Outlet {
	ch := make(chan any)
	elems := c.elements()
	go func() {
		defer close(ch)
		for i := 0; ; i++ {
			if i == c.pauseAt {
				close(p.paused)
				<-p.resume
			}
			if i == len(elems) {
				break
			}
			select {
			case ch <- elems[i]:
			case <-p.stop:
				return
			}
		}
		if c.hold {
			select {
			case <-p.gate:
			case <-p.stop:
			}
		}
	}()
	src := extension.NewChanSource(ch)
	switch {
	case c.batch > 0:
		return src.Via(gsflow.NewBatch[int64](c.batch, time.Second))
	case c.upMap:
		return src.Via(gsflow.NewMap(func(e any) any { return e }, 1))
	}
	return src
}

// checkPaused checks what has come out while the producer pauses, once
// every goroutine is blocked: a partition is complete when it is full, so
// every row of the full partitions sent so far, and no other row.
func (r *gsRun) checkPaused(t *testing.T) {
	synctest.Wait()
	c := r.c
	sent := c.sent()[c.pauseAt]
	full := sent / c.partSize() * c.partSize()
	want, from := c.oracle()
	need := 0
	for need < len(from) && from[need] < full {
		need++
	}
	r.out.mu.Lock()
	got := len(r.out.rows)
	r.out.mu.Unlock()
	if got != need {
		t.Errorf("%d rows out while the producer pauses after %d rows (%d in full partitions), want %d of the %d", got, sent, full, need, len(want))
	}
}

// cancelAt cancels the run once k rows have come out, if that is the
// case's fault.
func (r *gsRun) cancelAt() {
	if r.c.fault == gsFaultCancel && !r.cancelled && len(r.out.rows) >= r.c.k {
		r.cancel()
		r.cancelled = true
	}
}

// from reads the stream as a rowflow source, over several epochs through
// operators.Cache, as From's doc shows. A second run must fail, the stream
// having been read, unless it replays the cache whole; it must if the first
// run came to its end.
func (r *gsRun) from(t *testing.T, opts []gostreams.InputOption) (err error) {
	src := flow.From(gostreams.From[int64](r.up, append(r.c.options(), opts...)...))
	if r.c.epochs > 1 {
		src = flow.From(operators.Cache[int64](src)).Epochs(int64(r.c.epochs))
	}
	p := r.c.build()(src)
	for it, e := range flow.Items[gsRow](r.ctx, p) {
		if e != nil {
			err = e
			break
		}
		r.out.item(it)
		if r.c.fault == gsFaultStop && len(r.out.rows) == r.c.k {
			break
		}
		r.cancelAt()
	}
	want, _ := r.c.oracle()
	cached := r.c.epochs > 1 && err == nil && len(r.out.rows) == len(want)
	var again []gsRow
	for it, e := range flow.Items[gsRow](context.Background(), p) {
		switch {
		case e != nil && r.c.epochs > 1 && r.c.fault == gsFaultStage && errors.Is(e, errBad):
			// The Map fails again over the replayed cache, which the
			// source's pass filled whole before the Map failed.
		case e != nil && cached:
			t.Errorf("a second run after the first came to its end: %v, want the cache replayed", e)
		case e != nil && !strings.Contains(e.Error(), "can be read once"):
			t.Errorf("a second run: %v, want an error saying the stream can be read once", e)
		}
		if e != nil {
			return err
		}
		again = append(again, it.Value)
	}
	switch {
	case r.c.epochs == 1:
		t.Errorf("a second run gave %d rows and no error, want an error saying the stream can be read once", len(again))
	case !slices.Equal(again, want):
		t.Errorf("a second run replayed %d rows from the cache, not the %d rows of the first", len(again), len(want))
	}
	return err
}

// source runs NewSource over a pipeline reading the stream, or NewFlow
// between go-streams stages, and reads its output through a go-streams Map.
func (r *gsRun) source(opts []gostreams.InputOption) error {
	c := r.c
	in := append(c.options(), opts...)
	var out []gostreams.OutputOption
	if c.chunked {
		out = append(out, gostreams.Chunked())
	}
	var adapter gsAdapter
	var rf *gostreams.Flow[int64, gsRow]
	if c.dir == 1 {
		p := c.build()(flow.From(gostreams.From[int64](r.up, in...)))
		adapter = gostreams.NewSource[gsRow](r.ctx, p, out...)
	} else {
		both := make([]gostreams.FlowOption, 0, len(in)+len(out))
		for _, o := range in {
			both = append(both, o)
		}
		for _, o := range out {
			both = append(both, o)
		}
		rf = gostreams.NewFlow[int64, gsRow](r.ctx, c.build(), both...)
		gsflow.DoStream(r.up, rf)
		adapter = rf
	}
	if c.fault == gsFaultStop {
		return stopReading(r.cancel, adapter, r.out)
	}
	down := make(chan any)
	identity := func() streams.Flow { // a go-streams Map, started when made
		if c.chunked {
			return gsflow.NewMap(func(rs []gsRow) []gsRow { return rs }, 1)
		}
		return gsflow.NewMap(func(r gsRow) gsRow { return r }, 1)
	}
	switch {
	case c.via == 2 && rf != nil: // the Flow's To, straight to the sink
		go rf.To(extension.NewChanSink(down))
	case c.via > 0: // the adapter's Via
		go adapter.Via(identity()).To(extension.NewChanSink(down))
	default:
		m := identity()
		gsflow.DoStream(adapter, m)
		go m.To(extension.NewChanSink(down))
	}
	for e := range down {
		r.out.element(e)
		r.cancelAt()
	}
	return adapter.Err()
}

// gsAdapter is what NewSource and NewFlow return.
type gsAdapter interface {
	streams.Outlet
	Via(streams.Flow) streams.Flow
	Err() error
}

// sink ends the stream in NewSink, whose pipeline ends in a ForEach.
func (r *gsRun) sink(opts []gostreams.InputOption) error {
	c := r.c
	sink := gostreams.NewSink[int64](r.ctx, func(p *flow.Pipeline) *flow.Pipeline {
		return c.build()(p).To(sinks.ForEach(func(it flow.Item[gsRow]) error {
			r.out.item(it)
			if c.fault == gsFaultStop && len(r.out.rows) == c.k {
				return flow.ErrStop
			}
			r.cancelAt()
			return nil
		}))
	}, append(c.options(), opts...)...)
	gsflow.DoStream(r.up, sink)
	sink.AwaitCompletion()
	return sink.Err()
}

// stopReading reads the adapter's output until k rows have come, lets the
// run go on until it is blocked on the full output or has ended, then
// cancels and asks Err without reading further: it must return, the
// consumer having stopped. What the output still holds then is a
// continuation of the stream, and the output is closed.
func stopReading(cancel context.CancelFunc, a gsAdapter, out *gsOutput) error {
	for len(out.rows) < out.c.k {
		e, ok := <-a.Out()
		if !ok {
			break
		}
		out.element(e)
	}
	synctest.Wait() // the run fills what the output holds, and waits
	cancel()
	err := a.Err()
	for e := range a.Out() {
		out.element(e)
	}
	return err
}

// checkGSOutput checks the rows a run gave and its error against the
// oracle's rows want, which come from the input rows from.
func checkGSOutput(t *testing.T, c *gsCase, want []gsRow, from []int, got []gsRow, err error) {
	t.Helper()
	if len(got) > len(want) {
		t.Fatalf("%d rows, more than the %d expected", len(got), len(want))
	}
	for i, r := range got {
		if r != want[i] {
			t.Fatalf("row %d (input row %d) is %+v, want %+v", i, from[i], r, want[i])
		}
	}
	complete := len(got) == len(want)
	switch c.fault {
	case gsFaultNone:
		if err != nil || !complete {
			t.Fatalf("%d rows of %d, error %v; want them all and no error", len(got), len(want), err)
		}
	case gsFaultWrongType:
		name := c.name
		if name == "" {
			name = "gostreams"
		}
		msg := fmt.Sprintf("gostreams: source %q: the element after row %d is a %T", name, c.k, c.bad)
		if err == nil || !strings.Contains(err.Error(), msg) || strings.Contains(err.Error(), "gostreams: gostreams") {
			t.Fatalf("error %v, want one saying %q", err, msg)
		}
		// The partition holding the wrong element is never read whole.
		if end := c.k / c.partSize() * c.partSize(); len(got) > 0 && from[len(got)-1] >= end {
			t.Fatalf("input row %d came out, of the partition holding the wrong element, which starts at row %d", from[len(got)-1], end)
		}
	case gsFaultStage:
		var se *flow.StageError
		if !errors.As(err, &se) || !errors.Is(err, errBad) {
			t.Fatalf("error %v, want the Map's StageError", err)
		}
		if !se.HasPart || !se.HasID || se.Part != int64(c.k/c.partSize()) || se.ID != c.rowID(c.k) {
			t.Fatalf("error %v names partition %d (%v), row %v (%v); want partition %d, row %v", err, se.Part, se.HasPart, se.ID, se.HasID, c.k/c.partSize(), c.rowID(c.k))
		}
		if len(got) > 0 && from[len(got)-1] >= c.k {
			t.Fatalf("input row %d came out, at or after the failing row %d", from[len(got)-1], c.k)
		}
	case gsFaultCancel:
		if len(got) < c.k {
			t.Fatalf("%d rows before the cancel, want at least %d", len(got), c.k)
		}
		if !(err == nil && complete) && !errors.Is(err, context.Canceled) {
			t.Fatalf("%d rows of %d, error %v; want context.Canceled, or all rows and no error", len(got), len(want), err)
		}
	case gsFaultStop:
		if c.dir == 0 || c.dir == 3 { // the loop is left, or the sink stops: a success
			if err != nil || len(got) != c.k && !(c.k == 0 && complete) {
				t.Fatalf("%d rows, error %v; want %d and no error", len(got), err, c.k)
			}
			return
		}
		if len(got) < c.k {
			t.Fatalf("%d rows before the cancel, want at least %d", len(got), c.k)
		}
		if !(err == nil && complete) && !errors.Is(err, context.Canceled) {
			t.Fatalf("%d rows of %d, error %v; want context.Canceled, or all rows and no error", len(got), len(want), err)
		}
	}
}
