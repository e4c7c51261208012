package pqcol

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// shareShape is what FuzzSharedRanges draws about a file and its reads, a
// bit each.
type shareShape uint8

const (
	shareV2         shareShape = 1 << iota // data pages v2, else v1
	shareSnappy                            // snappy, else zstd
	shareSmallPages                        // pages of a few hundred bytes, else one page per chunk
	shareVerify                            // the Reader verifies page checksums
	shareSequential                        // the ranges are read one after another
	shareConcurrent                        // the ranges are read by goroutines at once (first, if both)
	shareNoIndex                           // the footer records no page indexes
)

// shareResult is what a read of a range of one column gave: the error's
// text, or the rows read.
type shareResult struct {
	err  string
	rows flat
}

func (r shareResult) equal(o shareResult) error {
	if r.err != o.err {
		return fmt.Errorf("got error %q, want %q", r.err, o.err)
	}
	if r.err != "" {
		return nil
	}
	return equalFlat(normalize(r.rows), normalize(o.rows))
}

// shareResultOf reads rows [s[0], s[1]) of column c through r. A panic
// in the decoder is a failure of the test, returned as panicked.
func shareResultOf(t *testing.T, r *Reader, c int, s [2]int64, col *Column) (res shareResult, panicked error) {
	err := r.ReadColumnRange(t.Context(), 0, c, s[0], s[1], col)
	var p *PanicError
	if errors.As(err, &p) {
		return res, fmt.Errorf("column %d, rows %v: decoder panicked: %v\n%s", c, s, err, p.Stack)
	}
	if err != nil {
		return shareResult{err: err.Error()}, nil
	}
	return shareResult{rows: flatOf(col)}, nil
}

// shareOpen opens data as FuzzSharedRanges reads it: small limits keep the
// reads of a damaged file small.
func shareOpen(data []byte, verify bool) (*Reader, error) {
	return Open("shared.parquet", bytes.NewReader(data), int64(len(data)),
		VerifyChecksums(verify), MaxPageSize(1<<20), MaxReadSize(8<<20))
}

