// Command etl measures ETL jobs as whole processes,
// rowflow against DuckDB: `rowflow reshard` (built from this tree) and
// DuckDB's COPY (the command internal/interop/duckdb/cmd/duckcopy, built
// from that nested module, so that DuckDB's cgo stays out of rowflow's
// go.mod), 2 threads each, zstd:
//
//  1. CSV, -rows rows × 4 columns (int64, float64, string, int32) →
//     Parquet, with the schema given, and the same rows as JSON Lines
//     (-jobs jsonl, against DuckDB's read_json);
//  2. Parquet, -rows rows × 5 columns (int64, string, float64, a list of
//     strings, a list of int32; written by DuckDB, zstd) → Parquet;
//  3. the same Parquet into memory: rowflow's Parquet source into Go
//     structs (the command internal/bench/etl/structs, decode) against
//     DuckDB's aggregate of every column (max(id), max(length(name)),
//     sum(score), sum(len(tags)), sum(list_sum(tokens))), both decoding
//     every value, at one thread as well as at -threads.
//
// rowflow runs with lineage off (-row-id-column "") and on (the default
// row_id columns). The first two jobs also run as a Go program that knows
// its rows' types runs them with rowflow's library, lineage on: the input
// read into structs (sources/text.CSV, sources/parquet.Read) and written
// by sinks/shards.Parquet (internal/bench/etl/structs, write). For each job and variant it prints the median wall
// time, CPU time (user + system, from the child's rusage), peak resident
// memory and output bytes, the bytes of the output's row-ID columns
// (row_id_key1, row_id_key2, row_id_ord, compressed, from the files'
// footers) and their share of it, and rowflow's figures divided by
// DuckDB's: a ratio above 1 is rowflow slower or larger. With -base, the rowflow of
// another checkout runs beside this tree's, in the same rounds, to
// measure a change.
//
// # Running
//
// From the module root (a C toolchain is not needed: DuckDB's library is
// prebuilt):
//
//	go run ./internal/bench/etl
//	go run ./internal/bench/etl -rows 200000 -rounds 3   # a quick run
//	go run ./internal/bench/etl -jobs csv -base ../main  # a change against main
//
// # Method
//
// The inputs are written once, then every variant runs once to warm up
// (and to bring the inputs into the page cache). In each of -rounds
// rounds every variant of a job runs once, starting from a different one
// each round, so that noise from other processes falls on all alike.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/internal/bench/benchutil"
)

func main() {
	rows := flag.Int("rows", 2_000_000, "rows of each input")
	rounds := flag.Int("rounds", 5, "measured rounds")
	threads := flag.Int("threads", 2, "threads of each engine: rowflow's -parallel, -writers and GOMAXPROCS, DuckDB's threads")
	jobs := flag.String("jobs", "csv,parquet,decode", "the jobs to run: csv, jsonl and parquet (to Parquet), decode (Parquet into Go structs against DuckDB's aggregate of every column)")
	base := flag.String("base", "", "another rowflow checkout (such as main's) whose rowflow runs beside this tree's, as \"base\"")
	flag.Parse()
	if err := run(*rows, *rounds, *threads, strings.Split(*jobs, ","), *base); err != nil {
		fmt.Fprintln(os.Stderr, "etl:", err)
		os.Exit(1)
	}
}

// csvSchema is the schema rowflow is given for the CSV input, and
// csvColumns the same for DuckDB's read_csv.
const (
	csvSchema  = "id:int64,score:float64,name:string,count:int32"
	csvColumns = "{'id': 'BIGINT', 'score': 'DOUBLE', 'name': 'VARCHAR', 'count': 'INTEGER'}"
)

// job is one ETL job: its input and how each engine runs it.
type job struct {
	name, input string
	inBytes     int64
	rowflowArgs []string // after -out DIR
	duckSQL     string   // with %s for the output path, unless decode
	// decode: the job reads the input into memory and writes nothing
	// (rowflow's side is the decode command, into structs).
	decode bool
	// threads, if not 0, is the job's threads instead of -threads.
	threads int
}

// variant is one engine's run of a job.
type variant struct {
	name string
	cmd  func(out string) *exec.Cmd
}

// result is the median of a variant's runs.
type result struct {
	wall, cpu time.Duration
	rss, out  int64
	ids       int64 // the bytes of the output's row-ID columns
}

