package pqcol

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// decodeBytes opens data as a Parquet file and reads every column chunk of
// every row group whole and in halves, and its page indexes. It returns
// the first error, and reports whether a recovered panic was among the
// errors.
func decodeBytes(ctx context.Context, data []byte) (err error, panicked bool) {
	r, err := Open("fuzz.parquet", bytes.NewReader(data), int64(len(data)), MaxPageSize(1<<20))
	if err != nil {
		var p *PanicError
		return err, errors.As(err, &p)
	}
	var col Column
	var first error
	for rg := range r.NumRowGroups() {
		n := r.NumRows(rg)
		for c := range r.Leaves() {
			for _, span := range [][2]int64{{0, n}, {n / 2, n}, {-1, -1}} {
				switch {
				case span[0] < 0:
					_, err = r.ColumnIndex(ctx, rg, c) // and the offset index
				case span[0] == 0:
					err = r.ReadColumn(ctx, rg, c, &col)
				default:
					err = r.ReadColumnRange(ctx, rg, c, span[0], span[1], &col)
				}
				var p *PanicError
				if errors.As(err, &p) {
					return err, true
				}
				if err != nil {
					var e *Error
					if !errors.As(err, &e) || e.File != "fuzz.parquet" || e.RowGroup != rg || e.Column == "" {
						return errors.New("an error does not say where: " + err.Error()), false
					}
				}
				if first == nil {
					first = err
				}
			}
		}
	}
	return first, false
}

var fuzzSeeds = []string{
	"data/alltypes_plain.parquet",
	"data/alltypes_dictionary.parquet",
	"data/datapage_v2.snappy.parquet",
	"data/nested_lists.snappy.parquet",
	"data/nullable.impala.parquet",
	"data/delta_encoding_optional_column.parquet",
	"data/byte_stream_split.zstd.parquet",
	"data/lz4_raw_compressed.parquet",
	"data/concatenated_gzip_members.parquet",
	"data/int32_with_null_pages.parquet",
	"data/rle-dict-uncompressed-corrupt-checksum.parquet",
}

// FuzzDecode feeds arbitrary bytes to the reader: it must return, and must
// not let a panic escape. (Recovered panics are reported as failures too, so
// that fuzzing finds the decoder paths that rely on recovery.)
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		data, err := os.ReadFile(filepath.Join(testdataDir, s))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err, panicked := decodeBytes(t.Context(), data); panicked {
			var p *PanicError
			errors.As(err, &p)
			t.Fatalf("decoder panicked: %v\n%s", err, p.Stack)
		}
	})
}

// TestCorruptionSweep damages the column chunk bytes of real files at many
// places, with CRC checks off so that the damage reaches the decoders, and
// reads them: every read must end, with data or with an error that says
// where, and no read may end in a panic, recovered or not.
func TestCorruptionSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range fuzzSeeds {
		orig, err := os.ReadFile(filepath.Join(testdataDir, s))
		if err != nil {
			t.Fatal(err)
		}
		// Damage the pages, not the footer: the footer is parquet-go's to
		// parse and is covered by FuzzDecode.
		pages := len(orig) - 8 - footerLen(orig)
		failures := 0
		for range 300 {
			data := bytes.Clone(orig)
			for range 1 + rng.IntN(3) {
				i := 4 + rng.IntN(pages-4)
				data[i] ^= byte(1 + rng.IntN(255))
			}
			err, panicked := decodeBytesNoCRC(t.Context(), data)
			if panicked {
				var p *PanicError
				errors.As(err, &p)
				t.Fatalf("%s: decoder panicked: %v\n%s", s, err, p.Stack)
			}
			if err != nil {
				failures++
			}
		}
		t.Logf("%s: %d of 300 damaged copies were rejected", s, failures)
	}
}

func footerLen(data []byte) int {
	n := len(data)
	return int(uint32(data[n-8]) | uint32(data[n-7])<<8 | uint32(data[n-6])<<16 | uint32(data[n-5])<<24)
}

func decodeBytesNoCRC(ctx context.Context, data []byte) (error, bool) {
	r, err := Open("fuzz.parquet", bytes.NewReader(data), int64(len(data)), MaxPageSize(1<<20), VerifyChecksums(false))
	if err != nil {
		var p *PanicError
		return err, errors.As(err, &p)
	}
	var col Column
	var first error
	for rg := range r.NumRowGroups() {
		for c := range r.Leaves() {
			_, ierr := r.ColumnIndex(ctx, rg, c)
			for _, err := range []error{ierr, r.ReadColumn(ctx, rg, c, &col)} {
				var p *PanicError
				if errors.As(err, &p) {
					return err, true
				}
				if first == nil {
					first = err
				}
			}
		}
	}
	return first, false
}
