package pqcol

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/internal/testutil/longtest"
)

// Helpers: a Reader that learns page starts and one that scans
// from the first page must read every range alike, errors included.

// revErrSig renders what an error says: its kinds and where it was found.
func revErrSig(err error) string {
	if err == nil {
		return "ok"
	}
	var kinds []string
	for _, k := range []error{ErrCorrupt, ErrChecksum, ErrUnsupported, ErrPageTooLarge, ErrReadTooLarge, ErrTooLarge, ErrArgument, context.Canceled} {
		if errors.Is(err, k) {
			kinds = append(kinds, k.Error())
		}
	}
	var p *PanicError
	if errors.As(err, &p) {
		kinds = append(kinds, "PANIC "+fmt.Sprint(p.Value))
	}
	var e *Error
	if errors.As(err, &e) {
		return fmt.Sprintf("%v page=%d offset=%d row=%d", kinds, e.Page, e.Offset, e.Row)
	}
	return fmt.Sprintf("%v (not an *Error) %v", kinds, err)
}

// revPlan is a sequence of reads of one chunk: whole reads (from < 0) and
// ranges.
func revPlan(rng *rand.Rand, n int64) [][2]int64 {
	var out [][2]int64
	switch rng.IntN(3) {
	case 0:
		out = append(out, splits(n, 1+rng.IntN(6))...)
	case 1:
		s := splits(n, 1+rng.IntN(6))
		for i := len(s) - 1; i >= 0; i-- {
			out = append(out, s[i])
		}
	}
	for range 8 {
		if rng.IntN(8) == 0 {
			out = append(out, [2]int64{-1, -1})
			continue
		}
		from := rng.Int64N(n + 1)
		out = append(out, [2]int64{from, from + rng.Int64N(n-from+1)})
	}
	return out
}

// revCompare reads data through a learning and a scanning Reader, the same
// plan for both, and reports the first difference. It returns how many
// reads failed and how many succeeded.
func revCompare(t *testing.T, name string, data []byte, seed uint64, options ...Option) (failed, read int) {
	t.Helper()
	learn, err1 := Open("f", bytes.NewReader(data), int64(len(data)), options...)
	scan, err2 := Open("f", bytes.NewReader(data), int64(len(data)), options...)
	if revErrSig(err1) != revErrSig(err2) {
		t.Fatalf("%s: open differs", name)
	}
	if err1 != nil {
		return 1, 0
	}
	learn.cfg.learnGap, scan.cfg.ignoreIndex = 1, true
	rng := rand.New(rand.NewPCG(seed, 99))
	var a, b Column
	for rg := range learn.NumRowGroups() {
		n := learn.NumRows(rg)
		for c := range learn.Leaves() {
			for _, s := range revPlan(rng, n) {
				var errA, errB error
				if s[0] < 0 {
					errA = learn.ReadColumn(t.Context(), rg, c, &a)
					errB = scan.ReadColumn(t.Context(), rg, c, &b)
				} else {
					errA = learn.ReadColumnRange(t.Context(), rg, c, s[0], s[1], &a)
					errB = scan.ReadColumnRange(t.Context(), rg, c, s[0], s[1], &b)
				}
				if sa, sb := revErrSig(errA), revErrSig(errB); sa != sb {
					t.Fatalf("%s: row group %d column %d rows %v: learning %s (%v), scanning %s (%v)", name, rg, c, s, sa, errA, sb, errB)
				}
				if errA != nil {
					failed++
					continue
				}
				read++
				if err := equalFlat(flatOf(&a), flatOf(&b)); err != nil {
					t.Fatalf("%s: row group %d column %d rows %v: %v", name, rg, c, s, err)
				}
			}
		}
	}
	return failed, read
}

// revEntry is a level entry of a list column of optional INT32 elements.
type revEntry struct {
	rep, def byte
	v        int32
}

func revListEntries(rng *rand.Rand, rows int) []revEntry {
	var es []revEntry
	for range rows {
		switch k := rng.IntN(10); {
		case k == 0:
			es = append(es, revEntry{0, 0, 0}) // null list
		case k == 1:
			es = append(es, revEntry{0, 1, 0}) // empty list
		default:
			for i := range 1 + rng.IntN(6) {
				rep := byte(1)
				if i == 0 {
					rep = 0
				}
				if rng.IntN(6) == 0 {
					es = append(es, revEntry{rep, 2, 0}) // null element
				} else {
					es = append(es, revEntry{rep, 3, int32(rng.IntN(8))})
				}
			}
		}
	}
	return es
}

