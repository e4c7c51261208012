package shards_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	sparquet "github.com/rowflow/rowflow/sources/parquet"
)

// modelRows are n rows of typed with nulls, empty and longer lists.
func modelRows(n int) []typed {
	rows := make([]typed, n)
	for i := range rows {
		r := typed{ID: int64(i), Score: float64(i) + 0.25}
		if i%7 != 0 {
			name := "n" + strconv.Itoa(i%300)
			r.Name = &name
		}
		if i%9 != 0 {
			small := int32(i % 1000)
			r.Small = &small
		}
		if i%5 != 0 {
			ok := i%3 == 0
			r.Ok = &ok
		}
		switch i % 4 {
		case 2:
			r.Tags = []string{"a", "bc"}
		case 3:
			r.Tags = []string{"x" + strconv.Itoa(i%17)}
		}
		rows[i] = r
	}
	return rows
}

// typedRecord is r as a record of its columns, with the Go values
// sources/parquet.Read[sources.Record] gives.
func typedRecord(r typed) sources.Record {
	vals := []any{r.ID, nil, r.Score, nil, nil, nil}
	if r.Name != nil {
		vals[1] = *r.Name
	}
	if r.Small != nil {
		vals[3] = *r.Small
	}
	if r.Ok != nil {
		vals[4] = *r.Ok
	}
	if r.Tags != nil {
		tags := make([]any, len(r.Tags))
		for i, s := range r.Tags {
			tags[i] = s
		}
		vals[5] = tags
	}
	return sources.Record{Names: []string{"id", "name", "score", "small", "ok", "tags"}, Values: vals}
}

// modelOpts are the sink options of the comparisons of the value models:
// small row groups, pages and files, two writers and row-ID columns.
func modelOpts() []shards.ParquetOption {
	return []shards.ParquetOption{shards.RowIDColumn("rid"), shards.Writers(2),
		shards.RowGroupRows(700), shards.PageSize(4096), shards.RowsPerFile(1500)}
}

// treeHash is the SHA-256 of the files under dir, data files and
// manifest, in the order of their names, with the output's fingerprint
// replaced by a constant: the bytes of the output but for the pipeline
// that wrote it.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	m, err := shards.ReadManifest(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	files := readTree(t, dir)
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		h.Write([]byte(name))
		h.Write(bytes.ReplaceAll(files[name], []byte(m.Fingerprint), []byte("fingerprint")))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// modelInputs are rows as records, and rows written as a Parquet file
// in a temporary directory, for Parquet of column batches to read.
func modelInputs(t *testing.T, rows []typed) (recs []sources.Record, file string) {
	t.Helper()
	recs = make([]sources.Record, len(rows))
	for i, r := range rows {
		recs[i] = typedRecord(r)
	}
	file = filepath.Join(t.TempDir(), "in.parquet")
	if err := pq.WriteFile(file, rows, pq.PageBufferSize(2048), pq.MaxRowsPerRowGroup(1200)); err != nil {
		t.Fatal(err)
	}
	return recs, file
}