func run(rows, rounds, threads int, jobNames []string, base string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "etlbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rowflowBin, duckBin := filepath.Join(dir, "rowflow"), filepath.Join(dir, "duckcopy")
	if err := goBuild(root, rowflowBin, "./cmd/rowflow"); err != nil {
		return err
	}
	if err := goBuild(filepath.Join(root, "internal", "interop", "duckdb"), duckBin, "./cmd/duckcopy"); err != nil {
		return err
	}
	structsBin := filepath.Join(dir, "structs")
	if err := goBuild(root, structsBin, "./internal/bench/etl/structs"); err != nil {
		return err
	}
	baseBin := ""
	if base != "" {
		baseBin = filepath.Join(dir, "rowflow-base")
		if err := goBuild(base, baseBin, "./cmd/rowflow"); err != nil {
			return err
		}
	}
	var jobs []job
	for _, name := range jobNames {
		switch name {
		case "csv":
			in := filepath.Join(dir, "in.csv")
			if err := writeCSV(in, rows); err != nil {
				return err
			}
			jobs = append(jobs, job{name: "CSV → Parquet", input: in,
				rowflowArgs: []string{"-schema", csvSchema, in},
				duckSQL:     fmt.Sprintf("COPY (SELECT * FROM read_csv('%s', header = true, columns = %s)) TO '%%s' (FORMAT parquet, COMPRESSION zstd)", in, csvColumns)})
		case "jsonl":
			in := filepath.Join(dir, "in.jsonl")
			if err := writeJSONL(in, rows); err != nil {
				return err
			}
			jobs = append(jobs, job{name: "JSON Lines → Parquet", input: in,
				rowflowArgs: []string{"-schema", csvSchema, in},
				duckSQL:     fmt.Sprintf("COPY (SELECT * FROM read_json('%s', format = 'newline_delimited', columns = %s)) TO '%%s' (FORMAT parquet, COMPRESSION zstd)", in, csvColumns)})
		case "parquet":
			in := filepath.Join(dir, "in.parquet")
			if err := duck(duckBin, threads, strings.NewReplacer("$ROWS", strconv.Itoa(rows), "$PATH", in).Replace(parquetInput)); err != nil {
				return err
			}
			jobs = append(jobs, job{name: "Parquet → Parquet", input: in, rowflowArgs: []string{in},
				duckSQL: fmt.Sprintf("COPY (SELECT * FROM read_parquet('%s')) TO '%%s' (FORMAT parquet, COMPRESSION zstd)", in)})
		case "decode":
			in := filepath.Join(dir, "in.parquet")
			if _, err := os.Stat(in); err != nil {
				if err := duck(duckBin, threads, strings.NewReplacer("$ROWS", strconv.Itoa(rows), "$PATH", in).Replace(parquetInput)); err != nil {
					return err
				}
			}
			// Decoding is measured at one thread too, the other
			// figure.
			decode := job{name: "Parquet into structs", input: in, rowflowArgs: []string{in}, decode: true,
				duckSQL: fmt.Sprintf("SELECT max(id), max(length(name)), sum(score), sum(len(tags)), sum(list_sum(tokens)) FROM read_parquet('%s')", in)}
			if threads > 1 {
				one := decode
				one.name, one.threads = "Parquet into structs, 1 thread", 1
				jobs = append(jobs, one)
			}
			jobs = append(jobs, decode)
		default:
			return fmt.Errorf("no job %q (csv, parquet, decode)", name)
		}
	}
	before := benchutil.LoadAvg()
	type line struct {
		job  job
		name string
		res  result
	}
	var lines []line
	for _, j := range jobs {
		st, err := os.Stat(j.input)
		if err != nil {
			return err
		}
		j.inBytes = st.Size()
		th := threads
		if j.threads != 0 {
			th = j.threads
		}
		vs := variants(j, rowflowBin, baseBin, duckBin, structsBin, th)
		res, err := measureAll(dir, vs, rounds, j.decode)
		if err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
		for i, v := range vs {
			lines = append(lines, line{j, v.name, res[i]})
		}
	}
	fmt.Printf("%s; %d rows; %d threads each, zstd; load average %s before, %s after; medians of %d rounds\n\n",
		benchutil.Machine(), rows, threads, before, benchutil.LoadAvg(), rounds)
	fmt.Println("| job | variant | wall s | CPU s | peak MiB | output MB | wall ÷ DuckDB | CPU ÷ DuckDB | output ÷ DuckDB | row-ID columns |")
	fmt.Println("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, l := range lines {
		ref := lines[slices.IndexFunc(lines, func(m line) bool { return m.job.name == l.job.name && m.name == "duckdb" })].res
		r := l.res
		out, outRatio, ids := "–", "–", "–"
		if !l.job.decode {
			out, outRatio = fmt.Sprintf("%.1f", float64(r.out)/1e6), fmt.Sprintf("%.2f×", float64(r.out)/float64(ref.out))
		}
		if r.ids > 0 {
			ids = fmt.Sprintf("%.3f MB, %.2f%%", float64(r.ids)/1e6, 100*float64(r.ids)/float64(r.out))
		}
		fmt.Printf("| %s (%.0f MB in) | %s | %.2f | %.2f | %.0f | %s | %.2f× | %.2f× | %s | %s |\n",
			l.job.name, float64(l.job.inBytes)/1e6, l.name, r.wall.Seconds(), r.cpu.Seconds(), float64(r.rss)/(1<<20), out,
			r.wall.Seconds()/ref.wall.Seconds(), r.cpu.Seconds()/ref.cpu.Seconds(), outRatio, ids)
	}
	return nil
}

