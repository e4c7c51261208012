// Command shardbench compares the Parquet shard writer of package sinks
// with a bare parquet-go GenericWriter writing the same rows, and prints
// the result as a Markdown table.
//
// The work: n rows of a struct of an int64, an int32, a float64, a
// 40-byte string and 16 int32s, generated once, written as zstd
// (default level) Parquet in row groups of 64Ki rows, fsynced. The
// variants are (bare) one GenericWriter[T] writing all rows to one file,
// and the sink, fed by a rowflow slice source, on one shard and on
// several.
//
// # Running
//
// From the module root:
//
//	go run ./internal/shardbench
//	go run ./internal/shardbench -n 2000000 -rounds 7 -shards 1,2,4
//
// # Method
//
// Every variant runs once to warm up. Then, in each of -rounds rounds,
// every variant runs once, starting from a different variant each round,
// so that noise from other processes falls on all variants alike. A
// garbage collection precedes each run, and each run writes into a fresh
// directory that is removed afterwards. The table shows each variant's
// median, and the header the load average before and after: other
// processes on the machine slow all variants, the parallel ones most.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// row is the benchmark's record.
type row struct {
	ID    int64   `parquet:"id"`
	Small int32   `parquet:"small"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
	Vec   []int32 `parquet:"vec"`
}

// rows returns n rows whose contents follow from their index.
func rows(n int) []row {
	out := make([]row, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range out {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		vec := make([]int32, 16)
		for j := range vec {
			vec[j] = int32(x>>(j*4)&0xff) + int32(i%7)
		}
		out[i] = row{
			ID:    int64(i),
			Small: int32(x % 1000),
			Score: float64(x%100000) / 7,
			Text:  fmt.Sprintf("row %08d text %016x xx", i, x&0xffffffff),
			Vec:   vec,
		}
	}
	return out
}

type variant struct {
	name  string
	desc  string
	write func(dir string, rs []row) error
}

func bare(dir string, rs []row) error {
	f, err := os.Create(filepath.Join(dir, "bare.parquet"))
	if err != nil {
		return err
	}
	defer f.Close()
	w := parquet.NewGenericWriter[row](f, parquet.Compression(&zstd.Codec{Level: zstd.DefaultLevel}),
		parquet.MaxRowsPerRowGroup(sinks.DefaultRowGroupRows))
	if _, err := w.Write(rs); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

func sharded(n int) func(dir string, rs []row) error {
	return func(dir string, rs []row) error {
		return flow.From(sources.Slice(rs)).
			To(sinks.ParquetShards[row](filepath.Join(dir, "out"), sinks.Shards(n))).Run(context.Background())
	}
}

func main() {
	n := flag.Int("n", 2_000_000, "number of rows")
	rounds := flag.Int("rounds", 5, "measured rounds; each runs every variant once")
	shardList := flag.String("shards", "1,2", "comma-separated shard counts of the sink")
	tmp := flag.String("dir", "", "directory for the output (default: a new temporary directory)")
	flag.Parse()
	vs := []variant{{name: "bare", desc: "one parquet-go GenericWriter[T], Write(all rows), one file", write: bare}}
	for _, s := range strings.Split(*shardList, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 {
			fmt.Fprintf(os.Stderr, "shardbench: bad -shards %q\n", *shardList)
			os.Exit(2)
		}
		vs = append(vs, variant{name: fmt.Sprintf("sink, Shards(%d)", k),
			desc: fmt.Sprintf("sources.Slice → sinks.ParquetShards, %d shard goroutine(s)", k), write: sharded(k)})
	}
	if *n < 1 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "shardbench: -n and -rounds must be at least 1")
		os.Exit(2)
	}
	if err := run(*n, *rounds, *tmp, vs); err != nil {
		fmt.Fprintln(os.Stderr, "shardbench:", err)
		os.Exit(1)
	}
}

func run(n, rounds int, tmp string, vs []variant) error {
	base, err := os.MkdirTemp(tmp, "shardbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(base)
	rs := rows(n)
	load := loadAvg()
	times := make([][]time.Duration, len(vs))
	cpus := make([][]time.Duration, len(vs))
	runs := 0
	once := func(v variant) (wall, cpu time.Duration, err error) {
		runs++
		dir := filepath.Join(base, strconv.Itoa(runs))
		if err := os.Mkdir(dir, 0o777); err != nil {
			return 0, 0, err
		}
		defer os.RemoveAll(dir)
		runtime.GC()
		start, cpu0 := time.Now(), cpuTime()
		err = v.write(dir, rs)
		return time.Since(start), cpuTime() - cpu0, err
	}
	for _, v := range vs {
		if _, _, err := once(v); err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
	}
	for r := range rounds {
		for j := range vs {
			k := (r + j) % len(vs)
			wall, cpu, err := once(vs[k])
			if err != nil {
				return fmt.Errorf("%s: %w", vs[k].name, err)
			}
			times[k] = append(times[k], wall)
			cpus[k] = append(cpus[k], cpu)
		}
	}
	report(n, rounds, vs, times, cpus, load, loadAvg())
	return nil
}

func report(n, rounds int, vs []variant, times, cpus [][]time.Duration, before, after string) {
	fmt.Printf("Parquet shard writer vs bare GenericWriter, %d rows (int64, int32, float64, 40-byte string, 16 int32s), zstd, row groups of %d\n\n",
		n, sinks.DefaultRowGroupRows)
	fmt.Printf("%s %s/%s, GOMAXPROCS=%d, NumCPU=%d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.GOMAXPROCS(0), runtime.NumCPU())
	if before != "" {
		fmt.Printf("load average before: %s, after: %s\n", before, after)
	}
	fmt.Printf("median of %d rounds after one warm-up\n\n", rounds)
	fmt.Println("| variant | rows/s | ns/row | speed vs bare | CPU ns/row | CPU vs bare |")
	fmt.Println("|---|--:|--:|--:|--:|--:|")
	med := make([]time.Duration, len(vs))
	cpu := make([]time.Duration, len(vs))
	for i := range vs {
		med[i], cpu[i] = median(times[i]), median(cpus[i])
	}
	for i, v := range vs {
		fmt.Printf("| %s | %.3gM | %.0f | %.2f× | %.0f | %.2f× |\n", v.name, float64(n)/med[i].Seconds()/1e6,
			float64(med[i].Nanoseconds())/float64(n), med[0].Seconds()/med[i].Seconds(),
			float64(cpu[i].Nanoseconds())/float64(n), cpu[i].Seconds()/cpu[0].Seconds())
	}
	fmt.Println()
	for _, v := range vs {
		fmt.Printf("- %s: %s\n", v.name, v.desc)
	}
	fmt.Println("\nSpeed vs bare is the bare writer's median wall time divided by the variant's: above 1× is faster.")
	fmt.Println("CPU is user+system time of the process (median); CPU vs bare above 1× is more work than bare.")
	fmt.Println("On a machine shared with other work, CPU time is the steadier measure of overhead, wall time of speed-up.")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// loadAvg returns the 1-, 5- and 15-minute load averages, or "" where the
// system does not report them.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
