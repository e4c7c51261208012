package shards_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// pwRow is the row of the partitioned writers' tests.
type pwRow struct {
	Key  string `parquet:"key" json:"key" csv:"key"`
	Seq  int64  `parquet:"seq" json:"seq" csv:"seq"`
	Note string `parquet:"note" json:"note" csv:"note"`
}

// pwRowWithID is pwRow read back from Parquet files with
// RowIDColumn("rid").
type pwRowWithID struct {
	Key  string `parquet:"key"`
	Seq  int64  `parquet:"seq"`
	Note string `parquet:"note"`
	K1   uint64 `parquet:"rid_key1"`
	K2   uint64 `parquet:"rid_key2"`
	Ord  uint64 `parquet:"rid_ord"`
}

// pwRows returns n rows in source partitions of part rows: the k-th
// partition's rows have the keys k%keys and k%keys+keys (alternating,
// from the first),
// so that with Writers(w), w dividing keys, writer j sees the 2·keys/w
// keys of the partitions k ≡ j mod w.
func pwRows(n, part, keys int) []pwRow {
	rows := make([]pwRow, n)
	for i := range rows {
		k := i / part % keys
		if i%part%2 == 1 {
			k += keys
		}
		rows[i] = pwRow{Key: fmt.Sprintf("k%03d", k), Seq: int64(i), Note: fmt.Sprintf("n,%d\"%s", i*31%97, strings.Repeat("é", i%5))}
	}
	return rows
}

// pwSink returns a sink of format into dir.
func pwSink(format, dir string, opts ...shards.Option) flow.Sink {
	switch format {
	case "jsonl":
		return shards.JSONL[pwRow](dir, opts...)
	case "csv":
		return shards.CSV[pwRow](dir, opts...)
	}
	popts := []shards.ParquetOption{shards.RowGroupRows(7)}
	for _, o := range opts {
		popts = append(popts, o)
	}
	return shards.Parquet[pwRow](dir, popts...)
}

// readPW returns the rows of a file of format and their row IDs, read
// with the format's own parser (RowIDColumn("rid")).
func readPW(t *testing.T, format string, b []byte) ([]pwRow, []rowid.ID) {
	t.Helper()
	var rows []pwRow
	var ids []rowid.ID
	switch format {
	case "parquet":
		for _, r := range readParquet[pwRowWithID](t, b) {
			rows = append(rows, pwRow{r.Key, r.Seq, r.Note})
			ids = append(ids, shards.RowID(r.K1, r.K2, r.Ord))
		}
	case "jsonl":
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			var r struct {
				pwRow
				Hi uint64 `json:"rid_hi"`
				Lo uint64 `json:"rid_lo"`
			}
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&r); err != nil {
				t.Fatalf("line %q: %v", sc.Bytes(), err)
			}
			rows = append(rows, r.pwRow)
			ids = append(ids, rowid.ID{Hi: r.Hi, Lo: r.Lo})
		}
	case "csv":
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 || !slices.Equal(recs[0], []string{"key", "seq", "note", "rid_hi", "rid_lo"}) {
			t.Fatalf("header %q", recs[:min(1, len(recs))])
		}
		for _, rec := range recs[1:] {
			seq, err1 := strconv.ParseInt(rec[1], 10, 64)
			hi, err2 := strconv.ParseUint(rec[3], 10, 64)
			lo, err3 := strconv.ParseUint(rec[4], 10, 64)
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatalf("record %q: %v", rec, err)
			}
			rows = append(rows, pwRow{rec[0], seq, rec[2]})
			ids = append(ids, rowid.ID{Hi: hi, Lo: lo})
		}
	}
	return rows, ids
}

