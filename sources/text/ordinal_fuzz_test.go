package text

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// FuzzCSVOrdinals checks the row IDs of CSV sources against the "Row IDs"
// section of the package documentation, computed from the file's bytes
// alone. A seed draws a file with newCSVCase (quoted newlines, blank
// lines, bad records, "\r\n", a spliced raw field or line) and, from a
// second stream, padding of short records inserted at a line start so
// that a drawn byte of the file lands on the first block boundary (at
// 65,536), a byte order mark, gzip, and the fast path on or off. The
// oracle reads the whole file with encoding/csv, maps each good record's
// first line (FieldPos) to the byte that line starts at, and takes the
// ordinal of that byte by its definition. The file is read at the drawn
// partition size and parallelism, with SkipBad or not, as records (IDs
// and values must be the oracle's, in order), as fastRow structs (each ID
// must be a good record's, in order, with that record's id, name and
// raw) and as column batches (IDs and text as for records). A bad
// header fails every run, and a header without a column of fastRow the
// run of structs; else a run with SkipBad does not fail, and one without
// fails if and only if the oracle finds a bad record (or, for structs, a
// field does not parse), having read only records before it.
func FuzzCSVOrdinals(f *testing.F) {
	raws := []string{"", `"`, "\n", "\r\n", "\n\n", `"` + "\n" + `"`, "a\"b\n", "\xef\xbb\xbf"}
	for i := range testutil.FuzzSeeds(24) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15+11, []byte(raws[i%len(raws)]))
	}
	f.Fuzz(func(t *testing.T, seed uint64, raw []byte) {
		if len(raw) > 128 {
			raw = raw[:128]
		}
		c := newCSVCase(seed, raw)
		r := rand.New(rand.NewPCG(seed, 0x6f7264696e616c73))
		var pad func(k, n int) string
		hr := csv.NewReader(strings.NewReader(c.text))
		hr.Comma = rune(c.comma)
		if hdr, err := hr.Read(); err == nil {
			sep := string(c.comma)
			pad = func(k, n int) string {
				fields := []string{strconv.Itoa(1e6 + k), "p", "0.5", "1", "n", "r", "true", "e"}
				for len(fields) < len(hdr) {
					fields = append(fields, "e")
				}
				fields = fields[:len(hdr)]
				fields[min(1, len(hdr)-1)] += strings.Repeat("p", n-len(strings.Join(fields, sep))-1)
				return strings.Join(fields, sep) + "\n"
			}
		}
		oc := drawOrdinalCase(r, []byte(c.text), "lang=xx/f.csv", c.partBytes, c.par, c.skip, pad)
		root := oc.write(t)
		want := csvOracle(oc.data, c.comma, oc.rel)
		opts := []CSVOption{sources.Files(oc.rel), PartitionBytes(oc.partBytes), Comma(rune(c.comma))}
		if c.null != "" {
			opts = append(opts, NullString(c.null))
		}
		if oc.skip {
			opts = append(opts, sources.SkipBad(new(sources.SkipReport)))
		}
		csvFastPath = oc.fast
		defer func() { csvFastPath = true }()
		check := func(source, msg string) {
			t.Helper()
			if msg != "" {
				t.Fatalf("%s: %s\n%s, NullString(%q)\n%s", source, msg, oc, c.null, want)
			}
		}

		var recs [][]any
		var ids []rowid.ID
		err := readItems(CSV[sources.Record](root, opts...), oc.par, func(it flow.Item[sources.Record]) {
			recs, ids = append(recs, it.Value.Values[:len(it.Value.Values)-1]), append(ids, it.ID) // without lang
		})
		check("CSV[sources.Record]", want.check(c.null, ids, recs, err, oc.skip))

		recs, ids = nil, nil
		err = readItems(CSV[*parquet.ColumnBatch](root, opts...), oc.par, func(it flow.Item[*parquet.ColumnBatch]) {
			recs = append(recs, batchRows(it.Value)...)
			for i := range it.Value.NumRows {
				ids = append(ids, it.Value.RowID(i))
			}
		})
		check("CSV[*parquet.ColumnBatch]", want.check(c.null, ids, recs, err, oc.skip))

		var rows []fastRow
		ids = nil
		err = readItems(CSV[fastRow](root, opts...), oc.par, func(it flow.Item[fastRow]) {
			rows, ids = append(rows, it.Value), append(ids, it.ID)
		})
		check("CSV[fastRow]", want.checkStructs(ids, rows, err, oc.skip))
	})
}

