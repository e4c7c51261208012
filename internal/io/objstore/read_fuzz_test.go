package objstore

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/rowflow/rowflow/internal/testutil"
)

// readSizes are the sizes of the objects FuzzObjectReads reads: empty,
// one byte, and either side of the read-ahead (minRead), of the tail
// Parquet readers open with (FooterTail), of the largest range kept
// (maxSpan), and a few MiB.
var readSizes = []int{0, 1, minRead - 1, minRead + 1, FooterTail + 1, maxSpan - 1, maxSpan + 1, 3<<20 + 17}

// FuzzObjectReads is a differential test of reads of objects in a bucket.
// One gateway serves, for the whole fuzz run, objects of readSizes of
// bytes drawn from a seeded PCG, each also written to a local file. From
// the seed each input draws an object, Options (a tail of none, a few
// bytes, FooterTail or more than the object; a Limit of 1 to 3 requests
// or the default) and a sequence of operations on the object opened with
// Open and on the local file opened with Open: ReadAt at offsets and
// lengths at the boundaries (0, the end, past it, across it, minRead,
// FooterTail and maxSpan ±1, a negative offset), the same read again,
// Prefetch of ranges that overlap, are empty or lie past the end, reads
// (and prefetches) from 2 or 3 goroutines at once (an Object is safe for
// concurrent use), Size and Stamp, the context cancelled, the object
// rewritten or deleted, and finally Close, with reads ahead under way and
// perhaps reads racing it, then a read and a Prefetch.
//
// Every read is checked against a bytes.Reader over the same bytes and
// the io.ReaderAt contract: n < len(p) only with an error, io.EOF at the
// end, the bytes equal; the local file must give the same n. Once the
// context is cancelled or the object rewritten, a read may instead fail,
// with what it read before correct and an error that is the context's
// or ErrChanged and names the object, bucket, key and a byte range that
// holds the first byte it did not read; nothing read may be of the new
// version. After each operation the object must hold no more than its
// documented bounds (maxSpans ranges of at most maxSpan bytes, maxAhead
// bytes read ahead), and what it holds must be the object's bytes. Size
// and Stamp must agree with the data and with Stat; a read within the
// tail fetched on open, or within a range read ahead once its GET is
// done, must cost no request, and one of an object that reads nothing
// ahead must ask for no more than it reads or minRead bytes. Close must return with no read ahead under
// way and none left to read; a Prefetch after it must start none; reads
// racing or after it may fail, but what they return must be right; and
// no goroutine of the object's reads ahead may be left (nor, at the end
// of the run, any goroutine at all once the gateway is stopped).
func FuzzObjectReads(f *testing.F) {
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		// Not when fuzzing: the process that runs the workers has
		// goroutines of its own.
		testutil.CheckGoroutines(f)
	}
	s3 := testutil.StartS3(f)
	s3.Upload(f, f.TempDir(), "fzz", "")
	dir := f.TempDir()
	objs := make([][]byte, len(readSizes))
	src := rand.New(rand.NewPCG(0x726f77, 0x666c6f77))
	for i, n := range readSizes {
		objs[i] = make([]byte, n)
		for j := range objs[i] {
			objs[i][j] = byte(src.Uint32())
		}
		s3.Put(f, "fzz", fmt.Sprintf("o/%d", n), objs[i])
		if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(n)), objs[i], 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for i := range testutil.FuzzSeeds(48) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 3)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		c := newReadCase(t, seed, s3, dir, objs)
		c.run()
	})
}

// readCase is one input of FuzzObjectReads.
type readCase struct {
	t      *testing.T
	r      *rand.Rand
	s3     *testutil.S3
	ctx    context.Context
	cancel context.CancelFunc

	data   []byte // the object's bytes as opened
	name   string
	key    string
	ob     *s3Object
	local  Object
	tail   int64
	cut    bool // the context is cancelled
	moved  bool // the object was rewritten or deleted
	ahead  bool // Prefetch was called
	lastP  int
	lastOf int64
}

