package flow_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// FuzzCursors reads pipelines drawn at random with cursor sets and checks
// what the cursors hand out against the serial run of the same pipeline
// (Items, every stage on one worker).
//
// A seed draws the source (a slice or a generator, with its partition and
// chunk sizes, read on one worker or several), up to four stages (Map,
// Filter, FlatMap, on one worker or several; Shuffle and Take, serial),
// the epochs and the seed, and sometimes a Map that fails at a value the
// serial run reaches. It draws the number of cursors (1 to 6) and how they
// are read: in turns from the test's goroutine, a burst of items pulled
// from one cursor at a time (iter.Pull2 of its All; a cursor that waits
// for another cursor is left waiting, and another takes its turn); each
// cursor on a goroutine of its own, ranging over its All or pulling from
// it; or with Consolidate. It draws where a
// cursor stops and closes, where the whole set is closed, and when a
// Tracker takes the set's checkpoint, which is then resumed with another
// number of cursors (or as many).
//
// Checked, against the serial run: each cursor's partitions never
// decrease and no partition reaches two cursors; each partition's items
// are the serial partition's, from its start, and all of it unless the
// cursor that held it was closed there; with no cursor closed, every
// item arrives, and with one cursor the items are the serial stream;
// Consolidate gives the serial stream, or a start of it when left early;
// a stage's error is reported by at least one cursor, by no cursor as
// anything else, and by CursorSet.Close, and with one cursor it is the
// serial run's error after the serial run's items; a set closed while
// its cursors wait ends each cursor that had not ended with
// ErrCursorSetClosed; an ended cursor stays ended; the items handed out
// before the checkpoint and those of the resumed set, stable-sorted by
// partition, are the serial stream, and a cursor resumed among as many
// goes on with the partition it held. No goroutine of a run outlives the
// test (each seed runs in a synctest bubble).
func FuzzCursors(f *testing.F) {
	for i := range testutil.FuzzSeeds(48) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 7)
	}
	// The bugs it found have regression tests of their own:
	// TestCursorSetConsolidateStopsAtStageError and
	// TestCursorSetResumeNeverGoesBack.
	f.Fuzz(func(t *testing.T, seed uint64) {
		c := newCursorCase(seed)
		t.Logf("%s", c)
		testutil.Synctest(t, c.check)
	})
}

// How a cursor set is read.
type readMode int

const (
	inTurns     readMode = iota // bursts of items pulled from one cursor at a time, from one goroutine
	onGoroutine                 // each cursor on a goroutine of its own
	consolidate                 // CursorSet.Consolidate
)

func (m readMode) String() string {
	return [...]string{"in turns", "on goroutines", "Consolidate"}[m]
}

// cursorCase is a drawn pipeline and the way its cursor sets are read.
type cursorCase struct {
	desc []string
	// build makes the pipeline, its stages on their drawn workers when
	// par is true and on one worker otherwise; the failing Map, if drawn,
	// fails at the value *fail and passes every value when fail is nil.
	build func(par bool, fail *int64) *flow.Pipeline
	// before makes the serial pipeline up to the failing Map, or is nil.
	before  func() *flow.Pipeline
	failPos uint64 // picks the failing value among those before's run gives
	// serialAfter: a serial stage follows the failing Map, so nothing
	// after the failing row in the serial order passes it.
	serialAfter bool

	n, m         int      // cursors of the set, and of the resumed set (0: no checkpoint)
	mode, resume readMode // how each is read
	stop         []int    // per cursor: the items after which it is closed, or -1
	all          []bool   // per cursor on its goroutine: a range over All, not iter.Pull2 of it
	setClose     int      // the turn (in turns) or the item count (on goroutines) at which the set is closed, or -1
	ckTurn       int      // the turn at which the checkpoint is taken (at the end if never reached)
	leave        int      // the items after which Consolidate is left, or -1
	r            *rand.Rand
}

