package pqcol

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// dictionaryIndexes decodes the RLE_DICTIONARY (and legacy PLAIN_DICTIONARY)
// index stream of data pages: a bit-width byte, then RLE/bit-packed ints.
var dictionaryIndexes rle.DictionaryEncoding

// scratch holds buffers that decoders borrow.
type scratch struct {
	levels   []byte
	offsets  []uint32
	lengths  []int32
	prefixes []int32 // DELTA_BYTE_ARRAY prefix lengths (see deltaByteArraySize)
	delta    deltaScratch
	runs     []byte // RLE runs cut to a page's values (see rlePrefix)
	limit    int64  // MaxPageSize
}

// decoder decodes one column chunk at a time. A read borrows one from
// decoders (see borrowDecoder) for as long as it decodes.
type decoder struct {
	cfg   config
	leaf  *Leaf
	codec format.CompressionCodec
	proto thrift.CompactProtocol
	win   window // the chunk's bytes: up to end, or further (see dictionaryPage)
	end   int64  // the chunk's end, as its metadata declares
	size  int64  // the file's size
	// Where the chunk's pages may end past end: by its dictionary page's
	// header size or its whole size (0 without a dictionary page at the
	// chunk's start), and where they did end.
	dictHeader, dictSize, pagesEnd int64

	hdrReader  thrift.BytesReader // reused to decode page headers
	hdrDecoder *thrift.Decoder
	page       page
	dict       dictionary

	scratch  []byte       // decompressed page
	src      bytes.Reader // the compressed page, for streaming decoders
	tmp      scratch
	rep, def []byte  // levels of the current page: in repBuf and defBuf, or a page's in shared
	idx      []int32 // dictionary indexes of the current page
	// repBuf and defBuf are the decoder's buffers for levels; levelsShared
	// says that rep and def are those of the page in shared (see
	// pageLevels), decoded and checked by another read.
	repBuf, defBuf []byte
	levelsShared   bool
	part           values // values of the current page, when a read keeps part of them

	reader uint64      // the id of the Reader whose chunk is decoded
	chunk  int         // the chunk's index in the file (see pageKey)
	shared *sharedPage // the current page, when it came from or went to shared
	late   bool        // shared is to go to shared if the levels say so

	// Position. pageNum is -1 outside a page; pageRow is the row at which the
	// current page starts, or -1 if unknown.
	pageNum    int
	pageRow    int64
	nextRow    int64 // rows started so far, as a row index in the row group
	levels     int64 // level entries seen (only meaningful if !seeked)
	seeked     bool  // pages before the current one were skipped via the offset index
	atBoundary bool  // the next page must start a row
	lastDef    int   // the definition level of the last level entry decoded
	done       bool  // the requested rows are complete

	// Learning (see learn.go): whether the read notes the pages it passes,
	// what it found, and whether the page just handled starts a row.
	learning  bool
	found     learned
	startsRow bool
}

// request is one read: rows [from, to) of a column chunk, or all of it.
type request struct {
	from, to  int64
	whole     bool  // read the whole chunk
	toEnd     bool  // the rows end where the row group ends: check the chunk against the metadata
	numRows   int64 // rows in the row group
	numValues int64 // level entries in the chunk, per its metadata
	col       *Column
	dec       *decoder // borrowed for the read
}

func (d *decoder) init(cfg config, leaf *Leaf, codec format.CompressionCodec) {
	d.cfg, d.leaf, d.codec = cfg, leaf, codec
	d.tmp.limit = cfg.maxPageSize
	d.dict.reset()
	d.pageNum, d.pageRow = -1, -1
	d.nextRow, d.levels = 0, 0
	d.seeked, d.atBoundary, d.done = false, true, false
	d.lastDef = 0
	d.dictHeader, d.dictSize, d.pagesEnd = 0, 0, 0
	d.learning, d.startsRow = false, false
	d.found = learned{dict: -1, starts: d.found.starts[:0]}
}

