// Command pqbench measures rowflow's Parquet source and its writer and
// compares them, in one process, with parquet-go used directly.
//
// The data: -rows rows of [Row] (an int64, an int32, a float64, a 40-byte
// string and a list of about 16 int32s), written once by parquet-go's
// GenericWriter with zstd in row groups of 64Ki rows. The comparisons:
//
//  1. rowflow's struct reader on one worker against a GenericReader[Row]
//     reading into a reused buffer (aim: 3× as fast);
//  2. the struct reader on two workers against one (aim: 1.6×);
//  3. reading the two numeric columns against all columns (information);
//  4. the columnar mode, [github.com/rowflow/rowflow/sources/parquet.Read]
//     of *ColumnBatch, against a hand-written page loop that copies each
//     page's typed values and levels into reused buffers (aim: 0.8×);
//  5. the writer, [shards.Parquet], on one writer and on two,
//     against a bare GenericWriter[Row] writing the same rows to one file
//     with the same codec and row-group size (aims: 0.9× and 1.6×);
//  6. the struct reader splitting each row group into 8 ranges
//     (MaxRows), over the rows written in data pages v1 (as pyarrow
//     writes them) to a file without page indexes (as pyarrow writes
//     them unless asked) against the same file with them (aim: 0.8×).
//
// Three more rows help to read the others. The page loop on two
// goroutines and two bare writers on two goroutines show how much the
// machine lets two goroutines gain at the time of the run, against which
// to judge the aims of 1.6×; internal/parquet/pqcol (the source's decoder) reading
// into reused columns shows what the columnar mode costs beyond decoding.
//
// # Running
//
// From the module root:
//
//	go run ./internal/bench/parquet
//	go run ./internal/bench/parquet -rows 2000000 -rounds 7 -dir /var/tmp/pqbench
//
// It prints a Markdown table. The same variants run as Go benchmarks, on a
// file of 8 row groups:
//
//	go test -run '^$' -bench . ./internal/bench/parquet
//
// The package's tests check that the variants agree on a small file
// (TestVariantsAgree) and that the source's peak memory does not grow
// with the size of the dataset (TestPeakMemoryFlat).
//
// # Method
//
// Reads and writes are measured separately. Every variant runs once to
// warm up. Then, in each of -rounds rounds, every variant runs once,
// starting from a different variant each round, so that noise from other
// processes falls on all variants alike. A garbage collection precedes
// each run; writers write into a fresh directory, removed after the run
// and outside its time. The table shows each variant's median, and the
// header the load average before and after: other processes on the
// machine slow all variants, the parallel ones most. The table also shows
// the median CPU time per row that the process used (all goroutines,
// garbage collection included), which other processes disturb less. The
// rows the writers write are generated in memory once, after the reads
// are measured.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
)

// config is what one invocation measures.
type config struct {
	rows   int
	rounds int
	path   string // the generated file
	size   int64  // its size in bytes
}

func main() {
	rows := flag.Int("rows", 2_000_000, "number of rows")
	rounds := flag.Int("rounds", 5, "measured rounds; each runs every variant once")
	dir := flag.String("dir", "", "directory for the generated file, kept and reused by later runs "+
		"(default: a temporary directory, removed at the end)")
	flag.Parse()
	if *rows < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "pqbench: -rows and -rounds must be at least 1")
		os.Exit(2)
	}
	if err := run(context.Background(), config{rows: *rows, rounds: *rounds}, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "pqbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config, dir string) error {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp(dir, "pqbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if dir == "" {
		dir = tmp
	}
	cfg.path = filepath.Join(dir, fmt.Sprintf("rows-%d.parquet", cfg.rows))
	if cfg.size, err = ensureFile(cfg.path, cfg.rows); err != nil {
		return err
	}
	indexed, noIndex, err := ensureSplitFiles(cfg.path, cfg.rows)
	if err != nil {
		return err
	}
	load := benchutil.LoadAvg()
	reads, err := measureAll(ctx, append(readVariants(cfg.path), splitVariants(indexed, noIndex)...), cfg.rounds, int64(cfg.rows), tmp)
	if err != nil {
		return err
	}
	writes, err := measureAll(ctx, writeVariants(makeRows(0, cfg.rows)), cfg.rounds, int64(cfg.rows), tmp)
	if err != nil {
		return err
	}
	report(os.Stdout, cfg, append(reads, writes...), load, benchutil.LoadAvg())
	return nil
}

// ensureFile writes the file of n rows at path unless a file of that
// name already holds n rows, and returns its size.
func ensureFile(path string, n int) (int64, error) {
	if pf, closeFile, err := openParquet(path); err == nil {
		rows, size := pf.NumRows(), pf.Size()
		closeFile()
		if rows == int64(n) {
			return size, nil
		}
	}
	if err := writeFile(path, n, rowGroupRows); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