func (c *cursorCase) String() string {
	s := strings.Join(c.desc, " → ") + fmt.Sprintf("; %d cursors %v", c.n, c.mode)
	switch c.mode {
	case consolidate:
		s += fmt.Sprintf(", left after item %d", c.leave)
	case onGoroutine:
		s += fmt.Sprintf(", stops %v, All %v, set closed after item %d", c.stop, c.all, c.setClose)
	default:
		s += fmt.Sprintf(", stops %v, set closed at turn %d", c.stop, c.setClose)
	}
	if c.m > 0 {
		s += fmt.Sprintf("; checkpoint at turn %d, resumed with %d cursors %v", c.ckTurn, c.m, c.resume)
	}
	return s
}

// newCursorCase draws a case from seed.
func newCursorCase(seed uint64) *cursorCase {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	c := &cursorCase{r: r}

	size, part, chunk := pick(0, 1, 9, 40, 120, 120), pick(1, 3, 8, 25), pick(1, 2, 5, 64)
	opts := []sources.SliceOption{sources.PartitionItems(part), sources.ChunkSize(chunk)}
	var src func() flow.Source[int64]
	if r.IntN(2) == 0 {
		src = func() flow.Source[int64] { return sources.Slice(ints(size), opts...) }
		c.desc = append(c.desc, fmt.Sprintf("Slice(%d, part %d, chunk %d)", size, part, chunk))
	} else {
		src = func() flow.Source[int64] {
			return sources.Generate(int64(size), func(i int64) (int64, error) { return i*i%97 - 40, nil }, opts...)
		}
		c.desc = append(c.desc, fmt.Sprintf("Generate(%d, part %d, chunk %d)", size, part, chunk))
	}
	srcPar := pick(0, 0, 2, 3)
	if srcPar > 0 {
		c.desc[0] += fmt.Sprintf(".Parallel(%d)", srcPar)
	}

	type stage struct {
		par    int // workers, 0 for one
		serial bool
		make   func() flow.Stage
	}
	var stages []stage
	for range r.IntN(5) {
		var s stage
		var name string
		switch r.IntN(6) {
		case 0, 1:
			k := int64(pick(1, 3, 7))
			name = fmt.Sprintf("Map(*%d+1)", k)
			s.make = func() flow.Stage { return operators.Map(func(v int64) (int64, error) { return v*k + 1, nil }) }
			s.par = pick(0, 2, 3, 4)
		case 2:
			k := int64(pick(2, 3, 5))
			name = fmt.Sprintf("Filter(%%%d)", k)
			s.make = func() flow.Stage { return operators.Filter(func(v int64) bool { return v%k != 1 }) }
			s.par = pick(0, 2, 3, 4)
		case 3:
			name = "FlatMap"
			s.make = func() flow.Stage {
				return operators.FlatMap(func(v int64) ([]int64, error) {
					out := make([]int64, (v%3+3)%3) // 0, 1 or 2 values
					for i := range out {
						out[i] = v*10 + int64(i)
					}
					return out, nil
				})
			}
			s.par = pick(0, 2, 3, 4)
		case 4:
			w, k := pick(1, 5, 30), pick(2, 7, 20)
			name = fmt.Sprintf("Shuffle(%d, part %d)", w, k)
			s.make = func() flow.Stage { return operators.Shuffle[int64](w, operators.PartitionItems(k)) }
			s.serial = true
		default:
			k := int64(pick(0, 5, 50, 200))
			name = fmt.Sprintf("Take(%d)", k)
			s.make = func() flow.Stage { return operators.Take[int64](k) }
			s.serial = true
		}
		if s.par > 0 {
			name += fmt.Sprintf(".Parallel(%d)", s.par)
		}
		c.desc = append(c.desc, name)
		stages = append(stages, s)
	}
	failAt, failPar := -1, 0
	if r.IntN(4) == 0 {
		failAt, failPar, c.failPos = r.IntN(len(stages)+1), pick(0, 2, 3), r.Uint64()
		name := "Map(fails)"
		if failPar > 0 {
			name += fmt.Sprintf(".Parallel(%d)", failPar)
		}
		c.desc = slices.Insert(c.desc, failAt+1, name)
		for _, s := range stages[failAt:] {
			c.serialAfter = c.serialAfter || s.serial
		}
	}
	epochs, wseed := int64(pick(1, 1, 2, 3)), r.Uint64()
	c.desc = append(c.desc, fmt.Sprintf("Epochs(%d).WithSeed(%d)", epochs, wseed))

	// upTo builds the pipeline's first k stages, and the failing Map
	// where it goes when fail is set.
	upTo := func(k int, par, withFail bool, fail *int64) *flow.Pipeline {
		p := flow.From(src())
		if par && srcPar > 0 {
			p = p.Parallel(srcPar)
		}
		for i := range k + 1 {
			if withFail && i == failAt {
				p = p.Via(operators.Map(func(v int64) (int64, error) {
					if fail != nil && v == *fail {
						return 0, errBad
					}
					return v, nil
				}))
				if par && failPar > 0 {
					p = p.Parallel(failPar)
				}
			}
			if i == k {
				break
			}
			p = p.Via(stages[i].make())
			if par && stages[i].par > 0 {
				p = p.Parallel(stages[i].par)
			}
		}
		return p.Epochs(epochs).WithSeed(wseed)
	}
	c.build = func(par bool, fail *int64) *flow.Pipeline { return upTo(len(stages), par, true, fail) }
	if failAt >= 0 {
		c.before = func() *flow.Pipeline { return upTo(failAt, false, false, nil) }
	}

	c.n = 1 + r.IntN(6)
	c.mode = readMode(max(r.IntN(4)-1, 0)) // in turns half the time
	c.stop, c.all = make([]int, c.n), make([]bool, c.n)
	for i := range c.stop {
		c.stop[i] = -1
		if r.IntN(3) == 0 {
			c.stop[i] = r.IntN(2*size/c.n + 2)
		}
		c.all[i] = r.IntN(2) == 0
	}
	c.setClose, c.leave = -1, -1
	if r.IntN(5) == 0 {
		c.setClose = r.IntN(size/2 + 2)
	}
	if r.IntN(3) == 0 {
		c.leave = r.IntN(size + 1)
	}
	if failAt < 0 && c.mode == inTurns && r.IntN(4) > 0 {
		c.m = 1 + r.IntN(6)
		if r.IntN(3) == 0 {
			c.m = c.n
		}
		c.ckTurn = r.IntN(size/2 + 2)
		c.resume = readMode(r.IntN(3))
	}
	return c
}

