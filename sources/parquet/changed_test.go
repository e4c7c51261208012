package parquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

type changedRow struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
}

func changedRows(n int, text string) []changedRow {
	rows := make([]changedRow, n)
	for i := range rows {
		rows[i] = changedRow{int64(i), text}
	}
	return rows
}

// TestParquetChangedWhileReadFails: a Parquet file rewritten in place
// while a partition reads it (a Map stage, at parallelism 1, rewrites it
// when it sees the first row of the second partition) fails the run,
// naming the file, instead of ending the read early with fewer rows
// (issue 27, finding 7): truncated, and rewritten at the same size and
// modification time with other values, which only its footer tells.
func TestParquetChangedWhileReadFails(t *testing.T) {
	mod := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	rewrites := map[string]func(t *testing.T, path string){
		"truncated": func(t *testing.T, path string) {
			testutil.WriteParquet(t, path, changedRows(150, "aaaa"), 50)
		},
		"same size and time": func(t *testing.T, path string) {
			testutil.WriteParquet(t, path, changedRows(600, "bbbb"), 200)
			os.Chtimes(path, mod, mod)
		},
		"cut short": func(t *testing.T, path string) {
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, st.Size()/2); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, rewrite := range rewrites {
		for _, skip := range []bool{false, true} {
			if skip {
				name += ", skipping bad fragments"
			}
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "a.parquet")
				testutil.WriteParquet(t, path, changedRows(600, "aaaa"), 200)
				os.Chtimes(path, mod, mod)
				done := false
				var opts []parquet.Option
				if skip {
					opts = append(opts, sources.SkipBad(new(sources.SkipReport)))
				}
				p := flow.From(parquet.Read[changedRow](dir, opts...)).
					Via(operators.Map(func(r changedRow) (changedRow, error) {
						if r.ID == 200 && !done {
							done = true
							rewrite(t, path)
						}
						return r, nil
					}))
				n := 0
				var runErr error
				for _, err := range flow.Items[changedRow](context.Background(), p) {
					if err != nil {
						runErr = err
						break
					}
					n++
				}
				if !done {
					t.Fatal("the file was not rewritten")
				}
				if runErr == nil || !strings.Contains(runErr.Error(), "a.parquet") || !strings.Contains(runErr.Error(), "changed during the run") {
					t.Fatalf("%d rows of 600, error %v; want the run to fail naming the file", n, runErr)
				}
				if n > 400 {
					t.Fatalf("%d rows before the error: rows of the rewritten file were passed on", n)
				}
			})
		}
	}
}

// TestParquetChangedWhileClosedFails: a file the run closed to bound its
// open files (more than 64), rewritten before the run opens it again,
// fails the run too: a file is checked against its stamp from when the
// run first opened it, to plan. With every fragment shuffled, the plan
// opens all 70 footers in path order and closes the first six files; the
// first row read makes the test rewrite one of those whose rows have not
// come yet.
func TestParquetChangedWhileClosedFails(t *testing.T) {
	const files = 70
	dir := t.TempDir()
	path := func(i int) string { return filepath.Join(dir, fmt.Sprintf("f%03d.parquet", i)) }
	rows := func(i int, text string) []changedRow {
		rs := changedRows(20, text)
		for j := range rs {
			rs[j].ID += int64(100 * i)
		}
		return rs
	}
	for i := range files {
		testutil.WriteParquet(t, path(i), rows(i, "aaaa"), 10)
	}
	rewritten := -1
	p := flow.From(parquet.Read[changedRow](dir, sources.ShuffleWindow(-1))).WithSeed(3).
		Via(operators.Map(func(r changedRow) (changedRow, error) {
			if rewritten < 0 {
				rewritten = 5
				if int(r.ID/100) == rewritten {
					rewritten = 4
				}
				testutil.WriteParquet(t, path(rewritten), rows(rewritten, "bbbb"), 10)
			}
			return r, nil
		}))
	n := 0
	var runErr error
	for it, err := range flow.Items[changedRow](context.Background(), p) {
		if err != nil {
			runErr = err
			break
		}
		if it.Value.Text != "aaaa" {
			t.Fatalf("row %d: %+v, a row of the rewritten file", n, it.Value)
		}
		n++
	}
	if runErr == nil || !strings.Contains(runErr.Error(), filepath.Base(path(rewritten))) || !strings.Contains(runErr.Error(), "changed during the run") {
		t.Fatalf("%d rows, error %v; want the run to fail naming the rewritten file", n, runErr)
	}
}
