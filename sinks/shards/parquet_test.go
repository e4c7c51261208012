package shards_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// pqRow is the row of the tests: the shapes of a typical ETL record.
type pqRow struct {
	ID    int64   `parquet:"id"`
	Small int32   `parquet:"small"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
	Vec   []int32 `parquet:"vec"`
}

// pqRows returns n rows whose contents follow from their index: a
// 40-byte text and 16 int32s each, compressible but not constant.
func pqRows(n int) []pqRow {
	rows := make([]pqRow, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range rows {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		vec := make([]int32, 16)
		for j := range vec {
			vec[j] = int32(x>>(j*4)&0xff) + int32(i%7)
		}
		rows[i] = pqRow{
			ID:    int64(i),
			Small: int32(x % 1000),
			Score: float64(x%100000) / 7,
			Text:  fmt.Sprintf("row %08d text %016x xx", i, x&0xffffffff),
			Vec:   vec,
		}
	}
	return rows
}

// pqPipeline is rows through an identity Map on p workers. ChunkSize and
// PartitionItems of the source can be set with opts.
func pqPipeline(rows []pqRow, p int, opts ...sources.SliceOption) *flow.Pipeline {
	return flow.From(sources.Slice(rows, opts...)).
		Via(operators.Map(func(r pqRow) (pqRow, error) { return r, nil })).Parallel(p)
}

// itemIDs returns the row IDs of the pipeline's items, in order.
func itemIDs(t *testing.T, p *flow.Pipeline) []rowid.ID {
	t.Helper()
	var ids []rowid.ID
	for it, err := range flow.Items[pqRow](context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	return ids
}

// readTree returns every file under dir, by slash-separated relative
// path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readParquet returns the rows of a Parquet file as values of R.
func readParquet[R any](t *testing.T, b []byte) []R {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	r := parquet.NewGenericReader[R](f)
	defer r.Close()
	out := make([]R, f.NumRows())
	n, err := r.Read(out)
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if n != len(out) {
		t.Fatalf("read %d rows of %d", n, len(out))
	}
	return out
}

func openParquet(t *testing.T, b []byte) *parquet.File {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkManifest checks the manifest of rank against the files in dir and
// the row IDs of the stream, and returns it.
func checkManifest(t *testing.T, dir string, rank int, ids []rowid.ID) *shards.Manifest {
	t.Helper()
	m, err := shards.ReadManifest(dir, rank)
	if err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)
	var rows, size int64
	for _, f := range m.Files {
		b, ok := tree[f.Path]
		if !ok {
			t.Fatalf("manifest lists %s, which is not in %s", f.Path, dir)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
			t.Errorf("%s: sha256 %s, manifest says %s", f.Path, got, f.SHA256)
		}
		if int64(len(b)) != f.Bytes {
			t.Errorf("%s: %d bytes, manifest says %d", f.Path, len(b), f.Bytes)
		}
		if n := openParquet(t, b).NumRows(); n != f.Rows {
			t.Errorf("%s: %d rows, manifest says %d", f.Path, n, f.Rows)
		}
		if ids != nil {
			first := slices.Index(ids, f.FirstID)
			if first < 0 || rows+f.Rows > int64(len(ids)) {
				t.Fatalf("%s: first ID %s is not a row of the stream", f.Path, f.FirstID)
			}
			if last := ids[first+int(f.Rows)-1]; last != f.LastID {
				t.Errorf("%s: last ID %s, want %s", f.Path, f.LastID, last)
			}
		}
		rows += f.Rows
		size += f.Bytes
	}
	if rows != m.Rows || size != m.Bytes {
		t.Errorf("manifest totals %d rows %d bytes, files add up to %d rows %d bytes", m.Rows, m.Bytes, rows, size)
	}
	if !slices.IsSortedFunc(m.Files, func(a, b shards.ManifestFile) int { return strings.Compare(a.Path, b.Path) }) {
		t.Errorf("manifest files are not sorted by path")
	}
	return m
}

// concatFiles reads the manifest's files in its order.
func concatFiles[R any](t *testing.T, dir string, m *shards.Manifest) []R {
	t.Helper()
	var out []R
	for _, f := range m.Files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, readParquet[R](t, b)...)
	}
	return out
}

func equalRows(t *testing.T, got, want []pqRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Small != w.Small || g.Score != w.Score || g.Text != w.Text || !slices.Equal(g.Vec, w.Vec) {
			t.Fatalf("row %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestParquetShardsRoundTrip(t *testing.T) {
	ctx := context.Background()
	rows := pqRows(10_000)
	dir := filepath.Join(t.TempDir(), "out")
	p := pqPipeline(rows, 2, sources.PartitionItems(1500), sources.ChunkSize(333))
	ids := itemIDs(t, p)
	err := p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(3000), shards.RowGroupRows(1000))).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, ids)
	var names []string
	for _, f := range m.Files {
		names = append(names, f.Path)
	}
	wantNames := []string{"part-00000-00000.parquet", "part-00000-00001.parquet", "part-00000-00002.parquet", "part-00000-00003.parquet"}
	if !slices.Equal(names, wantNames) {
		t.Fatalf("files %q, want %q", names, wantNames)
	}
	for i, f := range m.Files {
		if want := min(3000, 10_000-3000*int64(i)); f.Rows != want || f.Seq != i || f.Writer != 0 {
			t.Errorf("%s: %d rows, seq %d, writer %d; want %d rows, seq %d, writer 0", f.Path, f.Rows, f.Seq, f.Writer, want, i)
		}
	}
	if m.Rows != 10_000 || m.Codec != "zstd" || m.CodecLevel != "auto" || m.Rank != 0 || m.Writers != 1 || m.RowGroupRows != 1000 {
		t.Errorf("manifest %+v", m)
	}
	if !strings.Contains(m.Schema, "required binary text (STRING)") || !strings.Contains(m.Schema, "repeated int32 vec") {
		t.Errorf("manifest schema:\n%s", m.Schema)
	}
	equalRows(t, concatFiles[pqRow](t, dir, m), rows)

	// The files' metadata: zstd everywhere, row groups of 1000 rows, the
	// fingerprint and a constant created_by.
	b, err := os.ReadFile(filepath.Join(dir, "part-00000-00000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	md := openParquet(t, b).Metadata()
	if len(md.RowGroups) != 3 {
		t.Errorf("%d row groups, want 3", len(md.RowGroups))
	}
	for _, rg := range md.RowGroups {
		if rg.NumRows != 1000 {
			t.Errorf("row group of %d rows, want 1000", rg.NumRows)
		}
		for _, c := range rg.Columns {
			if c.MetaData.Codec != format.Zstd {
				t.Errorf("column %v: codec %v", c.MetaData.PathInSchema, c.MetaData.Codec)
			}
		}
	}
	if md.CreatedBy != "rowflow (github.com/parquet-go/parquet-go)" {
		t.Errorf("created_by %q", md.CreatedBy)
	}
	if len(md.KeyValueMetadata) != 1 || md.KeyValueMetadata[0].Key != "rowflow.fingerprint" ||
		md.KeyValueMetadata[0].Value != m.Fingerprint || len(m.Fingerprint) != 32 {
		t.Errorf("key-value metadata %+v, manifest fingerprint %q", md.KeyValueMetadata, m.Fingerprint)
	}
	// No temporary files are left.
	for name := range readTree(t, dir) {
		if strings.HasPrefix(name, ".") {
			t.Errorf("left %s", name)
		}
	}
}

// TestParquetShardsSameBytes runs one pipeline several times, at several
// upstream parallelisms and chunk sizes: every run must write the same
// files, byte for byte, and the same manifest.
func TestParquetShardsSameBytes(t *testing.T) {
	ctx := context.Background()
	rows := pqRows(20_000)
	for _, writers := range []int{1, 2} {
		t.Run(fmt.Sprintf("writers=%d", writers), func(t *testing.T) {
			var ref map[string][]byte
			var refName string
			type variant struct {
				p     int
				chunk int
			}
			for i, v := range []variant{{1, 1024}, {1, 1024}, {2, 1024}, {4, 1024}, {1, 37}, {4, 1000}} {
				dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
				// A small page size makes pages end inside write calls,
				// where chunk boundaries could show.
				sink := shards.Parquet[pqRow](dir, shards.Writers(writers), shards.RowsPerFile(7000),
					shards.RowGroupRows(3000), shards.PageSize(4096))
				err := pqPipeline(rows, v.p, sources.PartitionItems(2500), sources.ChunkSize(v.chunk)).To(sink).Run(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got := readTree(t, dir)
				name := fmt.Sprintf("Parallel(%d) ChunkSize(%d)", v.p, v.chunk)
				if ref == nil {
					ref, refName = got, name
					if len(ref) < 4 {
						t.Fatalf("only %d files", len(ref))
					}
					continue
				}
				if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(ref))) {
					t.Fatalf("%s wrote %v, %s wrote %v", name, slices.Sorted(maps.Keys(got)), refName, slices.Sorted(maps.Keys(ref)))
				}
				for f, b := range ref {
					if !bytes.Equal(got[f], b) {
						t.Errorf("%s: %s differs from %s's", name, f, refName)
					}
				}
			}
		})
	}
}

func TestParquetShardsShards(t *testing.T) {
	testutil.CheckGoroutines(t)
	ctx := context.Background()
	rows := pqRows(10_000)
	dir := t.TempDir()
	p := pqPipeline(rows, 3, sources.PartitionItems(1000))
	ids := itemIDs(t, p)
	err := pqRankPipeline(rows, 3, 3, 4, sources.PartitionItems(1000)).
		To(shards.Parquet[pqRow](dir, shards.Writers(2), shards.RowsPerFile(2000))).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 3, nil)
	// Partition k (1000 rows) goes to writer k%2: each writer gets 5000 rows,
	// in files of 2000, 2000 and 1000 rows, numbered s, s+2, s+4.
	var got []string
	for _, f := range m.Files {
		got = append(got, fmt.Sprintf("%s %d/%d %d", f.Path, f.Writer, f.Seq, f.Rows))
	}
	want := []string{
		"part-00003-00000.parquet 0/0 2000", "part-00003-00001.parquet 1/1 2000",
		"part-00003-00002.parquet 0/2 2000", "part-00003-00003.parquet 1/3 2000",
		"part-00003-00004.parquet 0/4 1000", "part-00003-00005.parquet 1/5 1000",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Writer s holds partitions s, s+2, …, in order.
	for s := range 2 {
		var writerRows []pqRow
		for _, f := range m.Files {
			if f.Writer == s {
				b, _ := os.ReadFile(filepath.Join(dir, f.Path))
				writerRows = append(writerRows, readParquet[pqRow](t, b)...)
			}
		}
		var want []pqRow
		var wantIDs []rowid.ID
		for k := s; k < 10; k += 2 {
			want = append(want, rows[k*1000:(k+1)*1000]...)
			wantIDs = append(wantIDs, ids[k*1000:(k+1)*1000]...)
		}
		equalRows(t, writerRows, want)
		at := 0
		for _, f := range m.Files {
			if f.Writer != s {
				continue
			}
			if f.FirstID != wantIDs[at] || f.LastID != wantIDs[at+int(f.Rows)-1] {
				t.Errorf("%s: IDs %s…%s, want %s…%s", f.Path, f.FirstID, f.LastID, wantIDs[at], wantIDs[at+int(f.Rows)-1])
			}
			at += int(f.Rows)
		}
	}
}

func TestParquetShardsRollByBytes(t *testing.T) {
	ctx := context.Background()
	rows := pqRows(20_000)
	dir := t.TempDir()
	const limit = 100_000
	err := pqPipeline(rows, 1).To(shards.Parquet[pqRow](dir, shards.BytesPerFile(limit), shards.RowGroupRows(500))).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, nil)
	if len(m.Files) < 3 {
		t.Fatalf("%d files; want several", len(m.Files))
	}
	equalRows(t, concatFiles[pqRow](t, dir, m), rows)
	for i, f := range m.Files {
		b, _ := os.ReadFile(filepath.Join(dir, f.Path))
		md := openParquet(t, b).Metadata()
		if i == len(m.Files)-1 {
			break
		}
		// The file ended at the first row group after which it held
		// limit bytes: at least limit bytes, but less before its last row
		// group was written.
		if f.Bytes < limit {
			t.Errorf("%s: %d bytes, under %d", f.Path, f.Bytes, limit)
		}
		if end := rowGroupEnd(md.RowGroups[len(md.RowGroups)-2]); end >= limit {
			t.Errorf("%s: %d bytes before its last row group; it should have ended there", f.Path, end)
		}
		for _, rg := range md.RowGroups {
			if rg.NumRows != 500 {
				t.Errorf("%s: row group of %d rows", f.Path, rg.NumRows)
			}
		}
	}
}

// rowGroupEnd returns the offset just past a row group's column chunks.
func rowGroupEnd(rg format.RowGroup) int64 {
	var end int64
	for _, c := range rg.Columns {
		start := c.MetaData.DataPageOffset
		if c.MetaData.DictionaryPageOffset != 0 {
			start = min(start, c.MetaData.DictionaryPageOffset)
		}
		end = max(end, start+c.MetaData.TotalCompressedSize)
	}
	return end
}

func TestParquetShardsRollByRows(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, 1, 999, 1000, 1001, 2500} {
		rows := pqRows(n)
		dir := t.TempDir()
		err := pqPipeline(rows, 2, sources.PartitionItems(300), sources.ChunkSize(77)).
			To(shards.Parquet[pqRow](dir, shards.RowsPerFile(250), shards.RowGroupRows(100))).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := checkManifest(t, dir, 0, nil)
		if want := (n + 249) / 250; len(m.Files) != want {
			t.Errorf("%d rows: %d files, want %d", n, len(m.Files), want)
		}
		for i, f := range m.Files {
			if want := min(250, n-250*i); f.Rows != int64(want) {
				t.Errorf("%d rows: %s has %d rows, want %d", n, f.Path, f.Rows, want)
			}
		}
		equalRows(t, concatFiles[pqRow](t, dir, m), rows)
	}
}

func TestParquetShardsCodecs(t *testing.T) {
	ctx := context.Background()
	rows := pqRows(3000)
	want := map[string]format.CompressionCodec{
		"none": format.Uncompressed, "zstd": format.Zstd, "snappy": format.Snappy, "gzip": format.Gzip, "lz4": format.Lz4Raw,
	}
	var plain [][]byte // the pages of the uncompressed file
	sizes := map[string]int64{}
	for _, name := range []string{"none", "zstd", "snappy", "gzip", "lz4"} {
		dir := t.TempDir()
		err := pqPipeline(rows, 1).To(shards.Parquet[pqRow](dir, shards.Compression(name), shards.PageSize(8192))).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := checkManifest(t, dir, 0, nil)
		if m.Codec != name || (name == "zstd") != (m.CodecLevel != "") {
			t.Errorf("%s: manifest codec %q level %q", name, m.Codec, m.CodecLevel)
		}
		b, _ := os.ReadFile(filepath.Join(dir, m.Files[0].Path))
		for _, c := range openParquet(t, b).Metadata().RowGroups[0].Columns {
			if c.MetaData.Codec != want[name] {
				t.Errorf("%s: column %v has codec %v", name, c.MetaData.PathInSchema, c.MetaData.Codec)
			}
		}
		// Every page decompresses to the page of the uncompressed file.
		pages := pagePayloads(t, b)
		if name == "none" {
			plain = pages
			if len(plain) < 20 {
				t.Fatalf("only %d pages", len(plain))
			}
		} else if len(pages) != len(plain) {
			t.Errorf("%s: %d pages, uncompressed %d", name, len(pages), len(plain))
		} else {
			for i := range pages {
				if !bytes.Equal(pages[i], plain[i]) {
					t.Errorf("%s: page %d differs from the uncompressed one", name, i)
				}
			}
		}
		// parquet-go v0.32.0 misreads LZ4_RAW pages that compress less
		// than 3:1: its reader drops a decompressed page that the codec
		// returned in a new buffer of exactly the page's size
		// (parquet-go/parquet-go#608). The files are right, as the page
		// check above shows, but cannot be read back here.
		if name != "lz4" {
			equalRows(t, concatFiles[pqRow](t, dir, m), rows)
		}
		sizes[name] = m.Bytes
	}
	for name, n := range sizes {
		if name != "none" && n >= sizes["none"] {
			t.Errorf("%s: %d bytes, not less than uncompressed %d", name, n, sizes["none"])
		}
	}
	// zstd levels: the best level writes no more than the fastest.
	levels := map[int]*shards.Manifest{}
	for _, level := range []int{1, 19} {
		dir := t.TempDir()
		err := pqPipeline(rows, 1).To(shards.Parquet[pqRow](dir, shards.ZstdLevel(level))).Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		levels[level] = checkManifest(t, dir, 0, nil)
		equalRows(t, concatFiles[pqRow](t, dir, levels[level]), rows)
	}
	if levels[1].CodecLevel != "fastest" || levels[19].CodecLevel != "best" || levels[19].Bytes > levels[1].Bytes {
		t.Errorf("zstd level 1: %s %d bytes; level 19: %s %d bytes",
			levels[1].CodecLevel, levels[1].Bytes, levels[19].CodecLevel, levels[19].Bytes)
	}
}

// pagePayloads returns the uncompressed contents of every page of a
// Parquet file, in file order, read without parquet-go's page reader:
// page headers are decoded with its thrift package and pages decompressed
// with its codecs.
func pagePayloads(t *testing.T, b []byte) [][]byte {
	t.Helper()
	var pages [][]byte
	for _, rg := range openParquet(t, b).Metadata().RowGroups {
		for _, c := range rg.Columns {
			md := c.MetaData
			codec := parquet.LookupCompressionCodec(md.Codec)
			pos := md.DataPageOffset
			if md.DictionaryPageOffset != 0 {
				pos = min(pos, md.DictionaryPageOffset)
			}
			end := pos + md.TotalCompressedSize
			for pos < end {
				var proto thrift.CompactProtocol
				r := proto.NewReaderFromBytes(b[pos:end])
				var h format.PageHeader
				if err := thrift.NewDecoder(r).Decode(&h); err != nil {
					t.Fatal(err)
				}
				pos += int64(r.BytesRead())
				payload := b[pos : pos+int64(h.CompressedPageSize)]
				pos += int64(h.CompressedPageSize)
				var levels int32
				if v2 := h.DataPageHeaderV2; v2.Valid {
					levels = v2.V.RepetitionLevelsByteLength + v2.V.DefinitionLevelsByteLength
					if v2.V.IsCompressed.Valid && !v2.V.IsCompressed.V {
						levels = int32(len(payload))
					}
				}
				page := append([]byte(nil), payload[:levels]...)
				if int(levels) < len(payload) {
					values, err := codec.Decode(nil, payload[levels:])
					if err != nil {
						t.Fatalf("page at %d: %v", pos, err)
					}
					page = append(page, values...)
				}
				if len(page) != int(h.UncompressedPageSize) {
					t.Fatalf("page at %d: %d bytes, header says %d", pos, len(page), h.UncompressedPageSize)
				}
				pages = append(pages, page)
			}
		}
	}
	return pages
}

// pqRowWithID is pqRow as read back from files with RowIDColumn("rid").
type pqRowWithID struct {
	pqRow
	K1  uint64 `parquet:"rid_key1"`
	K2  uint64 `parquet:"rid_key2"`
	Ord uint64 `parquet:"rid_ord"`
}

func (r pqRowWithID) id() rowid.ID { return shards.RowID(r.K1, r.K2, r.Ord) }

func TestParquetShardsRowIDColumn(t *testing.T) {
	ctx := context.Background()
	rows := pqRows(5000)
	dir := t.TempDir()
	p := flow.From(sources.Slice(rows, sources.PartitionItems(700), sources.ChunkSize(100))).
		Via(operators.Filter(func(r pqRow) bool { return r.ID%3 != 0 })).Parallel(2)
	var items []flow.Item[pqRow]
	if err := p.To(sinks.Collect(&items)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	ids := make([]rowid.ID, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	err := p.To(shards.Parquet[pqRow](dir, shards.RowIDColumn("rid"), shards.RowsPerFile(1500), shards.RowGroupRows(600))).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, ids)
	if m.RowIDColumn != "rid" || !strings.Contains(m.Schema, "required int64 rid_key1 (INT(64,false))") ||
		!strings.Contains(m.Schema, "required int64 rid_ord (INT(64,false))") {
		t.Errorf("manifest: row ID column %q, schema:\n%s", m.RowIDColumn, m.Schema)
	}
	got := concatFiles[pqRowWithID](t, dir, m)
	if len(got) != len(items) {
		t.Fatalf("%d rows, want %d", len(got), len(items))
	}
	plain := make([]pqRow, len(got))
	want := make([]pqRow, len(items))
	for i := range got {
		if id := got[i].id(); id != items[i].ID {
			t.Fatalf("row %d: ID %s, want %s", i, id, items[i].ID)
		}
		plain[i], want[i] = got[i].pqRow, items[i].Value
	}
	equalRows(t, plain, want)
	// The typed reader of T still reads the files, ignoring the ID columns.
	equalRows(t, concatFiles[pqRow](t, dir, m), want)
}

func TestParquetShardsEmpty(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	err := pqPipeline(nil, 1).To(shards.Parquet[pqRow](dir)).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := checkManifest(t, dir, 0, nil)
	if len(m.Files) != 0 || m.Rows != 0 || m.Files == nil {
		t.Errorf("manifest of an empty stream: %+v", m)
	}
	if got := slices.Sorted(maps.Keys(readTree(t, dir))); !slices.Equal(got, []string{"_manifest-00000.json"}) {
		t.Errorf("files %q", got)
	}
}

func TestParquetShardsExistingOutput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	run := func(n int, opts ...shards.ParquetOption) error {
		opts = append(opts, shards.RowsPerFile(100))
		return pqPipeline(pqRows(n), 1).To(shards.Parquet[pqRow](dir, opts...)).Run(ctx)
	}
	if err := run(500); err != nil {
		t.Fatal(err)
	}
	before := readTree(t, dir)
	err := run(300)
	if err == nil || !strings.Contains(err.Error(), "already holds output of rank 0") {
		t.Fatalf("second run: %v", err)
	}
	if !maps.EqualFunc(readTree(t, dir), before, bytes.Equal) {
		t.Fatal("a run refused for existing output changed the directory")
	}
	// Another rank may write into the same directory.
	if err := pqRankPipeline(pqRows(150), 1, 1, 2).To(shards.Parquet[pqRow](dir, shards.RowsPerFile(100))).Run(ctx); err != nil {
		t.Fatal(err)
	}
	// Overwrite replaces the rank's output and removes its stale files.
	if err := run(300, shards.Overwrite()); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(readTree(t, dir)))
	want := []string{"_manifest-00000.json", "_manifest-00001.json",
		"part-00000-00000.parquet", "part-00000-00001.parquet", "part-00000-00002.parquet",
		"part-00001-00000.parquet", "part-00001-00001.parquet"}
	if !slices.Equal(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	m := checkManifest(t, dir, 0, nil)
	equalRows(t, concatFiles[pqRow](t, dir, m), pqRows(300))
}

func TestParquetShardsBadOptions(t *testing.T) {
	type noTags struct{ x int }
	type clash struct {
		RidOrd int64 `parquet:"rid_ord"`
	}
	cases := []struct {
		name string
		sink flow.Sink
		want string
	}{
		{"rows", shards.Parquet[pqRow]("d", shards.RowsPerFile(0)), "RowsPerFile(0)"},
		{"bytes", shards.Parquet[pqRow]("d", shards.BytesPerFile(-1)), "BytesPerFile(-1)"},
		{"group", shards.Parquet[pqRow]("d", shards.RowGroupRows(0)), "RowGroupRows(0)"},
		{"page", shards.Parquet[pqRow]("d", shards.PageSize(0)), "PageSize(0)"},
		{"codec", shards.Parquet[pqRow]("d", shards.Compression("brotli")), `Compression("brotli")`},
		{"level", shards.Parquet[pqRow]("d", shards.ZstdLevel(23)), "ZstdLevel(23)"},
		{"level codec", shards.Parquet[pqRow]("d", shards.ZstdLevel(5), shards.Compression("gzip")), "zstd only"},
		{"writers", shards.Parquet[pqRow]("d", shards.Writers(0)), "Writers(0)"},
		{"rowid", shards.Parquet[pqRow]("d", shards.RowIDColumn("")), "RowIDColumn"},
		{"rowid clash", shards.Parquet[clash]("d", shards.RowIDColumn("rid")), `already has a column "rid_ord"`},
		{"partition none", shards.Parquet[pqRow]("d", shards.PartitionBy()), "at least one column"},
		{"partition twice", shards.Parquet[pqRow]("d", shards.PartitionBy("id", "id")), "named twice"},
		{"partition missing", shards.Parquet[pqRow]("d", shards.PartitionBy("nope")), `no top-level column "nope"`},
		{"partition type", shards.Parquet[pqRow]("d", shards.PartitionBy("vec")), `column "vec" has type []int32`},
		{"max open", shards.Parquet[pqRow]("d", shards.MaxOpenPartitions(0)), "MaxOpenPartitions(0)"},
		{"nil option", shards.Parquet[pqRow]("d", nil), "nil ParquetOption"},
		{"empty dir", shards.Parquet[pqRow](""), "empty directory name"},
		{"not a struct", shards.Parquet[int]("d"), "must be structs"},
		{"no columns", shards.Parquet[noTags]("d"), "no columns"},
	}
	for _, c := range cases {
		// The error comes out of the run, whether the stream is empty or
		// not, and nothing is written.
		for _, n := range []int{0, 10} {
			p := flow.From(sources.Slice(make([]struct{}, n))).Via(operators.Map(func(struct{}) (int, error) { return 0, nil }))
			var err error
			switch c.name {
			case "not a struct":
				err = p.To(c.sink).Run(context.Background())
			case "no columns":
				err = flow.From(sources.Slice(slices.Repeat([]noTags{{x: 1}}, n))).To(c.sink).Run(context.Background())
			case "rowid clash":
				err = flow.From(sources.Slice(make([]clash, n))).To(c.sink).Run(context.Background())
			default:
				// To keeps the error: the pipeline reports it before any run.
				if perr := pqPipeline(pqRows(n), 1).To(c.sink).Err(); perr == nil || !strings.Contains(perr.Error(), c.want) {
					t.Errorf("%s: To kept %v, want an error containing %q", c.name, perr, c.want)
				}
				err = pqPipeline(pqRows(n), 1).To(c.sink).Run(context.Background())
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %d rows: error %v, want one containing %q", c.name, n, err, c.want)
			}
			if _, err := os.Stat("d"); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("%s: created ./d", c.name)
			}
		}
	}
}