// check runs the case: the serial runs, the cursor set, and the resumed
// set.
func (c *cursorCase) check(t *testing.T) {
	var fail *int64
	if c.before != nil {
		if vals := testutil.Items[int64](t, c.before()); len(vals) > 0 {
			v := vals[c.failPos%uint64(len(vals))].Value
			fail = &v
		}
	}
	// full is the serial stream with the failing Map passing every value;
	// serial, serialErr what the serial run gives with it failing.
	full := testutil.Items[int64](t, c.build(false, nil))
	serial, serialErr := collectItems[int64](c.build(false, fail))
	if serialErr == nil && !slices.Equal(serial, full) {
		t.Fatalf("the serial run gives %d items with the failing Map never failing, %d without it failing at all", len(serial), len(full))
	}
	if serialErr != nil && !errors.Is(serialErr, errBad) {
		t.Fatalf("the serial run fails with %v", serialErr)
	}
	o := &oracle{full: full, serial: serial, serialErr: serialErr, parts: byPartition(full)}
	if serialErr != nil {
		c.stop = slices.Repeat([]int{-1}, c.n)
		c.setClose, c.leave = -1, -1
	}

	p := c.build(true, fail)
	var tr *flow.Tracker
	if c.m > 0 {
		tr = new(flow.Tracker)
		p = p.Checkpoints(tr)
	}
	s, err := flow.Cursors[int64](context.Background(), p, c.n)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	switch c.mode {
	case consolidate:
		c.checkConsolidate(t, s, o)
		return
	case onGoroutine:
		c.checkRun(t, o, c.readOnGoroutines(t, s))
		return
	}
	run, ck := c.readInTurns(t, s, tr, c.stop, c.setClose, c.ckTurn)
	c.checkRun(t, o, run)
	if ck == nil {
		return
	}

	// The resumed set hands out the rest.
	s2, err := flow.Cursors[int64](context.Background(), c.build(true, nil).Resume(*ck), c.m)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var after [][]flow.Item[int64]
	switch c.resume {
	case consolidate:
		var got []flow.Item[int64]
		for it, err := range s2.Consolidate() {
			if err != nil {
				t.Fatalf("resumed, Consolidate: %v", err)
			}
			got = append(got, it)
		}
		if !slices.IsSortedFunc(got, func(a, b flow.Item[int64]) int { return cmpPart(a, b) }) {
			t.Fatalf("resumed, Consolidate gives partitions %v, not in order", partsOf(got))
		}
		after = [][]flow.Item[int64]{got}
	case onGoroutine:
		after = readQuota(t, s2, slices.Repeat([]int{-1}, c.m))
	default:
		run2, _ := c.readInTurns(t, s2, nil, slices.Repeat([]int{-1}, c.m), -1, -1)
		for i, err := range run2.errs {
			if err != nil {
				t.Fatalf("resumed, cursor %d: %v", i, err)
			}
		}
		after = run2.items
	}
	if err := s2.Close(); err != nil {
		t.Fatalf("resumed, Close: %v", err)
	}
	c.checkResumed(t, o, run, after)
}