// run decodes the pages between file offsets pos and the chunk's end.
// firstPage is the ordinal of the page at pos within the chunk.
func (d *decoder) run(ctx context.Context, pos int64, firstPage int, req *request) error {
	for n := firstPage; !d.done && pos < d.win.end; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !req.toEnd && d.leaf.MaxRepetitionLevel == 0 && d.nextRow >= req.to {
			break
		}
		// A read that ends where the row group ends reads on to the chunk's
		// declared end even when the chunk's values are all there, so that
		// pages holding more than the footer declares are found; past the
		// declared end, only values still missing are looked for.
		if !d.seeked && d.levels >= req.numValues && (!req.toEnd || pos >= d.end) || d.seeked && pos >= d.end {
			break
		}
		d.pageNum, d.pageRow = n, d.nextRow
		p, err := d.readPage(pos, !d.sharesPages(req) || !shared.holds(pageKey{d.reader, d.chunk, pos}))
		if err != nil {
			return err
		}
		row, levels := d.nextRow, d.levels
		d.startsRow = false
		if err := d.handlePage(ctx, p, req); err != nil {
			return err
		}
		if d.learning {
			d.found.note(p, n, row, levels, d.startsRow)
		}
		if err := d.checkCounts(req); err != nil {
			return err
		}
		pos = p.end
	}
	d.pageNum, d.pageRow = -1, -1
	d.pagesEnd = pos
	return d.finish(req)
}

func (d *decoder) handlePage(ctx context.Context, p *page, req *request) error {
	h := &p.header
	switch h.Type {
	case format.DictionaryPage:
		if d.dict.loaded {
			return corruptf("a second dictionary page in the column chunk")
		}
		return d.dictionaryPage(ctx, p)
	case format.IndexPage:
		return nil
	}
	if !req.toEnd && d.leaf.MaxRepetitionLevel > 0 && d.nextRow >= req.to &&
		(h.Type == format.DataPageV2 || d.seeked) {
		// This page starts a new row, so the last requested row is complete.
		d.done = true
		return nil
	}
	return d.dataPage(ctx, p, req)
}

// dictionaryPage loads the chunk's dictionary. A chunk that starts with its
// dictionary page may run past its declared end by that page's size: some
// writers leave the dictionary page's header (parquet-mr up to 1.2.8,
// PARQUET-816) or the whole page (older fastparquet) out of the chunk's
// TotalCompressedSize. Arrow pads such chunks and DuckDB reads past the
// size; pqcol lets the pages reach that far, within the file, and no
// further.
func (d *decoder) dictionaryPage(ctx context.Context, p *page) error {
	if p.offset == d.win.start {
		d.dictSize = p.end - p.offset
		d.dictHeader = d.dictSize - int64(p.header.CompressedPageSize)
		d.win.end = max(d.win.end, min(d.end+d.dictSize, d.size))
	}
	h := &p.header
	body, err := d.pageBody(p)
	if err != nil {
		return err
	}
	data, err := d.decompress(ctx, body, int(h.UncompressedPageSize))
	if err != nil {
		return err
	}
	v := &h.DictionaryPageHeader.V
	return d.dict.load(d.leaf, v.Encoding, data, int(v.NumValues), &d.tmp)
}

// checkCounts fails as soon as the pages have held more rows than the row
// group declares, or more level entries than the column chunk declares.
func (d *decoder) checkCounts(req *request) error {
	if d.nextRow > req.numRows {
		return corruptf("the column chunk holds more than the %d rows its row group declares", req.numRows)
	}
	if !d.seeked && d.levels > req.numValues {
		return corruptf("the column chunk's pages hold %d or more values but its metadata declares %d", d.levels, req.numValues)
	}
	return nil
}

// finish checks the rows (and, for a read to the end of the row group, the
// values) read against what was asked and what the metadata promises.
func (d *decoder) finish(req *request) error {
	col := req.col
	if req.whole && d.pagesEnd > d.end && d.pagesEnd != d.end+d.dictHeader && d.pagesEnd != d.end+d.dictSize {
		return corruptf("the column chunk's pages end at offset %d, %d bytes past the chunk's declared end; "+
			"only a chunk whose size leaves out its dictionary page's header (%d bytes) or whole page (%d bytes) may do so",
			d.pagesEnd, d.pagesEnd-d.end, d.dictHeader, d.dictSize)
	}
	if req.toEnd {
		if !d.seeked && d.levels != req.numValues {
			return corruptf("the column chunk's pages hold %d values but its metadata declares %d", d.levels, req.numValues)
		}
		if d.nextRow != req.numRows {
			return corruptf("the column chunk holds %d rows but the row group declares %d", d.nextRow, req.numRows)
		}
	}
	if want := req.to - req.from; col.NumRows != want {
		return corruptf("read %d rows of the %d in [%d, %d): the column chunk ends early", col.NumRows, want, req.from, req.to)
	}
	return nil
}