// parquetInput is DuckDB's query that writes the Parquet input: rows
// of an id, a name of 39–75 characters, a score, 0–3 tags from 50
// and 0–31 tokens, all from hashes of the row number, so the same on
// every run. $ROWS and $PATH are replaced.
const parquetInput = `COPY (SELECT i AS id,
	'item-' || (hash(i) % 100000)::VARCHAR || '-' || md5(i::VARCHAR) || md5((i * 17)::VARCHAR)[1:(hash(i * 5) % 32)::INTEGER + 1] AS name,
	(hash(i * 3) % 1000000)::DOUBLE / 1000 AS score,
	list_transform(range((hash(i * 11) % 4)::BIGINT), k -> 'tag' || ((hash(i) + k) % 50)::VARCHAR) AS tags,
	list_transform(range((hash(i * 13) % 32)::BIGINT), k -> (hash(i * 7 + k) % 1000000)::INTEGER) AS tokens
FROM range($ROWS) t(i)) TO '$PATH' (FORMAT parquet, COMPRESSION zstd)`

func variants(j job, rowflowBin, baseBin, duckBin, structsBin string, threads int) []variant {
	th := strconv.Itoa(threads)
	structs := func(args ...string) *exec.Cmd {
		cmd := exec.Command(structsBin, append([]string{args[0], "-parallel", th}, args[1:]...)...)
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+th)
		return cmd
	}
	if j.decode {
		return []variant{
			{name: "rowflow structs", cmd: func(string) *exec.Cmd { return structs("decode", j.input) }},
			{name: "duckdb", cmd: func(string) *exec.Cmd { return exec.Command(duckBin, "-threads", th, j.duckSQL) }},
		}
	}
	rowflow := func(bin string, lineage bool) func(out string) *exec.Cmd {
		return func(out string) *exec.Cmd {
			args := []string{"reshard", "-out", out, "-parallel", th, "-writers", th, "-compression", "zstd"}
			if !lineage {
				args = append(args, "-row-id-column", "")
			}
			cmd := exec.Command(bin, append(args, j.rowflowArgs...)...)
			cmd.Env = append(os.Environ(), "GOMAXPROCS="+th)
			return cmd
		}
	}
	vs := []variant{
		{name: "rowflow, lineage off", cmd: rowflow(rowflowBin, false)},
		{name: "rowflow, lineage on", cmd: rowflow(rowflowBin, true)},
		{name: "rowflow Go structs, lineage on", cmd: func(out string) *exec.Cmd { return structs("write", j.input, out) }},
		{name: "duckdb", cmd: func(out string) *exec.Cmd {
			return exec.Command(duckBin, "-threads", th, fmt.Sprintf(j.duckSQL, filepath.Join(out, "out.parquet")))
		}},
	}
	if baseBin != "" {
		vs = append(vs, variant{name: "base rowflow, lineage off", cmd: rowflow(baseBin, false)},
			variant{name: "base rowflow, lineage on", cmd: rowflow(baseBin, true)})
	}
	return vs
}

// measureAll runs every variant once to warm up, then rounds times in a
// rotating order, and returns each one's medians.
func measureAll(dir string, vs []variant, rounds int, decode bool) ([]result, error) {
	samples := make([][]result, len(vs))
	for r := -1; r < rounds; r++ {
		for k := range vs {
			i := (k + max(r, 0)) % len(vs)
			res, err := measure(filepath.Join(dir, "out"), vs[i], decode)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", vs[i].name, err)
			}
			if r >= 0 {
				samples[i] = append(samples[i], res)
			}
		}
	}
	out := make([]result, len(vs))
	for i, s := range samples {
		out[i] = median(s)
	}
	return out, nil
}