// FuzzJSONLOrdinals checks the row IDs of JSON Lines sources against the
// "Row IDs" section of the package documentation, computed from the
// file's bytes alone. A seed draws lines of jsonGen (most well formed,
// some damaged or not objects), each that starts with "{" tagged with a
// key "#" holding its line's number; blank lines of spaces, tabs and
// "\r"; "\n" or "\r\n" line ends; raw bytes (without "#") spliced in as
// lines or into a line; and, as FuzzCSVOrdinals does, padding across the
// first block boundary, a byte order mark, gzip and the fast path on or
// off. The oracle finds the start of each line and its tag in the bytes;
// an item's ID must be the ordinal of the start of a line that is not
// blank, of the line its tag names if it has one (of an untagged line if
// not), and the lines must follow the file's order. The file is read as
// records, as structs with the tag as a field, and as column batches, at
// the drawn partition size and parallelism, with SkipBad or not: a run
// with SkipBad does not fail, and one without that does not fail reads
// every line that is not blank.
func FuzzJSONLOrdinals(f *testing.F) {
	raws := []string{"", "{}", "\n", "\r\n\n", `{"a":1}` + "\n" + `{"b":2}`, "\xef\xbb\xbf", " \t\n", "{\"s\":\"x\"}"}
	for i := range testutil.FuzzSeeds(24) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15+5, []byte(raws[i%len(raws)]))
	}
	f.Fuzz(func(t *testing.T, seed uint64, raw []byte) {
		if len(raw) > 128 {
			raw = raw[:128]
		}
		r := rand.New(rand.NewPCG(seed, seed^0x4a534f4e4c696e65))
		data := jsonlOrdinalText(r, bytes.ReplaceAll(raw, []byte("#"), []byte("?")))
		skip := r.IntN(2) == 0
		par := 1
		if skip && r.IntN(2) == 0 {
			par = 3 // which failing partition's error comes first is not fixed
		}
		partBytes := []int64{16, 40, 200, 1 << 20}[r.IntN(4)]
		pad := func(k, n int) string {
			line := fmt.Sprintf(`{"#":%d,"s":"p"}`+"\n", 1e6+k)
			return line[:len(line)-3] + strings.Repeat("p", n-len(line)) + line[len(line)-3:]
		}
		oc := drawOrdinalCase(r, data, "f.jsonl", partBytes, par, skip, pad)
		root := oc.write(t)
		want := jsonlOracle(oc.data, oc.rel)
		opts := []JSONLOption{sources.Files(oc.rel), PartitionBytes(oc.partBytes)}
		if oc.skip {
			opts = append(opts, sources.SkipBad(new(sources.SkipReport)))
		}
		jsonlFastPath = oc.fast
		defer func() { jsonlFastPath = true }()
		check := func(source string, tags []int64, ids []rowid.ID, err error) {
			t.Helper()
			if msg := want.check(tags, ids, err, oc.skip); msg != "" {
				t.Fatalf("%s: %s\n%s\nfile: %.3000q", source, msg, oc, oc.data)
			}
		}

		var tags []int64
		var ids []rowid.ID
		err := readItems(JSONL[sources.Record](root, opts...), oc.par, func(it flow.Item[sources.Record]) {
			v, _ := it.Value.Get("#")
			tags, ids = append(tags, tagOf(fmt.Sprint(v))), append(ids, it.ID)
		})
		check("JSONL[sources.Record]", tags, ids, err)

		tags, ids = nil, nil
		err = readItems(JSONL[*parquet.ColumnBatch](root, opts...), oc.par, func(it flow.Item[*parquet.ColumnBatch]) {
			b := it.Value
			col := b.Column("#")
			vals := 0
			for i := range b.NumRows {
				tag := int64(0)
				if col != nil && col.DefLevels[i] != 0 {
					tag = tagOf(string(col.Bytes[col.Offsets[vals]:col.Offsets[vals+1]]))
					vals++
				}
				tags, ids = append(tags, tag), append(ids, b.RowID(i))
			}
		})
		check("JSONL[*parquet.ColumnBatch]", tags, ids, err)

		tags, ids = nil, nil
		err = readItems(JSONL[ordinalRow](root, opts...), oc.par, func(it flow.Item[ordinalRow]) {
			tags, ids = append(tags, it.Value.N), append(ids, it.ID)
		})
		check("JSONL[ordinalRow]", tags, ids, err)
	})
}

