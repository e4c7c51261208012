package objstore

import (
	"context"
	"sync"
	"sync/atomic"
)

// Read-ahead of whole byte ranges: a reader that knows which ranges it
// will read next (the column chunks of the row group it decodes, and of
// the next one) asks for them with Prefetch; their GETs start at once,
// within the run's limit on requests in flight, and the ReadAt calls that
// fall within them wait for them instead of starting their own. A range
// is dropped once read to its end.

// Range is the bytes [Off, Off+Len) of an object.
type Range struct{ Off, Len int64 }

// Prefetcher is an [Object] whose reads go over the network, and that
// can start reading ranges before they are asked for.
type Prefetcher interface {
	// Prefetch starts reading the ranges, unless they are being read
	// already or the object holds maxAhead bytes read ahead (then the
	// later reads fetch them as usual). It skips ranges that are empty
	// or not within the object. It does not wait.
	Prefetch(ranges []Range)
}

// aheadRequested counts the bytes that reads ahead asked for, for tests.
var aheadRequested atomic.Int64

// AheadRequested returns the bytes that the reads ahead of the process
// have asked for so far (they are counted in [Requested] too).
func AheadRequested() int64 { return aheadRequested.Load() }

// maxAhead bounds the bytes an object holds read ahead and not yet read.
const maxAhead = 64 << 20

// ahead is a range being read, or read, ahead.
type ahead struct {
	Range
	done chan struct{} // closed once data or err is set
	data []byte
	err  error
}

// aheadState is an object's read-ahead. Its fields are guarded by the
// object's mu.
type aheadState struct {
	ranges []*ahead
	bytes  int64
	ctx    context.Context // the object's, cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Prefetch starts reading the ranges (see [Prefetcher]).
func (ob *s3Object) Prefetch(ranges []Range) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	st := &ob.ahead
	if ob.closed.Load() { // Close sets it before it takes mu to stop the reads
		return
	}
	if st.ctx == nil {
		st.ctx, st.cancel = context.WithCancel(ob.ctx)
	}
next:
	for _, r := range ranges {
		if r.Off < 0 || r.Len <= 0 || r.Len > ob.stamp.Size-r.Off { // not r.Off+r.Len, which may overflow
			continue
		}
		if t := ob.tail.off; len(ob.tail.data) > 0 && r.Off < t && r.Off+r.Len > t {
			r.Len = t - r.Off // the rest was read with the tail
		}
		if len(ob.tail.data) > 0 && r.Off >= ob.tail.off {
			continue
		}
		for _, k := range ob.spans { // a start held already (a magic number's read)
			if end := k.off + int64(len(k.data)); r.Off >= k.off && r.Off < end {
				r.Len -= min(end, r.Off+r.Len) - r.Off
				r.Off = end
			}
		}
		if r.Len <= 0 {
			continue
		}
		for _, a := range st.ranges {
			if r.Off < a.Off+a.Len && a.Off < r.Off+r.Len {
				continue next // overlaps a range read ahead already
			}
		}
		if st.bytes+r.Len > maxAhead {
			return
		}
		a := &ahead{Range: r, done: make(chan struct{})}
		aheadRequested.Add(r.Len)
		st.ranges = append(st.ranges, a)
		st.bytes += r.Len
		st.wg.Add(1)
		go func() {
			defer st.wg.Done()
			a.data, a.err = ob.fetchCtx(st.ctx, a.Off, a.Len)
			close(a.done)
		}()
	}
}

// fromAhead copies into p what a range read ahead holds of the bytes at
// off, waiting for it if its GET is under way, and returns how many bytes
// it copied: 0 if no range holds off, if its read failed, or if the
// object's context is done (the caller then reads the bytes itself, and
// fails as it would have).
func (ob *s3Object) fromAhead(p []byte, off int64) int64 {
	ob.mu.Lock()
	var a *ahead
	for _, r := range ob.ahead.ranges {
		if off >= r.Off && off < r.Off+r.Len {
			a = r
			break
		}
	}
	ob.mu.Unlock()
	if a == nil || ob.ctx.Err() != nil {
		return 0 // after a cancel, fail as a fetch does, whether or not the range came
	}
	select {
	case <-a.done:
	case <-ob.ctx.Done():
		return 0
	}
	n := int64(0)
	if a.err == nil {
		n = int64(copy(p, a.data[off-a.Off:]))
	}
	if a.err != nil || off+n == a.Off+a.Len {
		ob.dropAhead(a) // read to its end, or failed
	}
	return n
}

// dropAhead forgets the range a.
func (ob *s3Object) dropAhead(a *ahead) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	st := &ob.ahead
	for i, r := range st.ranges {
		if r == a {
			st.ranges = append(st.ranges[:i], st.ranges[i+1:]...)
			st.bytes -= a.Len
			return
		}
	}
}

// closeAhead stops the reads ahead under way, waits for them, and
// forgets what they read. The object is closed already (ob.closed), so
// no Prefetch starts another.
func (ob *s3Object) closeAhead() {
	ob.mu.Lock()
	st := &ob.ahead
	if st.cancel != nil {
		st.cancel()
	}
	st.ranges, st.bytes = nil, 0
	ob.mu.Unlock()
	st.wg.Wait()
}
