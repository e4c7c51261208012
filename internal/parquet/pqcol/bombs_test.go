package pqcol

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/testutil"
)

// Each bomb is a small file that reads to far more than it stores. Read
// in a child process whose address space is capped at childAddressSpace,
// each must fail with the expected error, naming where, while its peak
// resident set stays under bombPeak. Those read with a short deadline
// must return within a second of it.
const (
	childAddressSpace = 3 << 30
	bombPeak          = 512 << 20
	shortDeadline     = 300 * time.Millisecond
	longDeadline      = time.Minute
)

type bomb struct {
	file     func(t testing.TB) oneColumn
	want     string // the kind of error, see errorKind
	column   string
	deadline time.Duration
}

var bombs = map[string]bomb{
	// A valid frame of 8 bytes, then a frame whose header states 60 GiB.
	"zstd-second-frame": {func(t testing.TB) oneColumn {
		stored := append(zstdZeros(8, true), zstdFrameHeader(60<<30)...)
		return oneColumn{schema: []format.SchemaElement{requiredLeaf("v", format.Int64)}, codec: format.Zstd,
			numRows: 1, numValues: 1, pages: []rawPage{{v1(1, format.Plain), stored, 8}}}
	}, "corrupt", "v", longDeadline},
	// A frame that states no content size and decodes to 2 GiB, in a
	// page that declares 8 bytes.
	"zstd-no-content-size": {func(t testing.TB) oneColumn {
		return oneColumn{schema: []format.SchemaElement{requiredLeaf("v", format.Int64)}, codec: format.Zstd,
			numRows: 1, numValues: 1, pages: []rawPage{{v1(1, format.Plain), zstdZeros(2<<30, false), 8}}}
	}, "corrupt", "v", shortDeadline},
	// One 64 KiB dictionary value and 60,000 indexes to it: 3.9 GB.
	"dictionary": {func(t testing.TB) oneColumn {
		dict := append([]byte{0, 0, 1, 0}, make([]byte, 64<<10)...)
		idx := rleRun([]byte{1}, 60000, 0)
		return oneColumn{schema: []format.SchemaElement{requiredLeaf("s", format.ByteArray)}, codec: format.Zstd,
			numRows: 60000, numValues: 60000, pages: []rawPage{
				{format.PageHeader{Type: format.DictionaryPage, DictionaryPageHeader: some(format.DictionaryPageHeader{
					NumValues: 1, Encoding: format.Plain})}, zstdOf(t, dict), len(dict)},
				{v1(60000, format.RLEDictionary), zstdOf(t, idx), len(idx)},
			}}
	}, "read-too-large", "s", longDeadline},
	// Five rows of 40 million null list elements each, one per page.
	"null-lists": {func(t testing.TB) oneColumn {
		const n = 40_000_000
		raw := prefixed(nil, rleRun(rleRun(nil, 1, 0), n-1, 1))
		raw = prefixed(raw, rleRun(nil, n, 2))
		p := rawPage{v1(n, format.Plain), zstdOf(t, raw), len(raw)}
		return oneColumn{schema: listOfOptionalInt32(), codec: format.Zstd,
			numRows: 5, numValues: 5 * n, pages: []rawPage{p, p, p, p, p}}
	}, "read-too-large", "l.list.element", longDeadline},
	// Sixteen pages of 240 MB each, every one under MaxPageSize.
	"zstd-pages": {func(t testing.TB) oneColumn {
		const n = 30_000_000
		p := rawPage{v1(n, format.Plain), zstdZeros(8*n, true), 8 * n}
		pages := make([]rawPage, 16)
		for i := range pages {
			pages[i] = p
		}
		return oneColumn{schema: []format.SchemaElement{requiredLeaf("v", format.Int64)}, codec: format.Zstd,
			numRows: 16 * n, numValues: 16 * n, pages: pages}
	}, "read-too-large", "v", longDeadline},
	// A valid file that is slow to read: pages of one null each padded
	// to 200 MiB, in frames that state no content size (so streamed, and
	// the context is checked every MiB), or to 64 MiB in frames that do
	// (so decoded whole, the context checked after each page: the time
	// to notice grows with the page, about 0.3 s for 256 MiB on an idle
	// core). The deadline passes mid-read.
	"slow":       {func(t testing.TB) oneColumn { return slowFile(200<<20, false) }, "deadline", "v", shortDeadline},
	"slow-sized": {func(t testing.TB) oneColumn { return slowFile(64<<20, true) }, "deadline", "v", shortDeadline},
}