// oracle is what the serial runs gave.
type oracle struct {
	full      []flow.Item[int64] // with no failure
	serial    []flow.Item[int64] // up to the failure, if any
	serialErr error
	parts     map[int64][]flow.Item[int64] // full's items by partition
}

func byPartition(items []flow.Item[int64]) map[int64][]flow.Item[int64] {
	parts := map[int64][]flow.Item[int64]{}
	for _, it := range items {
		parts[it.Part] = append(parts[it.Part], it)
	}
	return parts
}

func cmpPart(a, b flow.Item[int64]) int {
	switch {
	case a.Part < b.Part:
		return -1
	case a.Part > b.Part:
		return 1
	}
	return 0
}

// cursorRun is what the cursors of a set handed out and how they ended.
type cursorRun struct {
	items    [][]flow.Item[int64]
	errs     []error
	ended    []bool // reached the stream's end: All ended without an error
	closed   []bool // closed by the test: Close, or leaving All
	setClose bool   // the set was closed before every cursor ended
	closeErr error  // what CursorSet.Close returned
	// At the checkpoint: what each cursor had handed out, and whether it
	// was still open.
	before [][]flow.Item[int64]
	open   []bool
}

// turnReader reads one cursor on a goroutine of its own, a burst of items
// pulled from its All at a time, when the test's goroutine gives it its
// turn. What it reads is recorded under mu as soon as it is pulled.
type turnReader struct {
	c   *flow.Cursor[int64]
	req chan int // the number of items to read; -1 closes the cursor

	mu     sync.Mutex
	busy   bool // a turn is under way: the cursor is fetching an item, or inside Close
	items  []flow.Item[int64]
	ended  bool
	closed bool
	err    error
}

func (r *turnReader) serve() {
	next, stop := iter.Pull2(r.c.All())
	defer stop()
	for k := range r.req {
		if k < 0 {
			r.c.Close()
			r.mu.Lock()
			r.closed, r.busy = true, false
			r.mu.Unlock()
			continue
		}
		for range k {
			it, err, ok := next()
			ok = ok && err == nil
			r.mu.Lock()
			if ok {
				r.items = append(r.items, it)
			} else {
				r.ended, r.err = true, err
			}
			r.mu.Unlock()
			if !ok {
				break
			}
		}
		r.mu.Lock()
		r.busy = false
		r.mu.Unlock()
	}
}

// state returns what r has read, and whether it is busy and whether it
// has ended or been closed.
func (r *turnReader) state() (items int, busy, done bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.items), r.busy, r.ended || r.closed
}

func (r *turnReader) give(k int) {
	r.mu.Lock()
	r.busy = true
	r.mu.Unlock()
	r.req <- k
}