// ordinalRow is a JSON Lines line with its tag: the line's number in the
// generated file.
type ordinalRow struct {
	N int64    `json:"#"`
	S string   `json:"s"`
	F *float64 `json:"f64"`
}

// textOrdinal is the ordinal of the record that starts at byte off of a
// text file's bytes data, as the package documentation defines it: the
// start of the block of 65,536 bytes that holds off, plus the newlines
// between it and off.
func textOrdinal(data []byte, off int64) uint64 {
	block := off / 65536 * 65536
	return uint64(block) + uint64(bytes.Count(data[block:off], []byte{'\n'}))
}

// lineStarts returns the offsets of the lines of data from byte from on:
// from, and each byte after a newline.
func lineStarts(data []byte, from int) []int {
	starts := []int{from}
	for i := from; i < len(data); i++ {
		if data[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// ordinalCase is a generated file and how it is read.
type ordinalCase struct {
	data      []byte // decompressed
	rel       string // the file's path under the root
	partBytes int64
	par       int
	skip      bool
	fast      bool // the fast path is on
	gz        bool // the file is compressed
}

// drawOrdinalCase draws, from r, what is drawn the same way for both
// formats: a byte order mark, padding of lines made by pad (unless nil)
// across the first block boundary, gzip, and the fast path.
func drawOrdinalCase(r *rand.Rand, data []byte, rel string, partBytes int64, par int, skip bool, pad func(k, n int) string) *ordinalCase {
	c := &ordinalCase{data: data, rel: rel, partBytes: partBytes, par: par, skip: skip, fast: r.IntN(4) > 0}
	if r.IntN(6) == 0 {
		c.data = append([]byte(bom), c.data...)
	}
	if pad != nil && r.IntN(3) > 0 {
		c.data = padAcrossBlock(r, c.data, pad)
		switch {
		case c.partBytes == 200 && len(c.data) > 65536:
			c.partBytes = 20000 + r.Int64N(40000) // parts that start in a block and end in the next
		case c.partBytes < 200 && bytes.Count(c.data, []byte{'\n'}) > 1000:
			c.partBytes *= 32 // fewer parts, each of which reads up to 64 KiB before it
		}
	}
	if r.IntN(8) == 0 {
		c.gz, c.rel = true, c.rel+".gz"
	}
	return c
}

func (c *ordinalCase) String() string {
	return fmt.Sprintf("%s: %d bytes, PartitionBytes(%d) Parallel(%d) SkipBad(%v), fast path %v", c.rel, len(c.data), c.partBytes, c.par, c.skip, c.fast)
}

// write writes the case's file under a new root, which it returns.
func (c *ordinalCase) write(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	data := c.data
	if c.gz {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data = b.Bytes()
	}
	p := filepath.Join(root, filepath.FromSlash(c.rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// padAcrossBlock inserts lines made by line at a line start of data past
// its first line, with enough bytes (short lines, or longer ones, all of
// the width drawn) that a byte of data drawn from r after the insertion
// (anywhere, or a line start, or a newline) lands on the first block
// boundary, at offset 65,536. line(k, n) returns the kth line, n bytes
// long with its newline; n is at least 48. It returns data as it is if it
// has no line past its first, or is too long for that.
func padAcrossBlock(r *rand.Rand, data []byte, line func(k, n int) string) []byte {
	starts := lineStarts(data, 0)[1:]
	if len(starts) == 0 || len(data) > 65536-48 {
		return data
	}
	at := starts[r.IntN(len(starts))]
	target := at + r.IntN(len(data)-at+1) // the byte to land on the boundary
	switch after := lineStarts(data, at); r.IntN(4) {
	case 0:
		target = after[r.IntN(len(after))]
	case 1:
		target = max(at, after[r.IntN(len(after))]-1)
	}
	width := []int{48, 60, 700, 20000}[r.IntN(4)]
	var pad strings.Builder
	for k, rest := 1, 65536-target; rest > 0; k++ {
		n := width
		if rest-n < 48 {
			n = rest
		}
		pad.WriteString(line(k, n))
		rest -= n
	}
	return append(data[:at:at], append([]byte(pad.String()), data[at:]...)...)
}

// readItems reads src at parallelism par, calling fn with each item, and
// returns the error that ended the run.
func readItems[T any](src flow.Source[T], par int, fn func(flow.Item[T])) error {
	for it, err := range flow.Items[T](context.Background(), flow.From(src).Parallel(par)) {
		if err != nil {
			return err
		}
		fn(it)
	}
	return nil
}

// batchRows returns the rows of the batch's columns: each field's text,
// or nil for a null.
func batchRows(b *parquet.ColumnBatch) [][]any {
	rows := make([][]any, b.NumRows)
	for i := range rows {
		rows[i] = make([]any, len(b.Columns))
	}
	for k := range b.Columns {
		c := &b.Columns[k]
		v := 0
		for i := range rows {
			if c.DefLevels[i] != 0 {
				rows[i][k] = string(c.Bytes[c.Offsets[v]:c.Offsets[v+1]])
				v++
			}
		}
	}
	return rows
}

// csvWant is what the oracle reads in a CSV file: the records of a read
// that skips bad ones, with their IDs.
type csvWant struct {
	header    []string
	headerBad bool // the header cannot be read, or names a column twice
	bad       int  // records that encoding/csv rejects
	recs      [][]string
	ids       []rowid.ID
	byID      map[rowid.ID]int
}

func (w *csvWant) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "header %q (bad %v), %d bad records; records:", w.header, w.headerBad, w.bad)
	for i, rec := range w.recs {
		fmt.Fprintf(&b, "\n%v %q", w.ids[i], rec)
	}
	return fmt.Sprintf("%.3000s", b.String())
}

// csvOracle reads data serially with encoding/csv, after a byte order
// mark at its start: its header, and each record that has the header's
// number of fields, with the ID of the byte its first line starts at.
func csvOracle(data []byte, comma byte, rel string) *csvWant {
	from := 0
	if bytes.HasPrefix(data, []byte(bom)) {
		from = len(bom)
	}
	starts := lineStarts(data, from)
	r := csv.NewReader(bytes.NewReader(data[from:]))
	r.Comma = rune(comma)
	w := &csvWant{byID: map[rowid.ID]int{}}
	hdr, err := r.Read()
	if err != nil {
		w.headerBad = err != io.EOF
		return w
	}
	w.header = hdr
	seen := map[string]bool{}
	for _, n := range hdr {
		w.headerBad = w.headerBad || seen[n]
		seen[n] = true
	}
	file := rowid.FromString(rel)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return w
		}
		if err != nil {
			w.bad++
			continue
		}
		line, _ := r.FieldPos(0)
		id := rowid.Ordinal(textOrdinal(data, int64(starts[line-1]))).Combine(file)
		w.byID[id] = len(w.recs)
		w.recs, w.ids = append(w.recs, rec), append(w.ids, id)
	}
}

// checkRun checks what ended a run that read n items: a bad header fails
// every run before any item; SkipBad skips every bad record; without it,
// a run fails if and only if the file has a bad record, or a field that
// does not parse if parse.
func (w *csvWant) checkRun(n int, err error, skip, parse bool) string {
	switch {
	case w.headerBad && (err == nil || n > 0):
		return fmt.Sprintf("a bad header, read %d items and error %v", n, err)
	case w.headerBad:
		return ""
	case err != nil && skip:
		return fmt.Sprintf("SkipBad, error %v", err)
	case err != nil && w.bad == 0 && !parse:
		return fmt.Sprintf("no bad record, error %v", err)
	case err == nil && w.bad > 0 && !skip:
		return fmt.Sprintf("%d bad records, no error", w.bad)
	}
	return ""
}

// check checks the IDs and values of a run of records or column batches,
// which ended with err: the oracle's records in order, or the first of
// them if the run failed, a field equal to null being nil. It returns
// what is wrong, or "".
func (w *csvWant) check(null string, ids []rowid.ID, recs [][]any, err error, skip bool) string {
	if msg := w.checkRun(len(ids), err, skip, false); msg != "" {
		return msg
	}
	if len(ids) > len(w.ids) || err == nil && len(ids) < len(w.ids) {
		return fmt.Sprintf("read %d records, want %d (error %v)", len(ids), len(w.ids), err)
	}
	for i, id := range ids {
		want := make([]any, len(w.recs[i]))
		for k, s := range w.recs[i] {
			if s != null {
				want[k] = s
			}
		}
		if id != w.ids[i] || fmt.Sprintf("%#v", recs[i]) != fmt.Sprintf("%#v", want) {
			return fmt.Sprintf("record %d: %v %#v, want %v %#v", i, id, recs[i], w.ids[i], want)
		}
	}
	return ""
}

// checkStructs checks the IDs of a run of fastRow structs: each is the ID
// of one of the oracle's records, after the last one's, and the struct
// holds that record's name and raw fields, and its id if strconv parses
// it. Without SkipBad, a run that does not fail reads every record, and
// one that fails the first records. A header without a column of
// fastRow fails the run. It returns what is wrong, or "".
func (w *csvWant) checkStructs(ids []rowid.ID, rows []fastRow, err error, skip bool) string {
	col := func(name string) int { return slices.Index(w.header, name) }
	for _, name := range []string{"id", "name", "score", "small", "note", "raw", "ok"} {
		if col(name) < 0 && !w.headerBad {
			if err == nil || len(ids) > 0 {
				return fmt.Sprintf("no column %s, read %d items and error %v", name, len(ids), err)
			}
			return ""
		}
	}
	if msg := w.checkRun(len(ids), err, skip, true); msg != "" {
		return msg
	}
	if err == nil && !skip && len(ids) != len(w.ids) {
		return fmt.Sprintf("no error, read %d records, want %d", len(ids), len(w.ids))
	}
	idCol, nameCol, rawCol := col("id"), col("name"), col("raw")
	last := -1
	for i, id := range ids {
		k, ok := w.byID[id]
		if !ok || k <= last || !skip && k != i {
			return fmt.Sprintf("struct %d %+v: ID %v, not that of a record after record %d", i, rows[i], id, last)
		}
		last = k
		rec, v := w.recs[k], rows[i]
		n, perr := strconv.ParseInt(rec[idCol], 10, 64)
		if rec[nameCol] != v.Name || rec[rawCol] != string(v.Raw) || perr == nil && n != v.ID {
			return fmt.Sprintf("struct %d %+v: ID %v, of record %d %q", i, v, id, k, rec)
		}
	}
	return ""
}

// jsonlWant is what the oracle finds in a JSON Lines file: its lines, and
// their tags.
type jsonlWant struct {
	tagLine map[int64]int    // the line of each tag
	lineTag []int64          // the tag of each line, or 0
	byID    map[rowid.ID]int // the line that starts at the ordinal of an ID, if it is not blank
}

// jsonlOracle finds the lines of data that are not blank (after a byte
// order mark at its start), their IDs, and the tags, "#":n, in them.
func jsonlOracle(data []byte, rel string) *jsonlWant {
	w := &jsonlWant{tagLine: map[int64]int{}, byID: map[rowid.ID]int{}}
	file := rowid.FromString(rel)
	starts := lineStarts(data, 0)
	for j, s := range starts {
		end := len(data)
		if j+1 < len(starts) {
			end = starts[j+1]
		}
		line := data[s:end]
		if j == 0 {
			line = bytes.TrimPrefix(line, []byte(bom))
		}
		tag := int64(0)
		if _, after, ok := bytes.Cut(line, []byte(`"#":`)); ok {
			tag = tagOf(string(after))
			w.tagLine[tag] = j
		}
		w.lineTag = append(w.lineTag, tag)
		if len(bytes.TrimSpace(line)) > 0 {
			w.byID[rowid.Ordinal(textOrdinal(data, int64(s))).Combine(file)] = j
		}
	}
	return w
}

// tagOf returns the number at the start of s, or 0.
func tagOf(s string) int64 {
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.ParseInt(s[:end], 10, 64)
	return n
}

// check checks the tags and IDs of the items of a run that ended with
// err; it returns what is wrong, or "".
func (w *jsonlWant) check(tags []int64, ids []rowid.ID, err error, skip bool) string {
	if err != nil && skip {
		return fmt.Sprintf("SkipBad, error %v", err)
	}
	if err == nil && !skip && len(ids) != len(w.byID) {
		return fmt.Sprintf("no error, read %d items, want one a line that is not blank, %d", len(ids), len(w.byID))
	}
	last := -1
	for i, id := range ids {
		j, ok := w.byID[id]
		switch {
		case !ok:
			return fmt.Sprintf("item %d (tag %d): ID %v is not that of a line", i, tags[i], id)
		case j <= last:
			return fmt.Sprintf("item %d (tag %d): ID %v is line %d's, not after line %d", i, tags[i], id, j+1, last+1)
		case tags[i] != w.lineTag[j]:
			return fmt.Sprintf("item %d: tag %d, ID %v of line %d, which has tag %d (tag %d is on line %d)",
				i, tags[i], id, j+1, w.lineTag[j], tags[i], w.tagLine[tags[i]]+1)
		}
		last = j
	}
	return ""
}

// jsonlOrdinalText draws the lines of a JSON Lines file from r (see
// FuzzJSONLOrdinals), with raw spliced in.
func jsonlOrdinalText(r *rand.Rand, raw []byte) []byte {
	g := jsonGen{r}
	pBlank, pCRLF := pickF(r, 0, 0.05, 0.3), pickF(r, 0, 0, 0.3, 1)
	var lines []string
	for i := range r.IntN(60) {
		if r.Float64() < pBlank {
			lines = append(lines, g.pick("", " ", "\t", "\r", " \t "))
			continue
		}
		lines = append(lines, jsonlTagged(g.line(), i+1))
	}
	if len(raw) > 0 {
		at := r.IntN(len(lines) + 1)
		if r.IntN(2) == 0 && at < len(lines) { // into a line
			k := r.IntN(len(lines[at]) + 1)
			lines[at] = lines[at][:k] + string(raw) + lines[at][k:]
		} else {
			lines = append(lines[:at:at], append([]string{string(raw)}, lines[at:]...)...)
		}
	}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if i < len(lines)-1 || r.IntN(5) > 0 {
			if r.Float64() < pCRLF {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
		}
	}
	return []byte(b.String())
}

// jsonlTagged returns line with the key "#" and the value n first in its
// object, if it starts with "{" (after spaces); as it is if not.
func jsonlTagged(line string, n int) string {
	rest := strings.TrimLeft(line, " \t\r")
	if !strings.HasPrefix(rest, "{") {
		return line
	}
	lead, rest := line[:len(line)-len(rest)+1], rest[1:]
	sep := ","
	if strings.HasPrefix(strings.TrimLeft(rest, " \t\r"), "}") {
		sep = ""
	}
	return lead + `"#":` + strconv.Itoa(n) + sep + rest
}