// TestPartitionedWritersUnion writes rows with many keys, PartitionBy
// and Writers(n), every writer at MaxOpenPartitions exactly, in the three
// formats: the union of the rows read back from the manifest's files is
// the input, each row once, with its row ID, in the directory of its key,
// in stream order within a file, each file's rows and first and last IDs
// are the manifest's, and Commit accepts the output. With one more key
// per writer than the cap, the run fails naming the partition and the
// row, and leaves no file and no goroutine. go test ./... runs one number
// of writers per format, the long tests both.
func TestPartitionedWritersUnion(t *testing.T) {
	const part = 37
	for _, format := range []string{"parquet", "jsonl", "csv"} {
		for _, writers := range []int{2, 3} {
			if !longtest.On() && writers != 2+len(format)%2 {
				continue // the long tests run both
			}
			keys := writers * 4 // each writer: 8 keys
			rows := pwRows(3000, part, keys)
			p := flow.From(sources.Slice(rows, sources.PartitionItems(part), sources.ChunkSize(10))).
				Via(operators.Map(func(r pwRow) (pwRow, error) { return r, nil })).Parallel(3)
			var items []flow.Item[pwRow]
			if err := p.To(sinks.Collect(&items)).Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Run(fmt.Sprintf("%s/writers=%d", format, writers), func(t *testing.T) {
				testutil.CheckGoroutines(t)
				dir := t.TempDir()
				opts := []shards.Option{shards.PartitionBy("key"), shards.Writers(writers), shards.MaxOpenPartitions(8),
					shards.RowsPerFile(11), shards.RowIDColumn("rid")}
				if err := p.To(pwSink(format, dir, opts...)).Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				m, err := shards.VerifyManifest(dir, 0)
				if err != nil {
					t.Fatal(err)
				}
				seen := make([]bool, len(rows))
				dirs := map[string]bool{}
				for _, f := range m.Files {
					b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
					if err != nil {
						t.Fatal(err)
					}
					got, ids := readPW(t, format, b)
					if int64(len(got)) != f.Rows || len(got) == 0 {
						t.Fatalf("%s: %d rows, manifest says %d", f.Path, len(got), f.Rows)
					}
					key := got[0].Key
					if d := filepath.ToSlash(filepath.Dir(f.Path)); d != "key="+key || len(f.Partition) != 1 || f.Partition[0].Value != key {
						t.Fatalf("%s: rows of key %q, partition %v", f.Path, key, f.Partition)
					}
					dirs[key] = true
					for i, r := range got {
						if r.Seq < 0 || r.Seq >= int64(len(rows)) || r != rows[r.Seq] || seen[r.Seq] {
							t.Fatalf("%s: row %d is %+v (seen before: %t)", f.Path, i, r, r.Seq >= 0 && r.Seq < int64(len(rows)) && seen[r.Seq])
						}
						seen[r.Seq] = true
						if ids[i] != items[r.Seq].ID {
							t.Fatalf("%s: row %d (seq %d) has ID %s, want %s", f.Path, i, r.Seq, ids[i], items[r.Seq].ID)
						}
						if i > 0 && r.Seq <= got[i-1].Seq {
							t.Fatalf("%s: seq %d after %d", f.Path, r.Seq, got[i-1].Seq)
						}
						if w := int(r.Seq) / part % writers; f.Writer != w {
							t.Fatalf("%s: row %d of partition %d, written by writer %d", f.Path, r.Seq, r.Seq/part, f.Writer)
						}
					}
					if f.FirstID != ids[0] || f.LastID != ids[len(ids)-1] {
						t.Errorf("%s: manifest IDs %s…%s, rows %s…%s", f.Path, f.FirstID, f.LastID, ids[0], ids[len(ids)-1])
					}
				}
				if i := slices.Index(seen, false); i >= 0 {
					t.Fatalf("row %d was not written", i)
				}
				if len(dirs) != 2*keys {
					t.Errorf("%d partition directories, want %d", len(dirs), 2*keys)
				}
				if dm, err := shards.Commit(dir, 1); err != nil || dm.Rows != int64(len(rows)) || dm.Files != len(m.Files) {
					t.Fatalf("Commit: %v", err)
				}

				// One key more per writer than the cap.
				rows := pwRows(3000, part, keys+writers)
				bad := t.TempDir()
				err = flow.From(sources.Slice(rows, sources.PartitionItems(part), sources.ChunkSize(10))).
					Via(operators.Map(func(r pwRow) (pwRow, error) { return r, nil })).Parallel(3).
					To(pwSink(format, bad, opts...)).Run(context.Background())
				// Writer w's 9th key is that of row part·(4·writers+w),
				// k%03d with k = 4·writers+w; the first to fail is one of
				// those.
				var se *flow.StageError
				if !errors.As(err, &se) || !se.HasID || !strings.Contains(err.Error(), "MaxOpenPartitions(8)") {
					t.Fatalf("with %d keys per writer: %v", 2*(keys+writers)/writers, err)
				}
				first := keys * part
				if at := slices.IndexFunc(items[first:first+writers*part], func(it flow.Item[pwRow]) bool { return it.ID == se.ID }); at < 0 || at%part != 0 ||
					!strings.Contains(err.Error(), fmt.Sprintf(`partition key="k%03d" would be number 9 of writer %d`, keys+at/part, at/part)) {
					t.Fatalf("with %d keys per writer: %v (row %s)", 2*(keys+writers)/writers, err, se.ID)
				}
				if got := listTree(t, bad); len(got) != 0 {
					t.Errorf("the failed run left %q", got)
				}
			})
		}
	}
}