// readInTurns reads the cursors of s in turns from the test's goroutine:
// each turn, once every goroutine of the bubble is blocked, it gives a
// cursor that is not fetching an item a burst of 1 to 8 items to pull
// (or closes it once it has read stop[i] items). A cursor that waits for
// input is left waiting while the others take turns; if every open
// cursor waits, the set hangs, which fails the test. At turn setClose it
// closes the set; at turn ckTurn (or at the end, if no later) it takes
// tr's checkpoint.
func (c *cursorCase) readInTurns(t *testing.T, s *flow.CursorSet[int64], tr *flow.Tracker, stop []int, setClose, ckTurn int) (*cursorRun, *flow.Checkpoint) {
	t.Helper()
	cs := s.Cursors()
	rs := make([]*turnReader, len(cs))
	var wg sync.WaitGroup
	for i, cur := range cs {
		rs[i] = &turnReader{c: cur, req: make(chan int, 1)}
		wg.Go(rs[i].serve)
	}
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			for _, r := range rs {
				close(r.req)
			}
			wg.Wait()
		}
	}
	defer func() {
		if !stopped { // failing: the cursors may be waiting
			s.Close()
			halt()
		}
	}()

	run := &cursorRun{}
	var ck *flow.Checkpoint
	checkpoint := func() {
		if tr == nil || ck != nil {
			return
		}
		k, err := tr.Checkpoint()
		if err != nil {
			t.Fatalf("Checkpoint: %v", err)
		}
		ck = &k
		for _, r := range rs {
			r.mu.Lock()
			run.before = append(run.before, slices.Clone(r.items))
			run.open = append(run.open, !r.ended && !r.closed)
			r.mu.Unlock()
		}
	}
	// When the set is closed: the cursors that had not ended, what each
	// had read, and those not fetching an item.
	var notEnded, idle []int
	var had []int
	for turn := 0; ; turn++ {
		synctest.Wait()
		if turn == ckTurn {
			checkpoint()
		}
		var ready []int
		open := 0
		for i, r := range rs {
			_, busy, done := r.state()
			if !done {
				open++
				notEnded = append(notEnded, i)
				if !busy {
					ready = append(ready, i)
				}
			}
		}
		if open == 0 {
			notEnded = nil
			break
		}
		if turn == setClose || len(ready) == 0 {
			if len(ready) == 0 {
				t.Errorf("turn %d: the set hangs: each of its %d open cursors waits for an item or in Close", turn, open)
			}
			checkpoint()
			idle = ready
			for _, r := range rs {
				n, _, _ := r.state()
				had = append(had, n)
			}
			run.setClose = true
			break
		}
		notEnded = notEnded[:0]
		i := ready[c.r.IntN(len(ready))]
		n, _, _ := rs[i].state()
		if stop[i] >= 0 && n >= stop[i] {
			rs[i].give(-1)
			continue
		}
		k := 1 + c.r.IntN(8)
		if stop[i] >= 0 {
			k = min(k, stop[i]-n)
		}
		rs[i].give(k)
	}
	checkpoint()
	if run.setClose {
		run.closeErr = s.Close()
		synctest.Wait() // the cursors that waited have ended
		for _, i := range idle {
			rs[i].give(1)
		}
		synctest.Wait()
	}
	halt()
	if !run.setClose {
		run.closeErr = s.Close()
	}
	for i, r := range rs {
		run.items = append(run.items, r.items)
		run.errs = append(run.errs, r.err)
		run.ended = append(run.ended, r.ended && !r.closed && r.err == nil)
		run.closed = append(run.closed, r.closed)
		if r.busy || !r.ended && !r.closed {
			t.Fatalf("cursor %d neither ended nor closed after the set's Close (busy %t)", i, r.busy)
		}
		// An ended cursor stays ended, with the same error; closing it
		// does nothing.
		for range 2 {
			checkEnded(t, i, r.c, r.err)
			r.c.Close()
		}
	}
	// The cursors that had not ended when the set was closed end with
	// ErrCursorSetClosed, and hand out nothing more.
	for _, i := range notEnded {
		if !errors.Is(run.errs[i], flow.ErrCursorSetClosed) || len(run.items[i]) != had[i] {
			t.Fatalf("cursor %d, not ended when the set was closed after its item %d: error %v after %d items, want ErrCursorSetClosed",
				i, had[i], run.errs[i], len(run.items[i]))
		}
	}
	return run, ck
}