// dataPage decodes the levels of a data page, selects the level entries of
// the requested rows, and appends their levels and values to the column.
func (d *decoder) dataPage(ctx context.Context, p *page, req *request) error {
	h := &p.header
	maxRep := d.leaf.MaxRepetitionLevel
	var n int
	var enc format.Encoding
	if h.Type == format.DataPageV2 {
		n, enc = int(h.DataPageHeaderV2.V.NumValues), h.DataPageHeaderV2.V.Encoding
	} else {
		n, enc = int(h.DataPageHeader.V.NumValues), h.DataPageHeader.V.Encoding
	}
	// A page v2, or of a column that is not repeated, starts a row; a page
	// v1 of a repeated column does if its first repetition level is 0.
	d.startsRow = n > 0 && (maxRep == 0 || h.Type == format.DataPageV2)
	if !req.whole && maxRep == 0 && d.nextRow+int64(n) <= req.from {
		d.skipRows(int64(n), n) // every row of the page precedes the range
		return nil
	}
	var values []byte
	var err error
	taken := 0 // the entries of a page from shared that the read takes
	defer func() {
		if d.shared != nil {
			shared.release(d.shared, taken)
			d.shared, d.late = nil, false
		}
		if d.levelsShared {
			d.rep, d.def, d.levelsShared = nil, nil, false
		}
	}()
	if h.Type == format.DataPageV2 {
		var skip bool
		if values, skip, err = d.pageV2(ctx, p, n, req); err != nil || skip {
			return err
		}
	} else if values, err = d.pageV1(ctx, p, n, req); err != nil {
		return err
	} else if maxRep > 0 {
		d.startsRow = n > 0 && d.rep[0] == 0
	}
	if maxRep > 0 && n > 0 {
		if d.atBoundary && d.rep[0] != 0 {
			return corruptf("the page should start a row but its first repetition level is %d", d.rep[0])
		}
		if err := d.checkRepetition(n); err != nil {
			return err
		}
	}
	if d.shared != nil && !d.levelsShared && h.Type == format.DataPage {
		d.offerLevels(n, len(values))
	}
	d.atBoundary = false
	lo, hi, rows := d.selectLevels(n, req)
	taken = hi - lo
	if d.late && lo < hi && (lo > 0 || hi < n) {
		shared.publish(d.shared, taken) // it holds rows of other reads too
	}
	d.levels += int64(n)
	return d.appendPage(enc, values, n, lo, hi, rows, req.col)
}

// checkRepetition checks the page's n level entries of a repeated column:
// an entry with repetition level r adds an element to the list at depth r,
// so the entry before it (on this page or the previous one) must have
// given that list an element, not left it null or empty. Only an entry
// after one below the deepest list's level can offend. Where such entries
// are few (lists seldom null or empty), they are found by their values
// (bytes.IndexByte is vectorised) and the entries after them checked;
// otherwise levels are checked 8 at a time (see levelsBelow), and only
// words that may hold an offending entry one entry at a time.
func (d *decoder) checkRepetition(n int) error {
	if n == 0 {
		return nil
	}
	if err := d.checkEntry(0, d.lastDef); err != nil {
		return err
	}
	if lists := d.leaf.RepeatedLevels; !d.levelsShared && !d.fewBelowValid(n, lists[len(lists)-1]) {
		// Many to look at, or an offending entry: the words' check finds
		// the first.
		if err := d.checkWords(n); err != nil {
			return err
		}
	}
	d.lastDef = int(d.def[n-1])
	return nil
}

// sparseBelow is the most entries below the deepest list's level, per
// entry, for which checkRepetition finds them by value.
const sparseBelow = 1.0 / 64