func revFlatEntries(rng *rand.Rand, rows int) []revEntry {
	es := make([]revEntry, rows)
	for i := range es {
		es[i] = revEntry{0, 1, int32(rng.IntN(8))}
		if rng.IntN(5) == 0 {
			es[i].def = 0
		}
	}
	return es
}

const revDictSize = 8

func revDictPage() handPage {
	body := make([]byte, 4*revDictSize)
	for i := range revDictSize {
		binary.LittleEndian.PutUint32(body[4*i:], uint32(i))
	}
	return dictionaryPage(revDictSize, body)
}

// revPage encodes entries as a data page (v1, or v2 if they start a row),
// dictionary-encoded or PLAIN.
func revPage(es []revEntry, list, dict, v2 bool) handPage {
	var rep, def []byte
	var vals []uint32
	var plain []byte
	nulls, rows := 0, 0
	maxDef := byte(1)
	if list {
		maxDef = 3
	}
	for _, e := range es {
		rep, def = append(rep, e.rep), append(def, e.def)
		if e.rep == 0 {
			rows++
		}
		if e.def == maxDef {
			vals = append(vals, uint32(e.v))
			plain = binary.LittleEndian.AppendUint32(plain, uint32(e.v))
		} else {
			nulls++
		}
	}
	enc := format.Plain
	values := plain
	if dict {
		enc = format.RLEDictionary
		values = append([]byte{3}, hybridEncode(vals, 3, packed8)...)
	}
	defWidth := 1
	if list {
		defWidth = 2
	}
	if v2 {
		var r []byte
		if list {
			r = hybridEncode(widen(rep), 1, packed8)
		}
		return pageV2(len(es), nulls, rows, enc, r, hybridEncode(widen(def), defWidth, packed8), values)
	}
	var r []byte
	if list {
		r = levelsV1Bytes(rep, 1, packed8)
	}
	return pageV1(len(es), enc, r, levelsV1Bytes(def, defWidth, packed8), values)
}

// revMutate, if set, changes a hand-built chunk's pages and counts.
var revMutate func(rng *rand.Rand, pages []handPage, rows, values int64) ([]handPage, int64, int64)

// revStructural changes a chunk's page sequence or counts in one way.
func revStructural(rng *rand.Rand, pages []handPage, rows, values int64) ([]handPage, int64, int64) {
	pages = append([]handPage(nil), pages...)
	i := rng.IntN(len(pages))
	switch rng.IntN(9) {
	case 0: // drop a page
		pages = append(pages[:i], pages[i+1:]...)
	case 1: // duplicate a page
		pages = append(pages[:i+1], pages[i:]...)
	case 2: // a (second) dictionary page somewhere
		pages = append(pages[:i], append([]handPage{revDictPage()}, pages[i:]...)...)
	case 3: // swap two pages
		j := rng.IntN(len(pages))
		pages[i], pages[j] = pages[j], pages[i]
	case 4: // a page declares another number of values
		p := pages[i]
		if p.header.DataPageHeader.Valid {
			p.header.DataPageHeader.V.NumValues += int32(rng.IntN(5) - 2)
		} else if p.header.DataPageHeaderV2.Valid {
			p.header.DataPageHeaderV2.V.NumValues += int32(rng.IntN(5) - 2)
		}
		pages[i] = p
	case 5:
		rows += int64(rng.IntN(5) - 2)
	case 6:
		values += int64(rng.IntN(5) - 2)
	case 7: // a zero-value page
		pages = append(pages[:i], append([]handPage{pageV1(0, format.Plain, nil, nil, nil)}, pages[i:]...)...)
	case 8: // an index page
		pages = append(pages[:i], append([]handPage{{header: format.PageHeader{Type: format.IndexPage}}}, pages[i:]...)...)
	}
	return pages, max(rows, 0), max(values, 0)
}

// TestLearnedMatchesScanStructural compares learning and scanning
// Readers on hand-built chunks whose page sequences are changed: pages
// dropped, duplicated, swapped, second dictionaries, miscounted.
func TestLearnedMatchesScanStructural(t *testing.T) {
	revMutate = revStructural
	defer func() { revMutate = nil }()
	rng := rand.New(rand.NewPCG(5, 6))
	failed, read := 0, 0
	for _, name := range slices.Sorted(maps.Keys(revLayouts())) {
		l := revLayouts()[name]
		for k := range 40 * revScale() {
			data := revFile(t, rng, l)
			f, r := revCompare(t, fmt.Sprintf("%s structural %d", name, k), data, uint64(k))
			failed, read = failed+f, read+r
		}
	}
	t.Logf("%d reads failed alike, %d read alike", failed, read)
}

