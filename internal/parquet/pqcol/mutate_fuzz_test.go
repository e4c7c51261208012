package pqcol

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// The mutation fuzz target damages valid files byte by byte and reads
// them. Whatever the damage, a read must end without a panic, within a
// second of its deadline, allocating a bounded amount, and either give
// the original rows or fail with an *Error naming the file. Page bodies
// carry CRCs, so damage there must fail (ErrChecksum) or, where a read
// does not reach the page, leave the rows read intact; damage to headers
// and the footer may change what a file means, so there only the bounds
// and the error's form are checked.

// mutRow is the row of the generated seed files: every kind of leaf the
// decoder treats differently.
type mutRow struct {
	ID    int64    `parquet:"id"`
	Name  string   `parquet:"name,dict"`
	Score *float64 `parquet:"score,optional"`
	Tags  []int32  `parquet:"tags,list"`
	Flag  bool     `parquet:"flag"`
	Blob  []byte   `parquet:"blob,optional"`
}

// mutSeed is a generated file, its rows as pqcol reads them, and the byte
// ranges of its page bodies.
type mutSeed struct {
	data   []byte
	cols   [][]flat
	bodies [][2]int64
}

var mutSeeds = sync.OnceValues(func() ([]mutSeed, error) {
	var seeds []mutSeed
	codecs := []compress.Codec{&zstd.Codec{}, &snappy.Codec{}, &gzip.Codec{}, &parquet.Uncompressed}
	for i, codec := range codecs {
		rows := make([]mutRow, 300)
		for j := range rows {
			r := &rows[j]
			r.ID, r.Name, r.Flag = int64(j*7919), []string{"a", "bb", "ccc"}[j%3], j%5 == 0
			if j%4 != 0 {
				f := float64(j) / 3
				r.Score = &f
			}
			for k := range j % 6 {
				r.Tags = append(r.Tags, int32(j*k))
			}
			if j%3 != 0 {
				r.Blob = []byte{byte(j), byte(j >> 8)}
			}
		}
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[mutRow](&buf, parquet.Compression(codec), parquet.PageBufferSize(256),
			parquet.DataPageVersion(1+i%2))
		for lo := 0; lo < len(rows); lo += 100 {
			if _, err := w.Write(rows[lo : lo+100]); err != nil {
				return nil, err
			}
			if err := w.Flush(); err != nil {
				return nil, err
			}
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		s := mutSeed{data: buf.Bytes()}
		r, err := Open("seed.parquet", bytes.NewReader(s.data), int64(len(s.data)))
		if err != nil {
			return nil, err
		}
		if s.cols, err = readAll(context.Background(), r); err != nil {
			return nil, err
		}
		if s.bodies, err = pageBodies(r); err != nil {
			return nil, err
		}
		seeds = append(seeds, s)
	}
	return seeds, nil
})

// pageBodies returns the byte ranges of the page bodies of every column
// chunk of r.
func pageBodies(r *Reader) ([][2]int64, error) {
	var out [][2]int64
	for rg := range r.NumRowGroups() {
		for c := range r.Leaves() {
			cm := &r.File().Metadata().RowGroups[rg].Columns[c].MetaData
			start, end, err := chunkBounds(cm, r.File().Size())
			if err != nil {
				return nil, err
			}
			var d decoder
			d.init(r.cfg, &r.Leaves()[c], cm.Codec)
			d.win.reset(r.File(), start, end)
			for pos := start; pos < end; {
				p, err := d.readPage(pos, true)
				if err != nil {
					return nil, err
				}
				out = append(out, [2]int64{p.start, p.end})
				pos = p.end
			}
		}
	}
	return out, nil
}

const (
	mutDeadline = 2 * time.Second
	mutAlloc    = 64 << 20 // bytes one damaged file may make the reader allocate
)

// checkMutation damages seed i at the given offsets and checks the read.
// It reports whether the read failed.
func checkMutation(t *testing.T, seed uint8, at []uint32, xor []byte) (failed bool) {
	seeds, err := mutSeeds()
	if err != nil {
		t.Fatal(err)
	}
	s := seeds[int(seed)%len(seeds)]
	data := bytes.Clone(s.data)
	inBody, elsewhere := false, false // damage in a page body, and out of every body
	for k, a := range at {
		i := int64(a) % int64(len(data))
		data[i] ^= xor[k]
		if xor[k] == 0 {
			continue
		}
		body := false
		for _, b := range s.bodies {
			body = body || i >= b[0] && i < b[1]
		}
		inBody, elsewhere = inBody || body, elsewhere || !body
	}
	ctx, cancel := context.WithTimeout(t.Context(), mutDeadline)
	defer cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	cols, err := readMutated(ctx, data)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if elapsed > mutDeadline+time.Second {
		t.Fatalf("the read took %v; the deadline was %v", elapsed, mutDeadline)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > mutAlloc {
		t.Fatalf("the read allocated %d bytes", alloc)
	}
	var p *PanicError
	if errors.As(err, &p) {
		t.Fatalf("decoder panicked: %v\n%s", err, p.Stack)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.File != "mutated.parquet" {
			t.Fatalf("the error does not name the file: %v", err)
		}
		return true
	}
	// Damage to a page header as well as a body may take the body's
	// checksum away or move the body, so that the rows read are others.
	if inBody && !elsewhere && !reflect.DeepEqual(cols, s.cols) {
		t.Fatalf("a page body was damaged, the read succeeded with other rows")
	}
	return false
}

// readMutated reads every column chunk of data whole, with limits that
// keep a damaged file's reads small.
func readMutated(ctx context.Context, data []byte) ([][]flat, error) {
	r, err := Open("mutated.parquet", bytes.NewReader(data), int64(len(data)), MaxPageSize(1<<20), MaxReadSize(4<<20))
	if err != nil {
		return nil, err
	}
	return readAll(ctx, r)
}

// FuzzMutate damages up to two bytes of a generated valid file.
func FuzzMutate(f *testing.F) {
	seeds, err := mutSeeds()
	if err != nil {
		f.Fatal(err)
	}
	for i, s := range seeds {
		n := uint32(len(s.data))
		for _, at := range []uint32{0, 4, 40, n / 2, n - 40, n - 9, n - 1} {
			f.Add(uint8(i), at, byte(0x55), at+1, byte(0))
		}
	}
	// The first page's header and its body damaged at once (an
	// uncompressed page v2): the header loses its CRC field, so the body
	// is read unchecked and gives other rows, which the check allows.
	f.Add(uint8('{'), uint32(12), byte(3), uint32(148), byte('e'))
	f.Fuzz(func(t *testing.T, seed uint8, at1 uint32, x1 byte, at2 uint32, x2 byte) {
		checkMutation(t, seed, []uint32{at1, at2}, []byte{x1, x2})
	})
}

// TestMutations runs the fuzz target's check on damage at random places
// of every seed file, so that every test run covers more than the seed
// corpus.
func TestMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	seeds, err := mutSeeds()
	if err != nil {
		t.Fatal(err)
	}
	for i := range seeds {
		failed := 0
		for range 400 {
			at := []uint32{rng.Uint32(), rng.Uint32()}
			xor := []byte{byte(1 + rng.IntN(255)), byte(rng.IntN(256))}
			if checkMutation(t, uint8(i), at, xor) {
				failed++
			}
		}
		// Most bytes of a file are in checksummed pages: most damage must
		// be found.
		if failed < 200 {
			t.Errorf("seed %d: only %d of 400 damaged copies failed to read", i, failed)
		}
		t.Logf("seed %d (%d bytes, %d pages): %d of 400 damaged copies failed to read", i, len(seeds[i].data), len(seeds[i].bodies), failed)
	}
}