// median returns the median of each figure on its own.
func median(s []result) result {
	pick := func(f func(result) int64) int64 {
		v := make([]int64, len(s))
		for i, r := range s {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return result{
		wall: time.Duration(pick(func(r result) int64 { return int64(r.wall) })),
		cpu:  time.Duration(pick(func(r result) int64 { return int64(r.cpu) })),
		rss:  pick(func(r result) int64 { return r.rss }),
		out:  pick(func(r result) int64 { return r.out }),
		ids:  pick(func(r result) int64 { return r.ids }),
	}
}

// measure runs one variant into the directory out, made empty first,
// and returns its figures; decode: the variant writes nothing.
func measure(out string, v variant, decode bool) (result, error) {
	if err := os.RemoveAll(out); err != nil {
		return result{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return result{}, err
	}
	dest := filepath.Join(out, "o")
	cmd := v.cmd(dest)
	if v.name == "duckdb" {
		if err := os.MkdirAll(dest, 0o755); err != nil {
			return result{}, err
		}
	}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = nil, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%v: %s", err, stderr.String())
	}
	cpu, rss := usage(cmd.ProcessState)
	if decode {
		return result{wall: wall, cpu: cpu, rss: rss}, nil
	}
	size, ids, files, err := parquetBytes(dest)
	if err != nil {
		return result{}, err
	}
	if files == 0 {
		return result{}, fmt.Errorf("no Parquet output in %s", dest)
	}
	return result{wall: wall, cpu: cpu, rss: rss, out: size, ids: ids}, nil
}

// parquetBytes returns the bytes of the Parquet files under dir, the
// compressed bytes of their row-ID columns (row_id_…) among them, and the
// number of files.
func parquetBytes(dir string) (size, ids int64, files int, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		pf, err := pq.OpenFile(f, info.Size(), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, rg := range pf.Metadata().RowGroups {
			for _, c := range rg.Columns {
				if path := c.MetaData.PathInSchema; len(path) == 1 && strings.HasPrefix(path[0], "row_id_") {
					ids += c.MetaData.TotalCompressedSize
				}
			}
		}
		size += info.Size()
		files++
		return nil
	})
	return size, ids, files, err
}

// writeCSV writes the CSV input: a header and rows records of an id, a
// score with up to three decimals, a name of two words and a number, and
// a count, from a seeded generator, so the same on every run.
func writeCSV(path string, rows int) error {
	return writeText(path, rows, false)
}

// writeJSONL writes the CSV input's rows as JSON Lines, one object per
// row with the CSV's column names as keys.
func writeJSONL(path string, rows int) error {
	return writeText(path, rows, true)
}

// writeText writes rows rows of the text inputs, as CSV or JSON Lines.
func writeText(path string, rows int, jsonl bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	words := []string{"amber", "basalt", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kelp", "lumen", "maple", "nimbus", "onyx", "pewter"}
	rng := rand.New(rand.NewPCG(30, 2))
	sep := [...]string{"", ",", ",", ","}
	if jsonl {
		sep = [...]string{`{"id":`, `,"score":`, `,"name":"`, `","count":`}
	} else {
		w.WriteString("id,score,name,count\n")
	}
	var b []byte
	for i := range rows {
		b = b[:0]
		if jsonl {
			b = append(b, sep[0]...)
		}
		b = strconv.AppendInt(b, int64(i)*7+rng.Int64N(7), 10)
		b = append(b, sep[1]...)
		b = strconv.AppendFloat(b, float64(rng.IntN(1_000_000))/1000, 'f', -1, 64)
		b = append(b, sep[2]...)
		b = append(b, words[rng.IntN(len(words))]...)
		b = append(b, '_')
		b = append(b, words[rng.IntN(len(words))]...)
		b = strconv.AppendInt(b, int64(rng.IntN(1000)), 10)
		b = append(b, sep[3]...)
		b = strconv.AppendInt(b, int64(rng.IntN(100_000)), 10)
		if jsonl {
			b = append(b, '}')
		}
		b = append(b, '\n')
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// duck runs SQL in DuckDB through the duckcopy command.
func duck(bin string, threads int, sql string) error {
	out, err := exec.Command(bin, "-threads", strconv.Itoa(threads), sql).CombinedOutput()
	if err != nil {
		return fmt.Errorf("duckcopy: %v: %s", err, out)
	}
	return nil
}

// goBuild builds the package pkg of the module in dir into bin.
func goBuild(dir, bin, pkg string) error {
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s in %s: %v: %s", pkg, dir, err, out)
	}
	return nil
}

// moduleRoot returns the directory of rowflow's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run from within the rowflow module")
	}
	return filepath.Dir(gomod), nil
}