// revScale multiplies the random cases (PQCOL_LEARN_SCALE, default 1).
func revScale() int {
	n, err := strconv.Atoi(os.Getenv("PQCOL_LEARN_SCALE"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// revLayout is how a hand-built chunk lays out its pages.
type revLayout struct {
	list      bool
	dictAt    int  // -1: no dictionary page; 0: first; k: before the k-th data page
	empties   bool // zero-value pages here and there (and first)
	v2        bool // pages that start a row may be v2
	quirk     int  // 1: size without the dictionary header; 2: without the page
	checksums bool
}

func revFile(t *testing.T, rng *rand.Rand, l revLayout) []byte {
	t.Helper()
	rows := 60 + rng.IntN(60)
	var es []revEntry
	if l.list {
		es = revListEntries(rng, rows)
	} else {
		es = revFlatEntries(rng, rows)
	}
	var pages []handPage
	dictLoaded := false
	data := 0
	emit := func(p handPage) {
		if l.checksums {
			p.header.CRC = 0 // filled in below
		}
		pages = append(pages, p)
	}
	if l.empties {
		emit(revPage(nil, l.list, false, false))
	}
	for i := 0; i < len(es); {
		if data == l.dictAt {
			emit(revDictPage())
			dictLoaded = true
		}
		j := min(len(es), i+1+rng.IntN(12))
		startsRow := es[i].rep == 0
		v2 := l.v2 && startsRow && rng.IntN(2) == 0
		if v2 { // a v2 page must end at a row's end too, if the next page is v2; keep it simple: cut at a row start
			for j < len(es) && es[j].rep != 0 {
				j++
			}
		}
		emit(revPage(es[i:j], l.list, dictLoaded && rng.IntN(3) > 0, v2))
		data++
		if l.empties && rng.IntN(5) == 0 {
			emit(revPage(nil, l.list, false, false))
		}
		i = j
	}
	col := optionalColumn(format.Int32)
	if l.list {
		col = listColumn(format.Int32)
	}
	nrows, nvalues := int64(rows), int64(len(es))
	if revMutate != nil {
		pages, nrows, nvalues = revMutate(rng, pages, nrows, nvalues)
	}
	if l.checksums {
		for i := range pages {
			pages[i].header.CRC = int32(crc32.ChecksumIEEE(pages[i].body))
		}
	}
	return handFile(t, col, nrows, nvalues, pages, func(md *format.FileMetaData) {
		cm := &md.RowGroups[0].Columns[0].MetaData
		if l.dictAt == 0 && l.quirk > 0 {
			page := cm.DataPageOffset - cm.DictionaryPageOffset
			header := page - int64(len(pages[0].body))
			if l.empties {
				return
			}
			if l.quirk == 1 {
				cm.TotalCompressedSize -= header
			} else {
				cm.TotalCompressedSize -= page
			}
		}
	})
}

func revLayouts() map[string]revLayout {
	out := map[string]revLayout{}
	for _, list := range []bool{false, true} {
		for _, dictAt := range []int{-1, 0, 3} {
			for _, empties := range []bool{false, true} {
				for _, v2 := range []bool{false, true} {
					for quirk := range 3 {
						if quirk > 0 && (dictAt != 0 || empties) {
							continue
						}
						l := revLayout{list: list, dictAt: dictAt, empties: empties, v2: v2, quirk: quirk, checksums: true}
						out[fmt.Sprintf("%+v", l)] = l
					}
				}
			}
		}
	}
	return out
}

// TestLearnedMatchesScanHand reads hand-built chunks (mid-chunk
// dictionaries, zero-value pages, pages v1 continuing rows, v2 pages,
// the dictionary-size quirk), intact and damaged, through a learning and
// a scanning Reader and compares results and errors.
func TestLearnedMatchesScanHand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	failed, read := 0, 0
	for _, name := range slices.Sorted(maps.Keys(revLayouts())) {
		l := revLayouts()[name]
		for k := range 6 * revScale() {
			data := revFile(t, rng, l)
			f, r := revCompare(t, name+" intact", data, uint64(k))
			failed, read = failed+f, read+r
			pages := len(data) - 8 - footerLen(data)
			for m := range 30 {
				damaged := bytes.Clone(data)
				for range 1 + rng.IntN(3) {
					damaged[4+rng.IntN(pages-4)] ^= byte(1 + rng.IntN(255))
				}
				f, r := revCompare(t, fmt.Sprintf("%s damage %d/%d", name, k, m), damaged, uint64(m))
				failed, read = failed+f, read+r
				// the same without checksum verification, so that damage
				// reaches the decoder
				f, r = revCompare(t, fmt.Sprintf("%s damage %d/%d nocrc", name, k, m), damaged, uint64(m), VerifyChecksums(false))
				failed, read = failed+f, read+r
			}
		}
	}
	t.Logf("%d reads failed alike, %d read alike", failed, read)
}

// TestLearnedMatchesScanGenerated does the same for the generated
// seed files and noIndexFiles, with their page indexes dropped.
func TestLearnedMatchesScanGenerated(t *testing.T) {
	longtest.Require(t)
	seeds, err := mutSeeds()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for i, s := range seeds {
		files[fmt.Sprintf("seed %d", i)] = withoutPageIndexes(t, s.data)
	}
	for name, path := range noIndexFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	rng := rand.New(rand.NewPCG(9, 10))
	failed, read := 0, 0
	for name, data := range files {
		f, r := revCompare(t, name, data, 1, MaxPageSize(1<<20), MaxReadSize(4<<20))
		failed, read = failed+f, read+r
		pages := len(data) - 8 - footerLen(data)
		for m := range 40 {
			damaged := bytes.Clone(data)
			for range 1 + rng.IntN(2) {
				damaged[4+rng.IntN(pages-4)] ^= byte(1 + rng.IntN(255))
			}
			opts := []Option{MaxPageSize(1 << 20), MaxReadSize(4 << 20)}
			if m%2 == 1 {
				opts = append(opts, VerifyChecksums(false))
			}
			f, r := revCompare(t, fmt.Sprintf("%s damage %d", name, m), damaged, uint64(m), opts...)
			failed, read = failed+f, read+r
		}
	}
	t.Logf("%d reads failed alike, %d read alike", failed, read)
}

// TestLearnedV2SkipLastDef: a list column whose pages are
// A (v1, rows 0-1), B (v2, rows 2-3) and C (v1), C continuing B's last row
// before starting row 4. pqcol reads the chunk whole, and a scanning read
// of rows [4, 5) reads it too. Once a read has learned that B starts row 2,
// the same range starts at B and skips it (all its rows precede the
// range); C's first entry is then checked against B's last definition
// level, which skipping B must keep (it was left 0, and the read failed as
// corrupt).
func TestLearnedV2SkipLastDef(t *testing.T) {
	a := revPage([]revEntry{{0, 3, 1}, {0, 3, 2}}, true, false, false)
	b := revPage([]revEntry{{0, 3, 3}, {0, 3, 4}}, true, false, true)
	c := revPage([]revEntry{{1, 3, 5}, {0, 3, 6}}, true, false, false)
	data := handFile(t, listColumn(format.Int32), 5, 6, []handPage{a, b, c}, nil)
	open := func(scan bool) *Reader {
		r, err := Open("v2skip.parquet", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		r.cfg.ignoreIndex, r.cfg.learnGap = scan, 1
		return r
	}
	var col Column
	learn, scan := open(false), open(true)
	if err := learn.ReadColumn(t.Context(), 0, 0, &col); err != nil || col.NumRows != 5 {
		t.Fatalf("whole read: %v, %d rows", err, col.NumRows)
	}
	if err := scan.ReadColumnRange(t.Context(), 0, 0, 4, 5, &col); err != nil || col.NumRows != 1 || col.Int32[0] != 6 {
		t.Fatalf("scanning read of rows [4, 5): %v, %v", err, col.Int32)
	}
	if err := learn.ReadColumnRange(t.Context(), 0, 0, 4, 5, &col); err != nil || col.NumRows != 1 || col.Int32[0] != 6 {
		t.Fatalf("learning read of rows [4, 5) after a whole read: %v, %v; a scan reads [6]", err, col.Int32)
	}
}

// TestLearnedCanceledAfterLearnedDictionary: a range read with a
// context already canceled fails before it reads any page, naming no
// page, in a Reader that knows a page start after the dictionary page as
// in one that scans (it read and decoded the dictionary page first, and
// its error named page 0).
func TestLearnedCanceledAfterLearnedDictionary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	data := revFile(t, rng, revLayout{dictAt: 0, checksums: true})
	learn, err := Open("f", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	scan, _ := Open("f", bytes.NewReader(data), int64(len(data)))
	scan.cfg.ignoreIndex, learn.cfg.learnGap = true, 1
	var col Column
	n := learn.NumRows(0)
	if err := learn.ReadColumn(t.Context(), 0, 0, &col); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	errA := learn.ReadColumnRange(ctx, 0, 0, n-1, n, &col)
	errB := scan.ReadColumnRange(ctx, 0, 0, n-1, n, &col)
	if revErrSig(errA) != revErrSig(errB) {
		t.Fatalf("canceled read: learning %s (%v), scanning %s (%v)", revErrSig(errA), errA, revErrSig(errB), errB)
	}
}

// TestLearnedMemoryBounded: a file of one required INT32 column whose
// chunk is many one-value pages (a valid file), and whose footer has many
// row groups pointing at that same chunk. Reading the last row of each
// row group through one Reader would keep a 32-byte page start per page
// per row group if every start were kept; the gap between kept starts and
// the Reader's limit keep them below the file's size.
func TestLearnedMemoryBounded(t *testing.T) {
	const pages, groups = 20000, 64
	var ps []handPage
	for i := range pages {
		ps = append(ps, pageV1(1, format.Plain, nil, nil, binary.LittleEndian.AppendUint32(nil, uint32(i))))
	}
	col := handColumn{schema: []format.SchemaElement{requiredLeaf("v", format.Int32)}}
	data := handFile(t, col, pages, pages, ps, func(md *format.FileMetaData) {
		g := md.RowGroups[0]
		md.RowGroups = nil
		for range groups {
			md.RowGroups = append(md.RowGroups, g)
		}
		md.NumRows = pages * groups
	})
	r, err := Open("tiny-pages.parquet", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var c Column
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for rg := range groups {
		if err := r.ReadColumnRange(t.Context(), rg, 0, pages-1, pages, &c); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	starts := 0
	for i := range r.learned {
		if l := r.learned[i].Load(); l != nil {
			starts += len(l.starts)
		}
	}
	kept := int64(starts) * int64(unsafe.Sizeof(pageStart{}))
	t.Logf("file %d bytes; the Reader keeps %d page starts (%d bytes); heap grew by %d bytes",
		len(data), starts, kept, int64(after.HeapAlloc)-int64(before.HeapAlloc))
	if kept > int64(len(data)) {
		t.Fatalf("a %d-byte file made the Reader keep %d bytes of learned page starts (%.0fx the file)",
			len(data), kept, float64(kept)/float64(len(data)))
	}
	runtime.KeepAlive(r)
}

// TestLearnedConcurrentDamaged reads damaged hand-built and
// generated files from several goroutines through one learning Reader,
// each read compared with a scanning Reader's. Run with -race.
func TestLearnedConcurrentDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	var files [][]byte
	for _, name := range slices.Sorted(maps.Keys(revLayouts())) {
		l := revLayouts()[name]
		data := revFile(t, rng, l)
		for range 2 {
			damaged := bytes.Clone(data)
			pages := len(data) - 8 - footerLen(data)
			damaged[4+rng.IntN(pages-4)] ^= byte(1 + rng.IntN(255))
			files = append(files, data, damaged)
		}
	}
	for i, data := range files {
		learn, err := Open("f", bytes.NewReader(data), int64(len(data)), VerifyChecksums(i%2 == 0))
		if err != nil {
			continue
		}
		scan, _ := Open("f", bytes.NewReader(data), int64(len(data)), VerifyChecksums(i%2 == 0))
		learn.cfg.learnGap, scan.cfg.ignoreIndex = 1, true
		var wg sync.WaitGroup
		errs := make(chan error, 4)
		for g := range 4 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(g), uint64(i)))
				var a, b Column
				n := learn.NumRows(0)
				for range 30 {
					var errA, errB error
					from := rng.Int64N(n + 1)
					to := from + rng.Int64N(n-from+1)
					if rng.IntN(6) == 0 {
						errA, errB = learn.ReadColumn(t.Context(), 0, 0, &a), scan.ReadColumn(t.Context(), 0, 0, &b)
					} else {
						errA = learn.ReadColumnRange(t.Context(), 0, 0, from, to, &a)
						errB = scan.ReadColumnRange(t.Context(), 0, 0, from, to, &b)
					}
					if revErrSig(errA) != revErrSig(errB) {
						errs <- fmt.Errorf("file %d rows [%d, %d): learning %v, scanning %v", i, from, to, errA, errB)
						return
					}
					if errA == nil {
						if err := equalFlat(flatOf(&a), flatOf(&b)); err != nil {
							errs <- fmt.Errorf("file %d rows [%d, %d): %v", i, from, to, err)
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}
