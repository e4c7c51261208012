//go:build unix

package main_test

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// bigDataset writes n events in row groups of 500.
func bigDataset(t *testing.T, n int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	src := sources.Generate(n, func(i int64) (event, error) {
		return event{ID: i, Lang: []string{"en", "de", "fr"}[i%3], Score: float64(i%100) / 100, Text: fmt.Sprintf("text %d", i*7)}, nil
	}, sources.PartitionItems(1000))
	if err := flow.From(src).To(shards.Parquet[event](dir, shards.RowGroupRows(500))).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// shardRow is a row of the resharded Parquet files, with its row ID.
type shardRow struct {
	ID    int64   `parquet:"id"`
	Lang  string  `parquet:"lang"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
	Key1  uint64  `parquet:"row_id_key1"`
	Key2  uint64  `parquet:"row_id_key2"`
	Ord   uint64  `parquet:"row_id_ord"`
}

func (r shardRow) id() rowid.ID { return shards.RowID(r.Key1, r.Key2, r.Ord) }

// Three ranks of a job run as real processes with the environment a
// Kubernetes Indexed Job, and a Slurm array, gives them; rank 1 is killed
// (SIGKILL) after it reported its first rows and run again; then the
// output is committed, and its rows, by row ID, are the serial read's.
func TestRanksOfAJobKilledAndCommitted(t *testing.T) {
	const rows = 30000
	data := bigDataset(t, rows)
	schedulers := map[string]func(rank int) ([]string, []string){
		"kubernetes indexed job": func(rank int) ([]string, []string) {
			return []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", rank)}, []string{"-completions", "3"}
		},
		"slurm array": func(rank int) ([]string, []string) {
			return []string{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", rank), "SLURM_ARRAY_TASK_COUNT=3"}, nil
		},
	}
	for name, env := range schedulers {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "shards")
			start := func(rank int) (*exec.Cmd, *bufio.Scanner) {
				e, flags := env(rank)
				args := append([]string{"reshard", "-out", out, "-rows-per-file", "2000", "-progress-every", "1000", "-parallel", "2"}, flags...)
				cmd := exec.Command(rowflowBin, append(args, data)...)
				cmd.Env = append(cmd.Environ(), e...)
				stderr, err := cmd.StderrPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				return cmd, bufio.NewScanner(stderr)
			}
			var cmds []*exec.Cmd
			for rank := range 3 {
				cmd, lines := start(rank)
				if rank == 1 {
					// Kill it once it has read rows: mid-way through its share.
					if !lines.Scan() || !strings.HasPrefix(lines.Text(), "rank 1: 1000 rows read") {
						t.Fatalf("rank 1 said %q", lines.Text())
					}
					cmd.Process.Signal(syscall.SIGKILL)
					if err := cmd.Wait(); err == nil {
						t.Fatal("the killed rank exited normally")
					}
					cmd, lines = start(rank) // the scheduler runs it again
				}
				go func() {
					for lines.Scan() {
					}
				}()
				cmds = append(cmds, cmd)
			}
			for rank, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("rank %d: %v", rank, err)
				}
			}
			if c := must(t, nil, "commit", "-world", "3", "-rows", fmt.Sprint(rows), out); !strings.Contains(c, fmt.Sprintf("%d rows", rows)) {
				t.Fatalf("commit: %s", c)
			}
			serial := flow.From(parquet.Read[event](data))
			union := flow.From(parquet.Read[shardRow](out)).Parallel(2).
				Via(operators.SetIDs(func(r shardRow) rowid.ID { return r.id() })).
				Via(operators.Map(func(r shardRow) (event, error) {
					return event{ID: r.ID, Lang: r.Lang, Score: r.Score, Text: r.Text}, nil
				}))
			if err := determinism.CompareByID[event](context.Background(), serial, union); err != nil {
				t.Fatal(err)
			}
		})
	}
}