// fewBelowValid reports whether few of the first n-1 entries have a
// definition level below deepest (found a value at a time, for a deepest
// level of at most 4) and the entry after each of them is valid (see
// checkEntry). It gives up, reporting false, once they are not few.
func (d *decoder) fewBelowValid(n, deepest int) bool {
	if deepest > 4 || n < 256 {
		return false
	}
	def, few := d.def[:n-1], int(float64(n)*sparseBelow)
	for v := range deepest {
		for j := 0; ; j++ {
			k := bytes.IndexByte(def[j:], byte(v))
			if k < 0 {
				break
			}
			if few--; few < 0 {
				return false
			}
			j += k
			if r := d.rep[j+1]; r != 0 && v < d.leaf.RepeatedLevels[r-1] {
				return false
			}
		}
	}
	return true
}

// checkWords checks entries 1 to n-1 of the page 8 at a time, and one at
// a time where a word may hold an offending entry.
func (d *decoder) checkWords(n int) error {
	rep, def := d.rep[:n], d.def[:n]
	i := 1
	lists := d.leaf.RepeatedLevels
	if d.leaf.MaxDefinitionLevel < 128 && d.leaf.MaxRepetitionLevel < 128 {
		// An entry is suspect if it continues a list (repetition level
		// above 0) after an entry below the deepest list's level.
		for ; i+8 <= n; i += 8 {
			if levelsBelow(def[i-1:], lists[len(lists)-1])&levelsNonZero(rep[i:]) == 0 {
				continue
			}
			for j := i; j < i+8; j++ {
				if err := d.checkEntry(j, int(def[j-1])); err != nil {
					return err
				}
			}
		}
	}
	for ; i < n; i++ {
		if err := d.checkEntry(i, int(def[i-1])); err != nil {
			return err
		}
	}
	return nil
}

// checkEntry checks level entry i of the page, whose previous entry has
// definition level prev.
func (d *decoder) checkEntry(i, prev int) error {
	r := d.rep[i]
	if r == 0 || prev >= d.leaf.RepeatedLevels[r-1] {
		return nil
	}
	row := d.nextRow + int64(countEqual(d.rep[:i], 0)) - 1
	return corruptf("level entry %d of the page (row %d) has repetition level %d, adding an element to a list "+
		"that the entry before it left null or empty (definition level %d); an entry of repetition level %d "+
		"must follow one of definition level %d or more", i, row, r, prev, r, d.leaf.RepeatedLevels[r-1])
}

const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// levelsBelow returns a word whose byte k has its high bit set if level
// b[k] is below t, for the first 8 levels of b, each below 128; 0 < t <= 128.
func levelsBelow(b []byte, t int) uint64 {
	return (highBits + uint64(t-1)*lowBits - binary.LittleEndian.Uint64(b)) & highBits
}

// levelsNonZero returns a word whose byte k has its high bit set if level
// b[k] is not 0, for the first 8 levels of b, each below 128.
func levelsNonZero(b []byte) uint64 {
	w := binary.LittleEndian.Uint64(b)
	return (w + 0x7f7f7f7f7f7f7f7f | w) & highBits
}

func (d *decoder) skipRows(rows int64, levels int) {
	d.nextRow += rows
	d.levels += int64(levels)
	d.atBoundary = d.leaf.MaxRepetitionLevel == 0
}

// pageV1 decompresses a data page v1 and decodes its levels into d.rep and
// d.def, returning the encoded values that follow. The levels of a page
// from shared are taken from there, if a read left them.
func (d *decoder) pageV1(ctx context.Context, p *page, n int, req *request) ([]byte, error) {
	h := &p.header
	v := &h.DataPageHeader.V
	rows := int64(-1) // a repeated column's rows are in the levels
	if d.leaf.MaxRepetitionLevel == 0 {
		rows = int64(n)
	}
	data, err := d.pageData(ctx, p, 0, int(h.UncompressedPageSize), n, d.sharingOf(p, rows, req), req)
	if err != nil {
		return nil, err
	}
	if lv := shared.levelsOf(d.shared); lv != nil { // the levels of these bytes
		d.rep, d.def, d.levelsShared = lv.rep, lv.def, true
		return data[len(data)-lv.values:], nil
	}
	if m := d.leaf.MaxRepetitionLevel; m > 0 {
		if d.repBuf, data, err = levelsV1(levelBuffer(d.repBuf, n+8), v.RepetitionLevelEncoding, m, n, data, &d.tmp.runs); err != nil {
			return nil, err
		}
		d.rep = d.repBuf
	}
	if m := d.leaf.MaxDefinitionLevel; m > 0 {
		if d.defBuf, data, err = levelsV1(levelBuffer(d.defBuf, n+8), v.DefinitionLevelEncoding, m, n, data, &d.tmp.runs); err != nil {
			return nil, err
		}
		d.def = d.defBuf
	}
	return data, nil
}

