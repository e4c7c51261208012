package objstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"

	"github.com/rowflow/rowflow/internal/testutil"
)

// shortRetries makes the backoff short for the test.
func shortRetries(t *testing.T) {
	was := [3]time.Duration{baseBackoff, maxBackoff, requestTimeout}
	baseBackoff, maxBackoff, requestTimeout = time.Millisecond, 5*time.Millisecond, 10*time.Second
	t.Cleanup(func() {
		baseBackoff, maxBackoff, requestTimeout = was[0], was[1], was[2]
		retryHook = nil
	})
}

// object puts 1 MiB of known bytes in a bucket and opens it.
func object(t *testing.T, s3 *testutil.S3, ctx context.Context) ([]byte, Object) {
	t.Helper()
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	s3.Upload(t, t.TempDir(), "bkt", "")
	s3.Put(t, "bkt", "dir/obj.bin", data)
	ob, err := Open(ctx, "s3://bkt/dir/obj.bin", Options{Tail: 100})
	if err != nil {
		t.Fatal(err)
	}
	if ob.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", ob.Size(), len(data))
	}
	return data, ob
}

// TestS3ReadResumesAfterRestart: the server stopped while a read is
// retried and started again: the read returns the right bytes.
func TestS3ReadResumesAfterRestart(t *testing.T) {
	shortRetries(t)
	s3 := testutil.StartS3(t)
	data, ob := object(t, s3, context.Background())
	var seen []error
	retryHook = func(i int, err error) {
		seen = append(seen, err)
		if i == 2 {
			s3.Start(t)
		}
	}
	s3.Stop()
	buf := make([]byte, 300<<10)
	n, err := ob.ReadAt(buf, 5000)
	if err != nil || n != len(buf) || !bytes.Equal(buf, data[5000:5000+len(buf)]) {
		t.Fatalf("after the restart: %d bytes, %v (or other bytes)", n, err)
	}
	if len(seen) != 2 {
		t.Fatalf("%d retries, want 2 (the server started before the second): %v", len(seen), seen)
	}
	if !strings.Contains(seen[0].Error(), "refused") {
		t.Errorf("first failure %v, want a refused connection", seen[0])
	}
}

// TestS3ReadFailsNamingTheRange: with the server gone, a read fails after
// its attempts with an error naming bucket, key and byte range; with the
// context done, it is not retried.
func TestS3ReadFailsNamingTheRange(t *testing.T) {
	shortRetries(t)
	s3 := testutil.StartS3(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, ob := object(t, s3, ctx)
	retries := 0
	retryHook = func(int, error) { retries++ }
	s3.Stop()
	_, err := ob.ReadAt(make([]byte, 10), 1000)
	for _, want := range []string{`bucket "bkt"`, `key "dir/obj.bin"`, "bytes [1000, 9192)", "after 5 attempts"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one saying %s", err, want)
		}
	}
	if retries != attempts-1 {
		t.Fatalf("%d retries, want %d", retries, attempts-1)
	}
	retries = 0
	retryHook = func(int, error) { retries++; cancel() }
	_, err = ob.ReadAt(make([]byte, 10), 2000)
	if !errors.Is(err, context.Canceled) || retries != 1 {
		t.Fatalf("cancelled at the first retry: %d retries, error %v", retries, err)
	}
}

// TestS3ReadAtEnds: reads past the end return io.EOF with what there is,
// and small reads are served from the tail fetched on open.
func TestS3ReadAtEnds(t *testing.T) {
	s3 := testutil.StartS3(t)
	data, ob := object(t, s3, context.Background())
	before := Requested()
	buf := make([]byte, 64)
	n, err := ob.ReadAt(buf, int64(len(data))-40)
	if n != 40 || err != io.EOF || !bytes.Equal(buf[:40], data[len(data)-40:]) {
		t.Fatalf("read across the end: %d, %v", n, err)
	}
	if Requested() != before {
		t.Fatalf("a read within the opened tail asked for %d bytes", Requested()-before)
	}
	if n, err := ob.ReadAt(buf, int64(len(data))); n != 0 || err != io.EOF {
		t.Fatalf("read at the end: %d, %v", n, err)
	}
}

// TestS3ListResumesAfterRestart: a listing whose server stops is retried
// and, once the server is back, lists every key once, in order.
func TestS3ListResumesAfterRestart(t *testing.T) {
	shortRetries(t)
	s3 := testutil.StartS3(t)
	s3.Upload(t, t.TempDir(), "bkt", "")
	for _, k := range []string{"a/1", "a/2", "b/1", "c/x/1"} {
		s3.Put(t, "bkt", k, []byte(k))
	}
	listPage = 1
	t.Cleanup(func() { listPage = 0 })
	retries := 0
	retryHook = func(int, error) { retries++; s3.Start(t) }
	var got []string
	err := List(context.Background(), "s3://bkt/", func(name string, st Stamp) error {
		got = append(got, name)
		if len(got) == 2 && retries == 0 {
			s3.Stop() // the next page fails; this one is already read
		}
		return nil
	})
	want := []string{"s3://bkt/a/1", "s3://bkt/a/2", "s3://bkt/b/1", "s3://bkt/c/x/1"}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("listed %q, %v; want %q", got, err, want)
	}
	if retries != 1 {
		t.Fatalf("%d retries, want 1", retries)
	}
}