func newReadCase(t *testing.T, seed uint64, s3 *testutil.S3, dir string, objs [][]byte) *readCase {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	i := r.IntN(len(objs))
	c := &readCase{t: t, r: r, s3: s3, data: objs[i]}
	c.key = fmt.Sprintf("o/%d", len(c.data))
	if r.IntN(4) == 0 {
		// A copy of its own, to rewrite.
		c.key = "rw/" + strconv.FormatUint(seed, 16)
		s3.Put(t, "fzz", c.key, c.data)
		t.Cleanup(func() {
			if err := s3.Client.RemoveObject(context.Background(), "fzz", c.key, minio.RemoveObjectOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
	c.name = "s3://fzz/" + c.key
	c.ctx, c.cancel = context.WithCancel(context.Background())
	t.Cleanup(c.cancel)
	var o Options
	switch r.IntN(4) {
	case 1:
		o.Tail = int64(1 + r.IntN(200))
	case 2:
		o.Tail = FooterTail
	case 3:
		o.Tail = int64(len(c.data) + 1 + r.IntN(100))
	}
	if r.IntN(2) == 0 {
		o.Limit = NewLimit(1 + r.IntN(3))
	}
	c.tail = o.Tail
	ob, err := Open(c.ctx, c.name, o)
	if err != nil {
		t.Fatalf("Open(%s, %+v): %v", c.name, o, err)
	}
	c.ob = ob.(*s3Object)
	if _, ok := ob.(Prefetcher); !ok {
		t.Fatal("an object is not a Prefetcher")
	}
	c.local, err = Open(c.ctx, filepath.Join(dir, strconv.Itoa(len(c.data))), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.local.(Prefetcher); ok {
		t.Fatal("a local file is a Prefetcher")
	}
	t.Logf("object %s of %d bytes, options %+v", c.name, len(c.data), o)
	return c
}

func (c *readCase) run() {
	c.checkStamp()
	for range 1 + c.r.IntN(24) {
		switch k := c.r.IntN(100); {
		case k < 45:
			c.read(c.r.IntN(2) == 0)
		case k < 55:
			c.readAt(c.lastP, c.lastOf, true)
		case k < 70:
			c.prefetch()
		case k < 85:
			c.concurrent()
		case k < 90:
			c.checkStamp()
		case k < 93:
			if !c.cut {
				c.t.Log("cancel")
				c.cut = true
				c.cancel()
			}
		default:
			c.rewrite()
		}
		c.checkHeld()
		if c.t.Failed() {
			return
		}
	}
	c.close()
}

// offLen draws an offset and a length at the boundaries.
func (c *readCase) offLen() (int, int64) {
	size := int64(len(c.data))
	pick := func(xs ...int64) int64 { return xs[c.r.IntN(len(xs))] }
	var off int64
	switch c.r.IntN(8) {
	case 0:
		off = pick(0, 1, size-1, size, size+1, size+100)
	case 1:
		off = pick(minRead-1, minRead, minRead+1, maxSpan-1, maxSpan, maxSpan+1, FooterTail-1, FooterTail+1)
	case 2:
		off = pick(size-c.tail-1, size-c.tail, size-c.tail+1, size-minRead-1, size-minRead+1, size-maxSpan+1)
	case 3:
		off = -1 - c.r.Int64N(10)
		if c.r.IntN(4) != 0 {
			off = 0
		}
	default:
		off = c.r.Int64N(size + 1)
	}
	off = max(off, -10)
	rest := size - max(off, 0)
	var n int64
	switch c.r.IntN(6) {
	case 0:
		n = pick(0, 1, 2, 100)
	case 1:
		n = pick(minRead-1, minRead, minRead+1, maxSpan-1, maxSpan, maxSpan+1, FooterTail-1, FooterTail)
	case 2:
		n = pick(rest, rest+1, rest-1, rest+minRead, size)
	case 3:
		n = c.r.Int64N(4*maxSpan + 1)
	default:
		n = c.r.Int64N(minRead + 1)
	}
	return int(max(n, 0)), off
}

func (c *readCase) read(local bool) {
	n, off := c.offLen()
	c.readAt(n, off, local)
}

// readAt reads n bytes at off from the object and, if local, from the
// local file, and checks what they return.
func (c *readCase) readAt(n int, off int64, local bool) {
	c.lastP, c.lastOf = n, off
	before := Requested()
	p := make([]byte, n)
	got, err := c.ob.ReadAt(p, off)
	what := fmt.Sprintf("%s: ReadAt(%d bytes, %d)", c.name, n, off)
	c.check(what, p, off, got, err, true)
	if !c.ahead && !c.cut && !c.moved && c.tail > 0 && n > 0 && n <= int(c.tail) && off >= 0 &&
		off >= int64(len(c.data))-c.tail && Requested() != before {
		c.t.Errorf("%s: a read within the tail fetched on open asked for %d bytes", what, Requested()-before)
	}
	if d := Requested() - before; !c.ahead && off >= 0 && d > max(min(int64(n), int64(len(c.data))-off), minRead) {
		c.t.Errorf("%s: asked for %d bytes, more than the bytes read or minRead", what, d)
	}
	if local {
		q := make([]byte, n)
		lgot, lerr := c.local.ReadAt(q, off)
		c.check("local "+what, q, off, lgot, lerr, false)
		if lgot != got && err == nil && lerr == nil {
			c.t.Errorf("%s: %d bytes; the local file: %d", what, got, lgot)
		}
	}
}

// rangeRE is how errors name the byte range of a failed request.
var rangeRE = regexp.MustCompile(`bytes \[(\d+), (\d+)\)`)

// check checks what ReadAt(p, off) returned, n and err, against a
// bytes.Reader; remote tells whether the read went to the object, which
// may fail once the context is cancelled or the object rewritten.
func (c *readCase) check(what string, p []byte, off int64, n int, err error, remote bool) {
	t := c.t
	t.Helper()
	if n < 0 || n > len(p) {
		t.Errorf("%s: n = %d, %v", what, n, err)
		return
	}
	if n < len(p) && err == nil {
		t.Errorf("%s: %d bytes and no error", what, n)
	}
	if off < 0 {
		if n != 0 || err == nil {
			t.Errorf("%s: negative offset: %d bytes, %v", what, n, err)
		} else if remote && !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: error %q does not name the object", what, err)
		}
		return
	}
	want := make([]byte, len(p))
	wn, werr := bytes.NewReader(c.data).ReadAt(want, off)
	if !bytes.Equal(p[:min(n, wn)], want[:min(n, wn)]) {
		t.Errorf("%s: other bytes than the object's", what)
	}
	if len(p) == 0 {
		if n != 0 || (err != nil && err != io.EOF) {
			t.Errorf("%s: empty read: %d, %v", what, n, err)
		}
		return
	}
	if err == werr && n == wn {
		return
	}
	if remote && (c.cut || c.moved) && err != nil && err != io.EOF && n < wn {
		c.checkFailure(what, off+int64(n), err)
		return
	}
	t.Errorf("%s: %d bytes, %v; want %d bytes, %v", what, n, err, wn, werr)
}

// checkFailure checks the error of a read that failed at byte at after
// the context was cancelled or the object rewritten.
func (c *readCase) checkFailure(what string, at int64, err error) {
	t := c.t
	t.Helper()
	if !(c.cut && errors.Is(err, context.Canceled)) && !(c.moved && errors.Is(err, ErrChanged)) {
		t.Errorf("%s: error %v; cancelled %v, rewritten %v", what, err, c.cut, c.moved)
	}
	msg := err.Error()
	for _, s := range []string{c.name, `bucket "fzz"`, fmt.Sprintf("key %q", c.key)} {
		if !strings.Contains(msg, s) {
			t.Errorf("%s: error %q does not say %s", what, msg, s)
		}
	}
	m := rangeRE.FindStringSubmatch(msg)
	if m == nil {
		t.Errorf("%s: error %q names no byte range", what, msg)
		return
	}
	lo, _ := strconv.ParseInt(m[1], 10, 64)
	hi, _ := strconv.ParseInt(m[2], 10, 64)
	if at < lo || at >= hi || hi > int64(len(c.data)) {
		t.Errorf("%s: error %q names a range without byte %d, the first not read, or past the end", what, msg, at)
	}
}

// prefetch asks for a few ranges: drawn as reads are, the same twice,
// overlapping, empty or past the end (by far).
func (c *readCase) prefetch() {
	var rs []Range
	for range 1 + c.r.IntN(4) {
		n, off := c.offLen()
		rs = append(rs, Range{Off: off, Len: int64(n)})
		switch c.r.IntN(4) {
		case 0:
			rs = append(rs, Range{Off: off + int64(n)/2, Len: int64(n)})
		case 1:
			rs = append(rs, rs[c.r.IntN(len(rs))])
		case 2:
			rs = append(rs, Range{Off: off, Len: -int64(c.r.IntN(2))})
		case 3:
			// Past the end, but for an overflow of Off+Len.
			rs = append(rs, Range{Off: max(off, 1), Len: math.MaxInt64 - c.r.Int64N(2)})
		}
	}
	c.t.Logf("Prefetch(%v)", rs)
	c.ahead = true
	c.ob.Prefetch(rs)
	if c.r.IntN(2) == 0 && !c.cut && !c.moved {
		c.readAhead()
	}
}

// readAhead waits for the reads ahead to end and reads within one of
// them, which must cost no request.
func (c *readCase) readAhead() {
	c.ob.mu.Lock()
	rs := slices.Clone(c.ob.ahead.ranges)
	c.ob.mu.Unlock()
	var ok []*ahead
	for _, a := range rs {
		<-a.done
		if a.err == nil {
			ok = append(ok, a)
		}
	}
	if len(ok) == 0 {
		return
	}
	a := ok[c.r.IntN(len(ok))]
	off := a.Off + c.r.Int64N(a.Len)
	n := 1 + c.r.Int64N(a.Off+a.Len-off)
	before := Requested()
	c.readAt(int(n), off, c.r.IntN(2) == 0)
	if d := Requested() - before; d != 0 {
		c.t.Errorf("%s: ReadAt(%d bytes, %d) within the range %v read ahead asked for %d bytes", c.name, n, off, a.Range, d)
	}
}

// concurrent reads from 2 or 3 goroutines at once, one of which may also
// prefetch, and checks what each read once all are done.
func (c *readCase) concurrent() {
	type result struct {
		p      []byte
		off    int64
		n      int
		err    error
		local  bool
		ln     int
		lerr   error
		lp     []byte
		ranges []Range
	}
	jobs := make([][]result, 2+c.r.IntN(2))
	for g := range jobs {
		for range 1 + c.r.IntN(4) {
			n, off := c.offLen()
			jobs[g] = append(jobs[g], result{p: make([]byte, n), off: off, local: c.r.IntN(2) == 0})
		}
		if c.r.IntN(3) == 0 {
			n, off := c.offLen()
			jobs[g][0].ranges = []Range{{Off: off, Len: int64(n)}, {Off: off + int64(n), Len: minRead}}
			c.ahead = true
		}
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range jobs[g] {
				j := &jobs[g][i]
				if j.ranges != nil {
					c.ob.Prefetch(j.ranges)
				}
				j.n, j.err = c.ob.ReadAt(j.p, j.off)
				if j.local {
					j.lp = make([]byte, len(j.p))
					j.ln, j.lerr = c.local.ReadAt(j.lp, j.off)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	for g := range jobs {
		for _, j := range jobs[g] {
			what := fmt.Sprintf("%s: goroutine %d of %d: ReadAt(%d bytes, %d)", c.name, g, len(jobs), len(j.p), j.off)
			if j.ranges != nil {
				what += fmt.Sprintf(" after Prefetch(%v)", j.ranges)
			}
			c.check(what, j.p, j.off, j.n, j.err, true)
			if j.local {
				c.check("local "+what, j.lp, j.off, j.ln, j.lerr, false)
			}
		}
	}
}

// checkStamp checks Size and Stamp of both against the data and Stat.
func (c *readCase) checkStamp() {
	t := c.t
	size := int64(len(c.data))
	if c.ob.Size() != size || c.local.Size() != size {
		t.Errorf("%s: Size %d, local %d; want %d", c.name, c.ob.Size(), c.local.Size(), size)
	}
	st, err := c.ob.Stamp()
	if err != nil || st.Size != size || st.ETag == "" || st.ModTime.IsZero() {
		t.Errorf("%s: Stamp %+v, %v", c.name, st, err)
	}
	if !c.moved && !c.cut {
		now, err := Stat(c.ctx, c.name)
		if err != nil || now.Size != st.Size || now.ETag != st.ETag || !now.ModTime.Equal(st.ModTime) {
			t.Errorf("%s: Stamp %+v, but Stat %+v, %v", c.name, st, now, err)
		}
	}
	lst, err := c.local.Stamp()
	if err != nil || lst.Size != size || lst.ETag != "" || lst.ModTime.IsZero() {
		t.Errorf("%s: local Stamp %+v, %v", c.name, lst, err)
	}
}

// rewrite replaces the object with its bytes inverted (all, the first
// half, or all and one more) or deletes it.
func (c *readCase) rewrite() {
	if !strings.HasPrefix(c.key, "rw/") {
		return
	}
	b := make([]byte, len(c.data))
	for i, x := range c.data {
		b[i] = ^x // so that any byte read of it is wrong
	}
	switch k := c.r.IntN(4); {
	case k == 0 && len(b) > 0:
	case k == 1 && len(b) > 0:
		b = b[:len(b)/2]
	case k == 2:
		c.t.Log("delete")
		if err := c.s3.Client.RemoveObject(context.Background(), "fzz", c.key, minio.RemoveObjectOptions{}); err != nil {
			c.t.Fatal(err)
		}
		c.moved = true
		return
	default:
		b = append(b, 1)
	}
	c.t.Logf("rewrite with %d bytes", len(b))
	c.s3.Put(c.t, "fzz", c.key, b)
	c.moved = true
}

// checkHeld checks what the object holds: at most maxSpans ranges of at
// most maxSpan bytes, at most maxAhead bytes read ahead, counted right,
// and all of it the object's bytes as opened.
func (c *readCase) checkHeld() {
	t := c.t
	ob := c.ob
	ob.mu.Lock()
	defer ob.mu.Unlock()
	held := func(what string, off int64, b []byte) {
		if off < 0 || off+int64(len(b)) > int64(len(c.data)) || !bytes.Equal(b, c.data[off:off+int64(len(b))]) {
			t.Errorf("%s: %s holds %d bytes at %d that are not the object's", c.name, what, len(b), off)
		}
	}
	held("the tail", ob.tail.off, ob.tail.data)
	if len(ob.spans) > maxSpans {
		t.Errorf("%s: %d ranges kept, more than %d", c.name, len(ob.spans), maxSpans)
	}
	for _, s := range ob.spans {
		if len(s.data) > maxSpan {
			t.Errorf("%s: a range of %d bytes kept, more than %d", c.name, len(s.data), maxSpan)
		}
		held("a range kept", s.off, s.data)
	}
	sum := int64(0)
	for _, a := range ob.ahead.ranges {
		sum += a.Len
		if a.Off < 0 || a.Len <= 0 || a.Len > int64(len(c.data))-a.Off {
			t.Errorf("%s: reads ahead %v, not a range of the object", c.name, a.Range)
			continue
		}
		select {
		case <-a.done:
			if a.err == nil {
				held("a range read ahead", a.Off, a.data)
			}
		default:
		}
	}
	if sum != ob.ahead.bytes || sum > maxAhead {
		t.Errorf("%s: %d bytes read ahead, counted %d, at most %d", c.name, sum, ob.ahead.bytes, maxAhead)
	}
}

// close closes both, checks that no goroutine of the object's read-ahead
// is left, and reads and prefetches after Close: a read then may fail,
// but what it returns must be right.
func (c *readCase) close() {
	t := c.t
	if c.r.IntN(2) == 0 {
		// Reads ahead under way when Close is called.
		size := int64(len(c.data))
		c.ob.Prefetch([]Range{{Off: 0, Len: size / 2}, {Off: size / 2, Len: size - size/2}})
	}
	var racing sync.WaitGroup
	if c.r.IntN(3) == 0 {
		// Reads and reads ahead while Close is called.
		type read struct {
			p, q    []byte
			off     int64
			n, ln   int
			err, le error
		}
		reads := make([]read, 1+c.r.IntN(4))
		for i := range reads {
			n, off := c.offLen()
			reads[i] = read{p: make([]byte, n), q: make([]byte, n), off: off}
		}
		start := make(chan struct{})
		racing.Go(func() {
			close(start)
			for i := range reads {
				r := &reads[i]
				c.ob.Prefetch([]Range{{Off: r.off, Len: int64(len(r.p))}})
				r.n, r.err = c.ob.ReadAt(r.p, r.off)
				r.ln, r.le = c.local.ReadAt(r.q, r.off)
			}
		})
		<-start
		defer func() {
			for _, r := range reads {
				what := fmt.Sprintf("%s: ReadAt(%d bytes, %d) racing Close", c.name, len(r.p), r.off)
				c.checkClosed(what, r.p, r.off, r.n, r.err)
				c.checkClosed("local "+what, r.q, r.off, r.ln, r.le)
			}
		}()
	}
	if err := c.ob.Close(); err != nil {
		t.Errorf("%s: Close: %v", c.name, err)
	}
	if left := aheadStacks(true); len(left) > 0 {
		t.Errorf("%s: Close returned with %d reads ahead under way:\n%s", c.name, len(left), strings.Join(left, "\n\n"))
	}
	if err := c.local.Close(); err != nil {
		t.Errorf("local %s: Close: %v", c.name, err)
	}
	racing.Wait()
	c.noAhead()
	c.ob.Prefetch([]Range{{Off: 0, Len: int64(len(c.data))}})
	c.noAhead()
	aheadLeft(t, c.name)
	n, off := c.offLen()
	p := make([]byte, n)
	got, err := c.ob.ReadAt(p, off)
	c.checkClosed(fmt.Sprintf("%s: ReadAt(%d bytes, %d) after Close", c.name, n, off), p, off, got, err)
	q := make([]byte, n)
	got, err = c.local.ReadAt(q, off)
	c.checkClosed(fmt.Sprintf("local %s: ReadAt(%d bytes, %d) after Close", c.name, n, off), q, off, got, err)
	aheadLeft(t, c.name)
}

// noAhead checks that a closed object reads nothing ahead.
func (c *readCase) noAhead() {
	c.t.Helper()
	c.ob.mu.Lock()
	defer c.ob.mu.Unlock()
	if len(c.ob.ahead.ranges) != 0 || c.ob.ahead.bytes != 0 {
		c.t.Errorf("%s: %d ranges of %d bytes read ahead after Close", c.name, len(c.ob.ahead.ranges), c.ob.ahead.bytes)
	}
}

// checkClosed checks a read of a closed object or file, or one racing
// Close: it may fail, but what it returns must be right.
func (c *readCase) checkClosed(what string, p []byte, off int64, n int, err error) {
	if err == nil || err == io.EOF {
		c.check(what, p, off, n, err, false)
		return
	}
	if n < 0 || n > len(p) || (n > 0 && (off < 0 || off+int64(n) > int64(len(c.data)) || !bytes.Equal(p[:n], c.data[off:off+int64(n)]))) {
		c.t.Errorf("%s: %d bytes, %v, not the object's", what, n, err)
	}
}

// aheadLeft fails t if a goroutine of an object's read-ahead is running.
// Close has waited for them, but one that is done may take a moment to
// exit: it yields until none is left, for up to 5 seconds.
func aheadLeft(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := aheadStacks(false)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: %d goroutines reading ahead after Close:\n%s", name, len(left), strings.Join(left, "\n\n"))
			return
		}
		runtime.Gosched()
	}
}

// aheadStacks returns the stacks of the goroutines of objects' reads
// ahead, or, if fetching, of those still in their GET.
func aheadStacks(fetching bool) []string {
	buf := make([]byte, 1<<20)
	all := string(buf[:runtime.Stack(buf, true)])
	var left []string
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, "objstore.(*s3Object).Prefetch.func") &&
			(!fetching || strings.Contains(g, "objstore.(*s3Object).fetchCtx")) {
			left = append(left, g)
		}
	}
	return left
}