// FuzzSharedRanges reads a row group cut into ranges through one Reader,
// whose reads share the pages that hold rows of several ranges (see
// share.go), and compares every range of every column with an oracle that
// shares nothing. It draws a file of genRows written by parquet-go (pages
// v1 or v2, zstd or snappy, one page per column chunk or pages of a few
// hundred bytes, with or without page indexes), optionally one damaged
// byte at a drawn offset, a cut of the row group into 2 to 5 ranges at
// drawn rows, and whether the ranges are read by goroutines at once (each
// starting at a drawn column and going round the columns, as the Parquet
// source's workers do), one after another in a drawn order, or both in
// turn. Oracle: the intact file's ranges equal the whole chunk's read
// (ReadColumn) cut to the range (sliceRows); a damaged file's ranges give
// the error text, or the rows, of a read of that range alone by a fresh
// Reader that reads no other range. Once every range is read, no page of
// the Reader is in use, shared's count of the bytes it holds is the sum
// of its pages' sizes, and no page of the Reader is left in shared unless
// the damage made a read fail or read other rows than the intact file's
// (the pages it would have taken part of then stay until Reader.Close,
// which drops them).
func FuzzSharedRanges(f *testing.F) {
	one := shareSequential | shareConcurrent
	f.Add(uint64(1), uint16(300), uint8(one), uint64(1), uint32(0), byte(0))
	f.Add(uint64(2), uint16(400), uint8(one|shareV2|shareSnappy), uint64(2), uint32(0), byte(0))
	f.Add(uint64(3), uint16(350), uint8(one|shareSmallPages|shareNoIndex), uint64(3), uint32(0), byte(0))
	f.Add(uint64(4), uint16(350), uint8(one|shareSmallPages|shareV2|shareNoIndex|shareSnappy), uint64(4), uint32(0), byte(0))
	f.Add(uint64(5), uint16(300), uint8(shareConcurrent|shareSmallPages|shareVerify), uint64(5), uint32(0), byte(0))
	f.Add(uint64(6), uint16(300), uint8(one|shareVerify), uint64(6), uint32(1500), byte(0x20))
	f.Add(uint64(7), uint16(300), uint8(one|shareSmallPages|shareNoIndex), uint64(7), uint32(9000), byte(0x41))
	f.Add(uint64(8), uint16(250), uint8(shareSequential|shareV2), uint64(8), uint32(4000), byte(0x08))
	// The list columns' last page v1 starts at the second range's first
	// row. The second range was read first; the first range's read then
	// passed through the page to find its last row's end, left it in
	// shared as the chunk's last page, and took none of its entries: the
	// page stayed (see TestPassingThroughLastPage).
	f.Add(uint64(25), uint16(167), uint8(shareSequential|shareSmallPages|shareSnappy|shareVerify), uint64(147), uint32(1375), byte(0))
	// A damaged DELTA_BYTE_ARRAY page of dname whose value 9 claims a
	// prefix of 42 bytes after a value of 20: the decoder took the rest
	// from whatever the column's buffer held past the last value, which
	// differed between the range read alone and the shared read (see
	// TestDeltaByteArrayPrefixes).
	f.Add(uint64(101), uint16(22), uint8(shareConcurrent|shareSmallPages|shareSnappy), uint64(2), uint32(4178), byte(0xb9))
	// A damaged page v2 of tags whose repetition levels hold a repeated
	// run of 240, in a column of maximum repetition level 1: the level
	// went unchecked and the repetition check indexed past the column's
	// lists (see TestRepeatedRunValueTooWide).
	f.Add(uint64(89), uint16(15), uint8(shareV2|shareSnappy|shareConcurrent|shareNoIndex), uint64(377), uint32(8941), byte(0xf0))
	f.Fuzz(func(t *testing.T, seed uint64, rows uint16, shape uint8, draw uint64, at uint32, xor byte) {
		checkSharedRanges(t, seed, int64(2+rows%500), shareShape(shape), draw, at, xor)
	})
}

