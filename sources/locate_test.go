package sources_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

type located struct {
	ID int64 `parquet:"id" csv:"id" json:"id"`
}

// failAt is a stage that fails at the seen-th time it meets the row whose
// id is bad, which the source cannot see: the error names the row by its
// partition and ID, and the run adds where the source read it.
func failAt(bad int64, seen int32) flow.Stage {
	var n atomic.Int32
	return operators.Map(func(r located) (located, error) {
		if r.ID == bad && n.Add(1) == seen {
			return r, errors.New("bad row")
		}
		return r, nil
	})
}

// runErrors runs a pipeline that build makes with a sink, and reads
// another with Items, and returns both errors.
func runErrors(t *testing.T, build func() *flow.Pipeline) []error {
	t.Helper()
	var n int64
	errs := []error{build().To(sinks.Count[located](&n)).Run(context.Background())}
	var last error
	for _, err := range flow.Items[located](context.Background(), build()) {
		last = err
	}
	return append(errs, last)
}

// TestErrorsLocateTheRow fails a stage downstream of Parquet, CSV (plain
// and gzip) and JSON Lines sources, at several parallelisms and in a
// second epoch: the run's error says in which file, and at which row or
// byte of it, the failing row was read.
func TestErrorsLocateTheRow(t *testing.T) {
	dir := t.TempDir()
	var rows []located
	for i := range 300 {
		rows = append(rows, located{ID: int64(i)})
	}
	// Three Parquet files of 100 rows, row groups of 40, fragments of 15.
	for f := range 3 {
		testutil.WriteParquet(t, filepath.Join(dir, "pq", fmt.Sprintf("part-%d.parquet", f)), rows[100*f:100*f+100], 40)
	}
	// The same rows as CSV and JSON Lines, two files each; the second
	// CSV file gzipped.
	var csvText, jsonText [2]bytes.Buffer
	csvAt, jsonAt := map[int64]int64{}, map[int64]int64{} // id → byte offset of its line
	for f := range 2 {
		csvText[f].WriteString("id\n")
		for _, r := range rows[150*f : 150*f+150] {
			csvAt[r.ID], jsonAt[r.ID] = int64(csvText[f].Len()), int64(jsonText[f].Len())
			fmt.Fprintf(&csvText[f], "%d\n", r.ID)
			fmt.Fprintf(&jsonText[f], "{\"id\":%d}\n", r.ID)
		}
	}
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "csv", "a.csv"), csvText[0].Bytes())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(csvText[1].Bytes())
	zw.Close()
	write(filepath.Join(dir, "csv", "b.csv.gz"), gz.Bytes())
	write(filepath.Join(dir, "jsonl", "a.jsonl"), jsonText[0].Bytes())
	write(filepath.Join(dir, "jsonl", "b.jsonl"), jsonText[1].Bytes())

	for _, bad := range []int64{0, 37, 149, 150, 251, 299} {
		csvFiles := []string{"a.csv", "b.csv.gz"}
		jsonFiles := []string{"a.jsonl", "b.jsonl"}
		f := bad / 150
		cases := []struct {
			name  string
			src   func() flow.Source[located]
			where string
		}{
			{"parquet", func() flow.Source[located] {
				return parquet.Read[located](filepath.Join(dir, "pq"), parquet.MaxRows(15))
			}, fmt.Sprintf("(part-%d.parquet, row %d)", bad/100, bad%100)},
			{"csv", func() flow.Source[located] {
				return text.CSV[located](filepath.Join(dir, "csv"), text.PartitionBytes(200))
			}, fmt.Sprintf("(%s, byte %d)", csvFiles[f], csvAt[bad])},
			{"jsonl", func() flow.Source[located] {
				return text.JSONL[located](filepath.Join(dir, "jsonl"), text.PartitionBytes(300))
			}, fmt.Sprintf("(%s, byte %d)", jsonFiles[f], jsonAt[bad])},
		}
		for _, c := range cases {
			for _, par := range []int{1, 3} {
				for _, ep := range []int32{0, 1} {
					// The run with a sink meets the row once in each epoch
					// and fails in the given one; so does the loop after it.
					build := func() *flow.Pipeline {
						return flow.From(c.src()).Via(failAt(bad, 1+ep)).Parallel(par).Epochs(2)
					}
					for k, err := range runErrors(t, build) {
						var se *flow.StageError
						if !errors.As(err, &se) || !strings.Contains(err.Error(), "bad row") || !strings.Contains(err.Error(), c.where) ||
							par == 1 && epoch.Of(se.Part) != int64(ep) {
							t.Errorf("%s, id %d, parallelism %d, epoch %d, %s: got %v, want the location %s",
								c.name, bad, par, ep, []string{"Run", "Items"}[k], err, c.where)
						}
					}
				}
			}
		}
	}
}

// TestErrorsLocateOnlyTheirRow: after a shuffle that numbers its output
// partitions anew, a failing row's partition is not the source's; the
// error then has no location, or the right one, never another row's.
func TestErrorsLocateOnlyTheirRow(t *testing.T) {
	dir := t.TempDir()
	var rows []located
	for i := range 200 {
		rows = append(rows, located{ID: int64(i)})
	}
	testutil.WriteParquet(t, filepath.Join(dir, "a.parquet"), rows[:100], 30)
	testutil.WriteParquet(t, filepath.Join(dir, "b.parquet"), rows[100:], 30)
	for _, bad := range []int64{3, 77, 140, 199} {
		build := func() *flow.Pipeline {
			return flow.From(parquet.Read[located](dir, parquet.MaxRows(10))).
				Via(operators.Shuffle[located](40, operators.PartitionItems(7))).
				Via(failAt(bad, 1)).Parallel(2).WithSeed(9)
		}
		right := fmt.Sprintf("(%s.parquet, row %d)", []string{"a", "b"}[bad/100], bad%100)
		for _, err := range runErrors(t, build) {
			if err == nil || !strings.Contains(err.Error(), "bad row") ||
				strings.Contains(err.Error(), ".parquet, row") && !strings.Contains(err.Error(), right) {
				t.Errorf("id %d: got %v; want no location or %s", bad, err, right)
			}
		}
	}
}