// readOnGoroutines reads each cursor of s on a goroutine of its own,
// ranging over its All or pulling from it, each closing its cursor after
// its stop (by leaving the range, or with Close); the set is closed
// when the cursors have handed out setClose items in all.
func (c *cursorCase) readOnGoroutines(t *testing.T, s *flow.CursorSet[int64]) *cursorRun {
	cs := s.Cursors()
	run := &cursorRun{items: make([][]flow.Item[int64], c.n), errs: make([]error, c.n),
		ended: make([]bool, c.n), closed: make([]bool, c.n)}
	seen := &progress{at: int64(c.setClose), reached: make(chan struct{})}
	if c.setClose == 0 {
		close(seen.reached)
	}
	var readers sync.WaitGroup
	for i, cur := range cs {
		readers.Go(func() {
			stop := c.stop[i]
			if stop == 0 {
				cur.Close()
				run.closed[i] = true
				return
			}
			if c.all[i] {
				for it, err := range cur.All() {
					if err != nil {
						run.errs[i] = err
						break
					}
					run.items[i] = append(run.items[i], it)
					seen.add()
					if len(run.items[i]) == stop {
						run.closed[i] = true
						break
					}
				}
				run.ended[i] = !run.closed[i] && run.errs[i] == nil
				return
			}
			next, stopPull := iter.Pull2(cur.All())
			defer stopPull()
			for {
				it, err, ok := next()
				if !ok || err != nil {
					run.errs[i] = err
					break
				}
				run.items[i] = append(run.items[i], it)
				seen.add()
				if len(run.items[i]) == stop {
					cur.Close()
					run.closed[i] = true
					return
				}
			}
			run.ended[i] = run.errs[i] == nil
		})
	}
	done := make(chan struct{})
	var closer sync.WaitGroup
	if c.setClose >= 0 {
		closer.Go(func() {
			select {
			case <-seen.reached:
				run.setClose = true
				run.closeErr = s.Close()
			case <-done:
			}
		})
	}
	readers.Wait()
	close(done)
	closer.Wait()
	if !run.setClose {
		run.closeErr = s.Close()
	}
	for i, cur := range cs {
		checkEnded(t, i, cur, run.errs[i])
		if run.setClose && run.errs[i] != nil && !errors.Is(run.errs[i], flow.ErrCursorSetClosed) && run.closeErr == nil {
			t.Fatalf("cursor %d ended with %v after the set's Close", i, run.errs[i])
		}
	}
	return run
}

// checkEnded checks that cursor i, which ended with err, gives no item
// from All any more, only err again if it is not nil.
func checkEnded(t *testing.T, i int, c *flow.Cursor[int64], err error) {
	t.Helper()
	var errs []error
	for it, e := range c.All() {
		if e == nil {
			t.Fatalf("cursor %d ended with %v; then All gives %+v", i, err, it)
		}
		errs = append(errs, e)
	}
	if err == nil && len(errs) > 0 || err != nil && (len(errs) != 1 || errs[0] != err) {
		t.Fatalf("cursor %d ended with %v; then All gives the errors %v", i, err, errs)
	}
}