// TestShardsFailureLeavesNothing fails or cancels runs of the three
// formats, with one writer or three, with and without PartitionBy, at a
// row after several files were written: the run fails with its error,
// leaves the directory as it was (here, one file of another program)
// and no goroutine, and a later run in the same directory writes exactly
// what a run in a fresh one writes. go test ./... runs, for each format,
// one writer without PartitionBy failing and three writers with it,
// failing and cancelled; the long tests every combination.
func TestShardsFailureLeavesNothing(t *testing.T) {
	const part = 41
	rows := pwRows(1200, part, 6)
	boom := errors.New("boom")
	for _, format := range []string{"parquet", "jsonl", "csv"} {
		for _, writers := range []int{1, 3} {
			for _, partitioned := range []bool{false, true} {
				for _, mode := range []string{"error", "cancel"} {
					if !longtest.On() && (writers == 1) != (!partitioned && mode == "error") {
						continue // the long tests run every combination
					}
					name := fmt.Sprintf("%s/writers=%d/partitioned=%t/%s", format, writers, partitioned, mode)
					t.Run(name, func(t *testing.T) {
						testutil.CheckGoroutines(t)
						opts := []shards.Option{shards.Writers(writers), shards.RowsPerFile(23)}
						if partitioned {
							opts = append(opts, shards.PartitionBy("key"), shards.MaxOpenPartitions(12))
						}
						p := func(ctx context.Context, cancel func(), failAt int64) *flow.Pipeline {
							return flow.From(sources.Slice(rows, sources.PartitionItems(part), sources.ChunkSize(9))).
								Via(operators.Map(func(r pwRow) (pwRow, error) {
									switch {
									case r.Seq != failAt:
									case mode == "cancel":
										cancel()
									default:
										return r, fmt.Errorf("row %d: %w", r.Seq, boom)
									}
									return r, nil
								})).Parallel(3)
						}
						ref := t.TempDir()
						if err := p(context.Background(), nil, -1).To(pwSink(format, ref, opts...)).Run(context.Background()); err != nil {
							t.Fatal(err)
						}
						want := readTree(t, ref)

						dir := filepath.Join(t.TempDir(), "out")
						if err := os.MkdirAll(dir, 0o777); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(filepath.Join(dir, "other.txt"), []byte("x"), 0o666); err != nil {
							t.Fatal(err)
						}
						before := listTree(t, dir)
						ctx, cancel := context.WithCancel(context.Background())
						defer cancel()
						err := p(ctx, cancel, 900).To(pwSink(format, dir, opts...)).Run(ctx)
						switch {
						case mode == "error" && !errors.Is(err, boom), mode == "cancel" && !errors.Is(err, context.Canceled):
							t.Fatalf("Run: %v", err)
						}
						if after := listTree(t, dir); !slices.Equal(after, before) {
							t.Errorf("after the failed run the directory holds %q, before %q", after, before)
						}
						if err := p(context.Background(), nil, -1).To(pwSink(format, dir, opts...)).Run(context.Background()); err != nil {
							t.Fatal(err)
						}
						got := readTree(t, dir)
						delete(got, "other.txt")
						if len(got) != len(want) {
							t.Fatalf("the rerun wrote %d files, a fresh run %d", len(got), len(want))
						}
						for name, b := range want {
							if !bytes.Equal(got[name], b) {
								t.Fatalf("the rerun's %s differs from a fresh run's", name)
							}
						}
					})
				}
			}
		}
	}
}