// checkSharedRanges runs one input of FuzzSharedRanges: seed generates the
// rows, n of them, and with draw the page size, the ranges and the columns
// the goroutines start at.
func checkSharedRanges(t *testing.T, seed uint64, n int64, shape shareShape, draw uint64, at uint32, xor byte) {
	rng := rand.New(rand.NewPCG(draw, seed))
	opts := []parquet.WriterOption{parquet.MaxRowsPerRowGroup(n), parquet.DataPageVersion(1), parquet.Compression(&parquet.Zstd)}
	if shape&shareV2 != 0 {
		opts = append(opts, parquet.DataPageVersion(2))
	}
	if shape&shareSnappy != 0 {
		opts = append(opts, parquet.Compression(&parquet.Snappy))
	}
	if shape&shareSmallPages != 0 {
		opts = append(opts, parquet.PageBufferSize(128+rng.IntN(2048)))
	} else {
		opts = append(opts, parquet.PageBufferSize(64<<20))
	}
	path := filepath.Join(t.TempDir(), "shared.parquet")
	writeGenerated(t, path, genRows(int(n), seed), opts...)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if shape&shareNoIndex != 0 {
		data = withoutPageIndexes(t, data)
	}
	verify := shape&shareVerify != 0
	intact, err := shareOpen(data, verify)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer intact.Close()
	whole, err := readAll(t.Context(), intact)
	if err != nil {
		t.Fatal(err)
	}
	damaged := xor != 0
	if damaged {
		data = bytes.Clone(data)
		data[int(at)%len(data)] ^= xor
	}

	// The ranges: k-1 cuts at drawn rows.
	k := 2 + rng.IntN(4)
	cuts := []int64{0, n}
	for range k - 1 {
		cuts = append(cuts, rng.Int64N(n+1))
	}
	slices.Sort(cuts)
	ranges := make([][2]int64, k)
	for i := range ranges {
		ranges[i] = [2]int64{cuts[i], cuts[i+1]}
	}

	// The oracle: without damage, the whole chunks' reads cut to each
	// range; with it, each range read alone by a fresh Reader. faithful
	// says that the ranges read as the intact file's.
	r, err := shareOpen(data, verify)
	if err != nil {
		if !damaged {
			t.Fatalf("Open: %v", err)
		}
		return
	}
	defer r.Close()
	leaves := r.Leaves()
	faithful := len(leaves) == len(intact.Leaves())
	want := make([][]shareResult, k)
	for i, s := range ranges {
		var alone *Reader
		if damaged {
			if alone, err = shareOpen(data, verify); err != nil {
				t.Fatal(err) // the same bytes opened before
			}
		}
		var col Column
		for c := range leaves {
			var slice shareResult
			if c < len(intact.Leaves()) {
				slice.rows = sliceRows(whole[0][c], &intact.Leaves()[c], s[0], s[1])
			}
			if !damaged {
				want[i] = append(want[i], slice)
				continue
			}
			res, panicked := shareResultOf(t, alone, c, s, &col)
			if panicked != nil {
				t.Fatal(panicked)
			}
			faithful = faithful && res.equal(slice) == nil
			want[i] = append(want[i], res)
		}
		if alone != nil {
			alone.Close()
		}
	}

	check := func(how string, i, c int, col *Column) error {
		got, panicked := shareResultOf(t, r, c, ranges[i], col)
		if panicked != nil {
			return panicked
		}
		if err := got.equal(want[i][c]); err != nil {
			return fmt.Errorf("%s, %s, rows %v: %v", how, leaves[c].PathString(), ranges[i], err)
		}
		return nil
	}
	if shape&shareConcurrent != 0 {
		start := make(chan struct{})
		errs := make(chan error, k)
		for i := range ranges {
			first := rng.IntN(len(leaves))
			go func() {
				<-start
				var col Column
				var failed error
				for j := range leaves {
					c := (first + j) % len(leaves)
					if err := check("at once", i, c, &col); err != nil && failed == nil {
						failed = err
					}
				}
				errs <- failed
			}()
		}
		close(start)
		var failed error
		for range ranges {
			if err := <-errs; err != nil && failed == nil {
				failed = err
			}
		}
		if failed != nil {
			t.Fatal(failed)
		}
	}
	if shape&shareSequential != 0 || shape&shareConcurrent == 0 {
		var col Column
		for _, i := range rng.Perm(k) {
			for c := range leaves {
				if err := check("one after another", i, c, &col); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	// A read of a damaged file can fail, or number the rows of a page
	// otherwise than the reads of other ranges do, so that they do not take
	// all of its entries between them: its pages may then be left (see
	// Reader.Close). Either way, once the reads are done none is in use,
	// and shared counts what it holds.
	left := sharedOf(r)
	for off, e := range left {
		if e.users != 0 || faithful {
			t.Errorf("page at %d (ranges %v): %d entries left, %d users", off, ranges, e.left, e.users)
		}
	}
	if err := sharedHeld(); err != nil {
		t.Fatal(err)
	}
	if faithful && len(left) != 0 {
		t.Fatalf("%d pages left in shared once every range was read", len(left))
	}
	r.Close()
	if left := sharedOf(r); len(left) != 0 {
		t.Fatalf("%d pages left in shared after Close", len(left))
	}
}

// sharedHeld checks that shared's count of the bytes it holds is the sum
// of its pages' sizes.
func sharedHeld() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	var sum int64
	for _, e := range shared.pages {
		sum += e.size
	}
	if sum != shared.held {
		return fmt.Errorf("shared holds %d pages of %d bytes in all, but counts %d", len(shared.pages), sum, shared.held)
	}
	return nil
}