// pageV2 decodes the (never compressed) levels of a data page v2, then
// decompresses its values unless every row of the page precedes the range
// (skip). A v2 page always starts a row.
func (d *decoder) pageV2(ctx context.Context, p *page, n int, req *request) (values []byte, skip bool, err error) {
	h := &p.header
	v := &h.DataPageHeaderV2.V
	rl, dl := int(v.RepetitionLevelsByteLength), int(v.DefinitionLevelsByteLength)
	levels, err := d.pagePrefix(p, rl+dl)
	if err != nil {
		return nil, false, err
	}
	if m := d.leaf.MaxRepetitionLevel; m > 0 {
		if d.repBuf, err = decodeLevels(d.repBuf, format.RLE, m, n, levels[:rl], &d.tmp.runs); err != nil {
			return nil, false, err
		}
		d.rep = d.repBuf
		if n > 0 && d.rep[0] != 0 {
			return nil, false, corruptf("data page v2 starts inside a row: its first repetition level is %d", d.rep[0])
		}
		d.atBoundary = true
	}
	if m := d.leaf.MaxDefinitionLevel; m > 0 {
		if d.defBuf, err = decodeLevels(d.defBuf, format.RLE, m, n, levels[rl:], &d.tmp.runs); err != nil {
			return nil, false, err
		}
		d.def = d.defBuf
	}
	rows := int64(n) // the rows the page starts, for a read of part of the row group
	if !req.whole && d.leaf.MaxRepetitionLevel > 0 {
		if rows = int64(countEqual(d.rep[:n], 0)); d.nextRow+rows <= req.from {
			d.skipRows(rows, n)
			if d.leaf.MaxDefinitionLevel > 0 && n > 0 {
				// The next page's first entry may continue this page's
				// last row: checkRepetition needs its definition level.
				d.lastDef = int(d.def[n-1])
			}
			return nil, true, nil
		}
	}
	if compressed := !v.IsCompressed.Valid || v.IsCompressed.V; !compressed || int(h.CompressedPageSize) == rl+dl {
		// An empty values section (a page of nulls) is not a compressed
		// stream and is not handed to the codec.
		body, err := d.pageBody(p)
		if err != nil {
			return nil, false, err
		}
		return body[rl+dl:], false, nil
	}
	values, err = d.pageData(ctx, p, rl+dl, int(h.UncompressedPageSize)-rl-dl, n, d.sharingOf(p, rows, req), req)
	return values, false, err
}

// selectLevels numbers the rows of the page's n level entries and returns
// the range [lo, hi) of entries that belong to rows [req.from, req.to), and
// how many rows start in that range.
func (d *decoder) selectLevels(n int, req *request) (lo, hi int, rows int64) {
	first := d.nextRow
	if d.leaf.MaxRepetitionLevel == 0 {
		d.nextRow += int64(n)
		if req.whole {
			return 0, n, int64(n)
		}
		lo, hi = clamp(req.from-first, n), clamp(req.to-first, n)
		return lo, hi, int64(hi - lo)
	}
	started := int64(countEqual(d.rep[:n], 0))
	firstRow := first - 1 // entries before the first 0 continue the previous row
	if n > 0 && d.rep[0] == 0 {
		firstRow = first
	}
	if req.whole || (firstRow >= req.from && first+started <= req.to) {
		d.nextRow += started // the whole page is wanted
		return 0, n, started
	}
	// The k-th level 0 of the page (from 0) starts row first+k. Entries
	// from the one starting row req.from (or the first, if the page's
	// first row is wanted) to the one starting row req.to are wanted.
	rep := d.rep[:n]
	if n == 0 {
		return 0, 0, 0
	}
	if firstRow >= req.to {
		d.done = true
		if rep[0] == 0 {
			d.nextRow++
		}
		return 0, 0, 0
	}
	lo, hi = 0, n
	if firstRow < req.from {
		if lo = NthLevel(rep, 0, int(req.from-first)); lo < 0 {
			lo = n
		}
	}
	if end := NthLevel(rep, 0, int(req.to-first)); end >= 0 {
		hi = end
		lo = min(lo, hi)
		d.done = true
		d.nextRow = req.to + 1
	} else {
		d.nextRow += started
	}
	return lo, hi, int64(countEqual(d.rep[lo:hi], 0))
}

