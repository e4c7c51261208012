package pqcol

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
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

// fuzzSeeds are files of parquet-testing/data that parquet-go ships in its
// testdata, so they are there wherever the tests run.
var fuzzSeeds = []string{
	"alltypes_plain.parquet",
	"alltypes_dictionary.parquet",
	"datapage_v2.snappy.parquet",
	"nested_lists.snappy.parquet",
	"nullable.impala.parquet",
	"delta_encoding_optional_column.parquet",
	"delta_binary_packed.parquet",
	"delta_byte_array.parquet",
	"lz4_raw_compressed.parquet",
	"rle_boolean_encoding.parquet",
}

// sharedFuzzSeeds are further seeds from the shared corpus, used when it is
// there.
var sharedFuzzSeeds = []string{
	"byte_stream_split.zstd.parquet",
	"concatenated_gzip_members.parquet",
	"int32_with_null_pages.parquet",
	"rle-dict-uncompressed-corrupt-checksum.parquet",
}

// seedFiles returns the contents of the seed files, by name.
func seedFiles(t testing.TB) map[string][]byte {
	t.Helper()
	paths := map[string]string{}
	for _, s := range fuzzSeeds {
		paths[s] = filepath.Join(testutil.ParquetGoTestdata(t), s)
	}
	if dir, ok := testutil.LookupSharedCorpus(t); ok {
		for _, s := range sharedFuzzSeeds {
			paths[s] = filepath.Join(dir, "data", s)
		}
	} else {
		t.Logf("the shared corpus is not at %s: %d seeds left out", dir, len(sharedFuzzSeeds))
	}
	out := map[string][]byte{}
	for name, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = data
	}
	return out
}

// FuzzDecode feeds arbitrary bytes to the reader: it must return, and must
// not let a panic escape. (Recovered panics are reported as failures too, so
// that fuzzing finds the decoder paths that rely on recovery.)
func FuzzDecode(f *testing.F) {
	seeds := seedFiles(f)
	for _, name := range slices.Sorted(maps.Keys(seeds)) {
		f.Add(seeds[name])
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
	seeds := seedFiles(t)
	for _, s := range slices.Sorted(maps.Keys(seeds)) {
		orig := seeds[s]
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
