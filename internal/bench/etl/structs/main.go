// Command structs is rowflow's side of the ETL benchmark's jobs
// (internal/bench/etl) through Go structs, with rowflow's library rather
// than its command:
//
//	structs decode -parallel 2 in.parquet
//	structs write -parallel 2 in.csv|in.jsonl|in.parquet OUT
//
// -cpuprofile FILE writes a CPU profile of the job, -trace FILE an
// execution trace.
//
// decode reads the benchmark's Parquet input into structs with rowflow's
// Parquet source and prints aggregates of every column, as the
// benchmark's DuckDB query does, so that both decode every value: the
// "Parquet into structs" job.
//
// write reads the CSV input (sources/text.CSV), the JSON Lines input
// (sources/text.JSONL) or the Parquet input
// (sources/parquet.Read) into structs and writes them with
// sinks/shards.Parquet, with the row IDs in row_id columns (lineage on)
// and -parallel writers: the CSV → Parquet and Parquet → Parquet jobs as
// a Go program that knows its rows' types writes them.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// row is a row of the benchmark's Parquet input.
type row struct {
	ID     int64    `parquet:"id"`
	Name   string   `parquet:"name"`
	Score  float64  `parquet:"score"`
	Tags   []string `parquet:"tags,list"`
	Tokens []int32  `parquet:"tokens,list"`
}

// csvRow is a row of the benchmark's CSV and JSON Lines inputs.
type csvRow struct {
	ID    int64   `csv:"id" json:"id" parquet:"id"`
	Score float64 `csv:"score" json:"score" parquet:"score"`
	Name  string  `csv:"name" json:"name" parquet:"name"`
	Count int32   `csv:"count" json:"count" parquet:"count"`
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	flags := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	parallel := flags.Int("parallel", 1, "the source's workers (and, for write, the sink's writers)")
	cpuProfile := flags.String("cpuprofile", "", "write a CPU profile of the job to this file")
	traceFile := flags.String("trace", "", "write an execution trace of the job to this file")
	flags.Parse(os.Args[2:])
	for _, p := range []struct {
		path  string
		start func(io.Writer) error
		stop  func()
	}{{*cpuProfile, pprof.StartCPUProfile, pprof.StopCPUProfile}, {*traceFile, trace.Start, trace.Stop}} {
		if p.path == "" {
			continue
		}
		stop, err := startProfile(p.path, p.start, p.stop)
		if err != nil {
			fmt.Fprintln(os.Stderr, "structs:", err)
			os.Exit(1)
		}
		defer stop()
	}
	var err error
	switch {
	case os.Args[1] == "decode" && flags.NArg() == 1:
		err = decode(flags.Arg(0), *parallel)
	case os.Args[1] == "write" && flags.NArg() == 2:
		err = write(flags.Arg(0), flags.Arg(1), *parallel)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "structs:", err)
		os.Exit(1)
	}
}

// startProfile starts a profile or trace written to path; stop ends it.
func startProfile(path string, start func(io.Writer) error, end func()) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		end()
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "structs:", err)
		}
	}, nil
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: structs decode [-parallel N] FILE\n       structs write [-parallel N] FILE.csv|FILE.jsonl|FILE.parquet DIR")
	os.Exit(2)
}

func decode(path string, parallel int) error {
	var maxID, maxName, tags, tokens int64
	var score float64
	count := func(it flow.Item[row]) error {
		r := &it.Value
		maxID, maxName = max(maxID, r.ID), max(maxName, int64(len(r.Name)))
		score += r.Score
		tags += int64(len(r.Tags))
		for _, t := range r.Tokens {
			tokens += int64(t)
		}
		return nil
	}
	err := flow.From(parquet.Read[row](path)).Parallel(parallel).To(sinks.ForEach(count)).Run(context.Background())
	if err == nil {
		fmt.Println(maxID, maxName, score, tags, tokens)
	}
	return err
}

func write(in, out string, parallel int) error {
	opts := []shards.ParquetOption{shards.Writers(parallel), shards.RowIDColumn("row_id")}
	var p *flow.Pipeline
	switch {
	case strings.HasSuffix(in, ".csv"):
		p = flow.From(text.CSV[csvRow](in)).Parallel(parallel).To(shards.Parquet[csvRow](out, opts...))
	case strings.HasSuffix(in, ".jsonl"):
		p = flow.From(text.JSONL[csvRow](in)).Parallel(parallel).To(shards.Parquet[csvRow](out, opts...))
	default:
		p = flow.From(parquet.Read[row](in)).Parallel(parallel).To(shards.Parquet[row](out, opts...))
	}
	return p.Run(context.Background())
}
