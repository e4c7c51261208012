// Command duckcopy runs SQL statements in an in-memory DuckDB on a given
// number of threads: the DuckDB side of rowflow's ETL benchmark
// (internal/bench/etl), which runs it as a child process so that its
// wall time, CPU time and peak memory are those of DuckDB alone. It lives
// in this module so that DuckDB, a cgo binding, stays out of rowflow's.
//
//	go build -o duckcopy ./cmd/duckcopy
//	duckcopy -threads 2 "COPY (SELECT * FROM read_csv('in.csv')) TO 'out.parquet' (FORMAT parquet, COMPRESSION zstd)"
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"

	_ "github.com/duckdb/duckdb-go/v2"
)

func main() {
	threads := flag.Int("threads", 2, "DuckDB's threads")
	flag.Parse()
	if err := run(*threads, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "duckcopy:", err)
		os.Exit(1)
	}
}

func run(threads int, stmts []string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range append([]string{fmt.Sprintf("SET threads = %d", threads)}, stmts...) {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