func clamp(v int64, n int) int {
	return int(max(0, min(v, int64(n))))
}

// appendPage appends entries [lo, hi) of the page: levels, row count and
// the non-null values among them.
func (d *decoder) appendPage(enc format.Encoding, values []byte, n, lo, hi int, rows int64, col *Column) error {
	if hi <= lo {
		return nil
	}
	maxDef := d.leaf.MaxDefinitionLevel
	nonNull, skip, keep := n, lo, hi-lo
	if maxDef > 0 {
		m := byte(maxDef)
		nonNull = countEqual(d.def[:n], m)
		skip, keep = 0, nonNull
		if lo > 0 || hi < n {
			skip = countEqual(d.def[:lo], m)
			keep = countEqual(d.def[lo:hi], m)
		}
	}
	levelBytes := int64(hi-lo) * int64(d.levelKinds())
	if keep > 0 {
		if err := d.appendValues(enc, values, nonNull, skip, keep, levelBytes, col); err != nil {
			return err
		}
	} else if err := d.charge(col, levelBytes); err != nil {
		return err
	}
	if maxDef > 0 {
		col.DefLevels = append(col.DefLevels, d.def[lo:hi]...)
	}
	if d.leaf.MaxRepetitionLevel > 0 {
		col.RepLevels = append(col.RepLevels, d.rep[lo:hi]...)
	}
	col.NumRows += rows
	return nil
}

// appendValues appends values [skip, skip+keep) of the page's nonNull
// values, once the column's MaxReadSize limit allows them and levelBytes
// more.
func (d *decoder) appendValues(enc format.Encoding, values []byte, nonNull, skip, keep int, levelBytes int64, col *Column) error {
	s := col.sink()
	//lint:ignore SA1019 PLAIN_DICTIONARY is deprecated for writers; readers must still decode the files that use it.
	if enc == format.RLEDictionary || enc == format.PlainDictionary {
		if !d.dict.loaded {
			return corruptf("a %s data page but the column chunk has no dictionary page", enc)
		}
		if len(values) > 0 {
			var err error
			if values, err = rlePrefix(&d.tmp.runs, values, 1, int(values[0]), nonNull); err != nil {
				return fmt.Errorf("dictionary indexes: %w", err)
			}
		}
		idx, err := dictionaryIndexes.DecodeInt32(d.idx[:0], values)
		if cap(idx) > cap(d.idx) {
			d.idx = idx[:0]
		}
		if err != nil {
			return corruptf("dictionary indexes: %v", err)
		}
		if len(idx) < nonNull {
			return corruptf("decoded %d dictionary indexes, the page holds %d values", len(idx), nonNull)
		}
		idx = idx[skip : skip+keep]
		if err := d.charge(col, levelBytes+d.dict.gatherBytes(d.leaf, idx, d.valueFootprint())); err != nil {
			return err
		}
		return d.dict.gather(d.leaf, idx, s)
	}
	if err := d.charge(col, levelBytes+d.valueBytes(keep, values)); err != nil {
		return err
	}
	if skip == 0 && keep == nonNull {
		return decodeValues(d.leaf, enc, values, nonNull, s, &d.tmp)
	}
	// Part of the page is kept: a page can hold a whole row group (DuckDB
	// writes one page per chunk) that several reads share, and the Column
	// holds only the values kept. PLAIN values are cut from the page
	// before decoding; others are decoded into the decoder's buffers.
	if kept, ok := plainRange(d.leaf, enc, values, nonNull, skip, keep); ok {
		return decodeValues(d.leaf, enc, kept, keep, s, &d.tmp)
	}
	d.part.reset()
	all := d.part.sink()
	if err := decodeValues(d.leaf, enc, values, nonNull, all, &d.tmp); err != nil {
		return err
	}
	return s.appendRange(d.leaf, all, skip, keep)
}