// TestS3KeptRangesBounded: an object that has read more ranges than it
// keeps holds on to no more than maxSpans of them; those it dropped can
// be collected. (It used to drop them by reslicing, so that the array
// under its list still held up to maxSpans more.)
func TestS3KeptRangesBounded(t *testing.T) {
	s3 := testutil.StartS3(t)
	data, ob := object(t, s3, context.Background())
	o := ob.(*s3Object)
	var read []weak.Pointer[byte]
	p := make([]byte, maxSpan)
	for i := range len(data) / maxSpan {
		if _, err := ob.ReadAt(p, int64(i)*maxSpan); err != nil {
			t.Fatal(err)
		}
		o.mu.Lock()
		read = append(read, weak.Make(&o.spans[len(o.spans)-1].data[0]))
		o.mu.Unlock()
		runtime.GC()
		held := 0
		for _, w := range read {
			if w.Value() != nil {
				held++
			}
		}
		if held > maxSpans {
			t.Fatalf("after %d reads of %d bytes, %d of the ranges read are still held, more than %d", i+1, maxSpan, held, maxSpans)
		}
	}
}

// TestS3PrefetchPastTheEnd: a Prefetch of a range whose end overflows
// int64 is past the end of the object, and skipped like one; it used to
// pass the check, and its GET's buffer of nearly 2^63 bytes crashed the
// process.
func TestS3PrefetchPastTheEnd(t *testing.T) {
	s3 := testutil.StartS3(t)
	data, ob := object(t, s3, context.Background())
	defer ob.Close()
	o := ob.(*s3Object)
	o.Prefetch([]Range{{Off: 1000, Len: 10}, {Off: 1000, Len: math.MaxInt64 - 1}, {Off: 2000, Len: math.MaxInt64}})
	o.mu.Lock()
	ahead := o.ahead.bytes
	o.mu.Unlock()
	if ahead != 10 {
		t.Fatalf("%d bytes read ahead, want the 10 of the one range within the object", ahead)
	}
	buf := make([]byte, 10)
	if n, err := ob.ReadAt(buf, 1000); n != 10 || err != nil || !bytes.Equal(buf, data[1000:1010]) {
		t.Fatalf("read of the range read ahead: %d bytes, %v", n, err)
	}
}

// TestS3ReadAfterClose: an object, as a local file, fails a read after
// Close with an error that wraps os.ErrClosed and names it, and asks the
// server for nothing.
func TestS3ReadAfterClose(t *testing.T) {
	s3 := testutil.StartS3(t)
	data, ob := object(t, s3, context.Background())
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}
	before := Requested()
	buf := make([]byte, 64)
	for _, off := range []int64{0, int64(len(data)) - 10} { // beyond the tail, and within it
		n, err := ob.ReadAt(buf, off)
		if n != 0 || !errors.Is(err, os.ErrClosed) || !strings.Contains(err.Error(), "s3://") {
			t.Errorf("read at %d after Close: %d, %v", off, n, err)
		}
	}
	if Requested() != before {
		t.Errorf("reads after Close asked for %d bytes", Requested()-before)
	}
	f := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	local, err := Open(context.Background(), f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	local.Close()
	if _, err := local.ReadAt(buf, 0); !errors.Is(err, os.ErrClosed) {
		t.Errorf("a local file's read after Close: %v", err)
	}
}

// TestS3ReadAheadAfterCancel: once the object's context is cancelled, a
// read of a range read ahead fails as a read of any other range does,
// even when that range had arrived: it used to succeed or fail at random.
func TestS3ReadAheadAfterCancel(t *testing.T) {
	s3 := testutil.StartS3(t)
	ctx, cancel := context.WithCancel(context.Background())
	_, ob := object(t, s3, ctx)
	defer ob.Close()
	o := ob.(*s3Object)
	o.Prefetch([]Range{{Off: 100_000, Len: 1000}})
	o.mu.Lock()
	a := o.ahead.ranges[0]
	o.mu.Unlock()
	<-a.done // the range has arrived
	if a.err != nil {
		t.Fatalf("the read ahead failed: %v", a.err)
	}
	cancel()
	buf := make([]byte, 10)
	for range 20 {
		if n, err := ob.ReadAt(buf, 100_500); n != 0 || !errors.Is(err, context.Canceled) {
			t.Fatalf("read of a range read ahead after the cancel: %d bytes, %v; want context.Canceled", n, err)
		}
	}
}