// checkRun checks what the cursors of a set handed out against the
// serial runs.
func (c *cursorCase) checkRun(t *testing.T, o *oracle, run *cursorRun) {
	t.Helper()
	owner := map[int64]int{}
	cut := map[int64]bool{} // partitions a cursor was closed in
	for i, items := range run.items {
		for k, it := range items {
			if k > 0 && it.Part < items[k-1].Part {
				t.Fatalf("cursor %d: partition %d after %d", i, it.Part, items[k-1].Part)
			}
			if o, ok := owner[it.Part]; ok && o != i {
				t.Fatalf("partition %d reached cursors %d and %d", it.Part, o, i)
			}
			owner[it.Part] = i
		}
		if len(items) > 0 && (run.closed[i] || run.setClose && !run.ended[i]) {
			cut[items[len(items)-1].Part] = true
		}
	}
	// Each partition's items are the serial partition's, from its start.
	got := map[int64]int{}
	for i, items := range run.items {
		for _, it := range items {
			k := got[it.Part]
			want := o.parts[it.Part]
			if k >= len(want) || it != want[k] {
				t.Fatalf("cursor %d: item %d of partition %d is %+v; the serial partition has %d items: %v", i, k, it.Part, it, len(want), want)
			}
			got[it.Part] = k + 1
		}
	}

	if o.serialErr != nil {
		c.checkStageError(t, o, run, got)
		return
	}
	for i, err := range run.errs {
		if err != nil && !(run.setClose && errors.Is(err, flow.ErrCursorSetClosed)) {
			t.Fatalf("cursor %d: Err %v", i, err)
		}
	}
	if run.closeErr != nil {
		t.Fatalf("Close: %v", run.closeErr)
	}
	// Every item arrives, but the rest of a partition a cursor was closed
	// in; when every cursor was closed before the stream's end, the
	// partitions no cursor took are the last ones.
	reachedEnd := slices.Contains(run.ended, true) && !run.setClose
	firstMissing, lastGot := int64(-1), int64(-1)
	for _, it := range o.full {
		p := it.Part
		switch {
		case got[p] == len(o.parts[p]):
		case got[p] > 0 && cut[p]:
		case got[p] == 0 && !reachedEnd:
			if firstMissing < 0 {
				firstMissing = p
			}
		default:
			t.Fatalf("partition %d: %d of its %d items arrived (cursors closed %v, set closed %t, ended %v)", p, got[p], len(o.parts[p]), run.closed, run.setClose, run.ended)
		}
		if got[p] > 0 {
			lastGot = p
		}
	}
	if !run.setClose && firstMissing >= 0 && lastGot > firstMissing {
		t.Fatalf("partition %d arrived, but not partition %d before it, and no cursor waited when they were closed", lastGot, firstMissing)
	}
	if c.n == 1 && reachedEnd && !slices.Equal(run.items[0], o.full) {
		t.Fatalf("one cursor gives %d items, not the serial %d", len(run.items[0]), len(o.full))
	}
}

// checkStageError checks a set whose serial run fails, read to its end:
// of the failing partition, the items before the failing row only (and
// of every partition, when a serial stage follows the failing one, the
// items the serial run gives); the error from Close and from one cursor
// at least; and with one cursor, the serial run's items and error.
func (c *cursorCase) checkStageError(t *testing.T, o *oracle, run *cursorRun, got map[int64]int) {
	t.Helper()
	serial := byPartition(o.serial)
	var se *flow.StageError
	for p, k := range got {
		failing := errors.As(o.serialErr, &se) && se.HasPart && se.Part == p
		if (c.serialAfter || failing) && k > len(serial[p]) {
			t.Fatalf("%d items of partition %d arrived; the serial run fails after %d of them (%v)", k, p, len(serial[p]), o.serialErr)
		}
	}
	if !errors.As(run.closeErr, &se) || !errors.Is(run.closeErr, errBad) {
		t.Fatalf("Close = %v, want the stage's error", run.closeErr)
	}
	failed := 0
	for i, err := range run.errs {
		switch {
		case err == nil:
		case errors.Is(err, errBad) && errors.As(err, &se):
			failed++
		default:
			t.Fatalf("cursor %d: Err %v, want nil or the stage's error", i, err)
		}
	}
	if failed == 0 {
		t.Fatalf("no cursor reports the stage's error (Close: %v)", run.closeErr)
	}
	if c.n == 1 {
		if !slices.Equal(run.items[0], o.serial) {
			t.Fatalf("one cursor gives %d items before the error, the serial run %d", len(run.items[0]), len(o.serial))
		}
		if run.errs[0].Error() != o.serialErr.Error() {
			t.Fatalf("one cursor fails with %q, the serial run with %q", run.errs[0], o.serialErr)
		}
	}
}