// slowFile returns a file of 40 pages of one null padded to size bytes.
func slowFile(size int, fcs bool) oneColumn {
	levels := prefixed(nil, rleRun(nil, 1, 0))
	stored := zstdFrame(levels, uint64(size-len(levels)), fcs)
	p := rawPage{v1(1, format.Plain), stored, size}
	pages := make([]rawPage, 40)
	for i := range pages {
		pages[i] = p
	}
	leaf := format.SchemaElement{Name: "v", Type: some(format.Int64), RepetitionType: some(format.Optional)}
	return oneColumn{schema: []format.SchemaElement{leaf}, codec: format.Zstd, numRows: 40, numValues: 40, pages: pages}
}

func zstdOf(t testing.TB, raw []byte) []byte {
	t.Helper()
	out, err := parquet.LookupCompressionCodec(format.Zstd).Encode(nil, raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// errorKind names the sentinel an error wraps.
func errorKind(err error) string {
	switch {
	case err == nil:
		return "none"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	case errors.Is(err, ErrReadTooLarge):
		return "read-too-large"
	case errors.Is(err, ErrPageTooLarge):
		return "page-too-large"
	case errors.Is(err, ErrCorrupt):
		return "corrupt"
	}
	return "other"
}

// TestBombs reads each bomb in a child process and checks its error, peak
// memory and time.
func TestBombs(t *testing.T) {
	if testing.Short() {
		t.Skip("reads decompression bombs in child processes")
	}
	if _, err := testutil.PeakRSS(); err != nil {
		t.Skipf("peak memory cannot be measured here: %v", err)
	}
	dir := t.TempDir()
	for name, b := range bombs {
		t.Run(name, func(t *testing.T) {
			data := b.file(t).bytes(t)
			path := filepath.Join(dir, name+".parquet")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got := testutil.RunChild(t, "TestHelperBomb", b.deadline.String()+" "+path)
			peak, _ := strconv.ParseInt(got["peak"], 10, 64)
			ms, _ := strconv.ParseInt(got["ms"], 10, 64)
			t.Logf("%d-byte file: %s after %d ms, peak RSS %.1f MiB: %s", len(data), got["kind"], ms, float64(peak)/(1<<20), got["err"])
			if got["kind"] != b.want {
				t.Errorf("error kind %s, want %s: %s", got["kind"], b.want, got["err"])
			}
			for _, s := range []string{path, "row group 0", strconv.Quote(b.column)} {
				if !strings.Contains(got["err"], s) {
					t.Errorf("the error does not name %s: %s", s, got["err"])
				}
			}
			if b.want == "read-too-large" && !strings.Contains(got["err"], "MaxReadSize") {
				t.Errorf("the error does not name the limit: %s", got["err"])
			}
			testutil.CheckPeak(t, got["peak"], bombPeak)
			if limit := (b.deadline + time.Second).Milliseconds(); b.deadline == shortDeadline && ms > limit {
				t.Errorf("returned after %d ms; the deadline was %v", ms, b.deadline)
			}
		})
	}
}

// TestHelperBomb is the child of TestBombs: it reads every column chunk
// of the file its parent names, with the deadline it names, and reports.
func TestHelperBomb(t *testing.T) {
	deadline, path, _ := strings.Cut(testutil.ChildArg(t), " ")
	d, err := time.ParseDuration(deadline)
	if err != nil {
		t.Fatal(err)
	}
	if err := testutil.LimitAddressSpace(childAddressSpace); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	start := time.Now()
	err = readFile(ctx, path)
	elapsed := time.Since(start)
	peak, perr := testutil.PeakRSS()
	if perr != nil {
		t.Fatal(perr)
	}
	msg := ""
	if err != nil {
		msg = strings.NewReplacer("\t", " ", "\n", " ").Replace(err.Error())
	}
	testutil.Report("kind", errorKind(err), "peak", peak, "ms", elapsed.Milliseconds(), "err", msg)
}

func readFile(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := Open(path, f, st.Size())
	if err != nil {
		return err
	}
	var col Column
	for rg := range r.NumRowGroups() {
		for c := range r.Leaves() {
			if err := r.ReadColumn(ctx, rg, c, &col); err != nil {
				return err
			}
		}
	}
	return nil
}