// TestParquetModelsBytes pins what Parquet of records and of column
// batches write, with Schema and two writers, row-ID columns and small
// row groups, pages and files: the pipelines' fingerprints, which cover
// the sinks' settings, and the SHA-256 of the files and manifests, the
// fingerprint aside. A change of either changes the output of every job
// that writes records or batches, which a run that continues or confirms
// an earlier output then refuses.
func TestParquetModelsBytes(t *testing.T) {
	recs, file := modelInputs(t, modelRows(5000))
	schema := pq.SchemaOf(typed{})
	opts := append(modelOpts(), shards.Schema(schema))
	for _, c := range []struct {
		name      string
		p         *flow.Pipeline
		fp, files string
	}{
		{"records", flow.From(sources.Slice(recs, sources.PartitionItems(1100), sources.ChunkSize(333))),
			"d260af6d84db55731b420276717d63c1", "266fdb171df463468676ae0a47a371cf22525ae42bd09f859583949009fd309b"},
		{"column batches", flow.From(sparquet.Read[*sparquet.ColumnBatch](file)),
			"d084dd4524fca92279b96729e53f6b9e", "c05e7ee047aa7c2b3aa3f878ea91ab084588307c2ca4ee2afc0bc21e27b85e64"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		sink := shards.Parquet[sources.Record](out, opts...)
		if c.name == "column batches" {
			sink = shards.Parquet[*sparquet.ColumnBatch](out, opts...)
		}
		p := c.p.To(sink)
		if fp := p.Fingerprint(); fp != c.fp {
			t.Errorf("%s: fingerprint %s, want %s", c.name, fp, c.fp)
		}
		if err := p.Run(t.Context()); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if h := treeHash(t, out); h != c.files {
			t.Errorf("%s: files and manifest hash to %s, want %s", c.name, h, c.files)
		}
	}
}

// TestParquetOfRecordsWritesStructBytes writes the same rows as structs
// (Parquet[typed]) and as records with the struct's schema
// (Parquet[sources.Record] with Schema(pq.SchemaOf(typed{}))), at
// parallelism 1 and 3: the data files are the same bytes, the pipelines'
// fingerprints aside, since both go through rowflow's own writer.
func TestParquetOfRecordsWritesStructBytes(t *testing.T) {
	rows := modelRows(5000)
	recs, _ := modelInputs(t, rows)
	for _, par := range []int{1, 3} {
		structs, records := filepath.Join(t.TempDir(), "s"), filepath.Join(t.TempDir(), "r")
		err := flow.From(sources.Slice(rows, sources.PartitionItems(1100), sources.ChunkSize(333))).
			Via(operators.Map(func(r typed) (typed, error) { return r, nil })).Parallel(par).
			To(shards.Parquet[typed](structs, modelOpts()...)).Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		err = flow.From(sources.Slice(recs, sources.PartitionItems(1100), sources.ChunkSize(333))).
			Via(operators.Map(func(r sources.Record) (sources.Record, error) { return r, nil })).Parallel(par).
			To(shards.Parquet[sources.Record](records, append(modelOpts(), shards.Schema(pq.SchemaOf(typed{})))...)).Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		ms, err := shards.ReadManifest(structs, 0)
		if err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "Parallel("+strconv.Itoa(par)+")", structs, records)
		if len(ms.Files) < 4 {
			t.Fatalf("%d files, want at least 4", len(ms.Files))
		}
	}
}

// TestParquetSchemaRefused: Parquet of records or of column batches
// without Schema, and of structs with it, are errors when the sink is
// built, kept by To, and the run fails with them writing nothing.
func TestParquetSchemaRefused(t *testing.T) {
	rows := modelRows(10)
	recs, file := modelInputs(t, rows)
	schema := shards.Schema(pq.SchemaOf(typed{}))
	dir := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		name string
		p    *flow.Pipeline
		want []string
	}{
		{"records without Schema", flow.From(sources.Slice(recs)).To(shards.Parquet[sources.Record](dir, shards.RowIDColumn("rid"))),
			[]string{`shards: Parquet[sources.Record](`, `no Schema: give the files' columns with shards.Schema`, `sources/parquet.RecordSchema`}},
		{"batches without Schema", flow.From(sparquet.Read[*sparquet.ColumnBatch](file)).To(shards.Parquet[*sparquet.ColumnBatch](dir)),
			[]string{`shards: Parquet[*parquet.ColumnBatch](`, `no Schema: give the files' columns with shards.Schema`, `sources/parquet.RecordSchema`}},
		{"structs with Schema", flow.From(sources.Slice(rows)).To(shards.Parquet[typed](dir, schema)),
			[]string{`shards: Parquet[shards_test.typed]: Schema is for records and column batches; a struct's columns are its fields`}},
		{"nil Schema", flow.From(sources.Slice(recs)).To(shards.Parquet[sources.Record](dir, shards.Schema(nil))),
			[]string{`shards: Schema: nil schema`}},
	} {
		for _, err := range []error{c.p.Err(), c.p.Run(t.Context())} {
			if err == nil {
				t.Fatalf("%s: no error", c.name)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q does not say %q", c.name, err, w)
				}
			}
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s: the run made %s (%v)", c.name, dir, err)
		}
	}
}