// checkConsolidate reads s with Consolidate, leaving it at c.leave.
func (c *cursorCase) checkConsolidate(t *testing.T, s *flow.CursorSet[int64], o *oracle) {
	t.Helper()
	var got []flow.Item[int64]
	var errs []error
	left := false
	for it, err := range s.Consolidate() {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(errs) > 0 {
			t.Fatalf("Consolidate yields item %+v after its error %v", it, errs[0])
		}
		got = append(got, it)
		if len(got) == c.leave {
			left = true
			break
		}
	}
	closeErr := s.Close()
	if left {
		// Leaving the loop closed the set.
		for i, cur := range s.Cursors() {
			for it, err := range cur.All() {
				if err == nil {
					t.Fatalf("cursor %d of a set left by Consolidate gives an item: %+v", i, it)
				}
			}
		}
	}
	if len(got) > len(o.full) || !slices.Equal(got, o.full[:len(got)]) {
		t.Fatalf("Consolidate gives %d items that are not the start of the serial %d", len(got), len(o.full))
	}
	switch {
	case o.serialErr != nil:
		var se *flow.StageError
		if len(errs) != 1 || !errors.As(errs[0], &se) || !errors.Is(errs[0], errBad) {
			t.Fatalf("Consolidate yields errors %v, want the stage's error once", errs)
		}
		if !errors.Is(closeErr, errBad) {
			t.Fatalf("Close = %v, want the stage's error", closeErr)
		}
		if len(got) > len(o.serial) {
			t.Fatalf("Consolidate gives %d items, the serial run fails after %d", len(got), len(o.serial))
		}
		if c.n == 1 && (!slices.Equal(got, o.serial) || errs[0].Error() != o.serialErr.Error()) {
			t.Fatalf("one cursor consolidated gives %d items and %v, the serial run %d and %v", len(got), errs[0], len(o.serial), o.serialErr)
		}
	case len(errs) > 0 || closeErr != nil:
		t.Fatalf("Consolidate yields errors %v, Close %v", errs, closeErr)
	case !left && len(got) != len(o.full):
		t.Fatalf("Consolidate gives %d items, the serial run %d", len(got), len(o.full))
	}
}

// checkResumed checks what the resumed set handed out: with what the
// first set had handed out at the checkpoint, every item of the serial
// stream once; each partition in one cursor, in order; with as many
// cursors, each cursor open at the checkpoint going on with the partition
// it held.
func (c *cursorCase) checkResumed(t *testing.T, o *oracle, run *cursorRun, after [][]flow.Item[int64]) {
	t.Helper()
	before := run.before
	union := slices.Concat(slices.Concat(before...), slices.Concat(after...))
	slices.SortStableFunc(union, cmpPart)
	if !slices.Equal(union, o.full) {
		t.Fatalf("%d items before the checkpoint and %d after, sorted by partition, are not the serial %d", itemCount(before), itemCount(after), len(o.full))
	}
	owner := map[int64]int{}
	for i, items := range after {
		for k, it := range items {
			if k > 0 && it.Part < items[k-1].Part {
				t.Fatalf("resumed cursor %d: partition %d after %d (partitions before the checkpoint %v, after %v)", i, it.Part, items[k-1].Part, partsOf(before[i]), partsOf(items))
			}
			if o, ok := owner[it.Part]; ok && o != i {
				t.Fatalf("resumed: partition %d reached cursors %d and %d", it.Part, o, i)
			}
			owner[it.Part] = i
		}
	}
	if c.m != c.n || c.resume == consolidate {
		return
	}
	for i := range c.n {
		b, a := before[i], after[i]
		if !run.open[i] || len(b) == 0 {
			continue
		}
		p := b[len(b)-1].Part
		rest := o.parts[p][countBatch(b, p):]
		if len(rest) > 0 && (len(a) < len(rest) || !slices.Equal(a[:len(rest)], rest)) {
			t.Fatalf("cursor %d held partition %d after %d of its items; resumed, it gives partitions %v first, not the rest of it",
				i, p, countBatch(b, p), partsOf(a[:min(len(a), len(rest))]))
		}
	}
}
