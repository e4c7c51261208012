package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/operators"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/ranks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

func runReshard(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("reshard", "-out DIR [flags] PATH",
		"rowflow reshard -out shards/ -rows-per-file 1000000 -filter \"lang = 'en'\" -shuffle-window 64 -seed 7 data/",
		"rowflow reshard -out shards/ -format jsonl -compression gzip data/",
		"rowflow reshard -out shards/ -schema 'id:int64,text:string,score:float64,tokens:[]int32' data.csv")
	out := fs.String("out", "", "the output directory (required)")
	outFormat := fs.String("format", "parquet", "the output files' format: parquet or jsonl")
	schema := fs.String("schema", "", "the Parquet output's columns, name:type[,name:type] (types: bool, int32, int64, uint32, uint64, float32, float64, string, bytes, []type for a list, which a CSV field gives as a JSON array such as \"[1,2,3]\"); and timestamp[ms|us|ns][, tz], date, time, decimal(p,s); auto: inferred from the first 10,000 records); required for CSV and JSON Lines input, default for Parquet input: the input's columns")
	compression := fs.String("compression", "zstd", "compression: none, gzip, zstd or s2 for jsonl; none, zstd, snappy, gzip or lz4 for parquet")
	partitionBy := fs.String("partition-by", "", "write Hive directories col=value/... by the values of these comma-separated columns (default: the Hive columns of the input, of any format, unless -columns or -rename leaves one out; -partition-by \"\" writes no directories)")
	rowsPerFile := fs.Int64("rows-per-file", 0, "rows per output file (0: one file per writer)")
	writers := fs.Int("writers", 1, fmt.Sprintf("files written at once (1 to %d)", limits.MaxWriters))
	filter := fs.String("filter", "", "a row filter in the text form, e.g. \"score > 0.5 and lang = 'en'\" (Parquet input)")
	columns := fs.String("columns", "", "comma-separated columns to keep, in this order, by their names after -rename (a JSON Lines record without one gives null)")
	rename := fs.String("rename", "", "columns to rename, old=new[,old=new]")
	window := fs.Int("shuffle-window", 0, "shuffle the input's fragments (Parquet row groups, CSV byte ranges) through a window of this many")
	seed := fs.Uint64("seed", 0, "the seed of the shuffle")
	rank := fs.Int("rank", -1, "this process's rank; with -world; default: from the environment (torchrun, MPI, Kubernetes, Slurm) or 0 of 1")
	world := fs.Int("world", 0, fmt.Sprintf("the number of ranks (1 to %d)", limits.MaxWorld))
	completions := fs.Int("completions", 0, "the declared count of a Kubernetes Indexed Job (JOB_COMPLETION_INDEX gives the rank)")
	rowID := fs.String("row-id-column", "row_id", "write each row's ID as the columns NAME_key1, NAME_key2 and NAME_ord in Parquet, NAME_hi and NAME_lo in CSV and JSON Lines (empty: none)")
	par := fs.Int("parallel", 2, "workers that read the input")
	bar := fs.Bool("progress", false, "show progress on standard error even when it is not a terminal (there: a line a second)")
	badLines := fs.String("bad-lines", "fail", "what a CSV or JSON Lines record that cannot be read does: fail the run, or skip it and list it in _bad-lines-<rank>.json beside the output (at most 1000 listed, then a count)")
	every := fs.Int64("progress-every", 0, "print a line \"rank R: N rows read\" to standard error every N input rows (0: quiet)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: -out is required", errUsage)
	}
	if err := checkOutOfInput(*out, fs.Arg(0)); err != nil {
		return err
	}
	if *writers < 1 || *writers > limits.MaxWriters {
		return fmt.Errorf("%w: -writers %d: must be from 1 to %d", errUsage, *writers, limits.MaxWriters)
	}
	if *rowsPerFile < 0 {
		return fmt.Errorf("%w: -rows-per-file %d: must be at least 0 (0: one file per writer)", errUsage, *rowsPerFile)
	}
	if err := checkCompression(*outFormat, *compression); err != nil {
		return err
	}
	if err := checkParallel(*par, 1); err != nil {
		return err
	}
	if *window < 0 {
		return fmt.Errorf("%w: -shuffle-window %d: must be at least 0 (0: no shuffle)", errUsage, *window)
	}
	if *every < 0 {
		return fmt.Errorf("%w: -progress-every %d: must be at least 0 (0: quiet)", errUsage, *every)
	}
	given := givenFlags(fs)
	if given["seed"] && *window == 0 {
		return fmt.Errorf("%w: -seed is the seed of the shuffle, which -shuffle-window N (N at least 1) asks for", errUsage)
	}
	var ropts []ranks.Option
	switch {
	case given["completions"] && (given["rank"] || given["world"]):
		return fmt.Errorf("%w: -completions declares the count of a Kubernetes Indexed Job, whose environment gives the rank; -rank and -world give both: use one or the other", errUsage)
	case given["rank"] != given["world"]:
		return fmt.Errorf("%w: -rank and -world come together: give both, or neither to take the rank from the environment", errUsage)
	case given["world"] && *world > limits.MaxWorld:
		return fmt.Errorf("%w: -world %d: at most %d", errUsage, *world, limits.MaxWorld)
	case given["rank"] && (*world < 1 || *rank < 0 || *rank >= *world):
		return fmt.Errorf("%w: -rank %d -world %d: the world must be at least 1 and the rank from 0 to the world less 1", errUsage, *rank, *world)
	case given["rank"]:
		ropts = append(ropts, ranks.Explicit(*rank, *world))
	case given["completions"] && *completions < 1:
		return fmt.Errorf("%w: -completions %d: must be at least 1", errUsage, *completions)
	case given["completions"]:
		ropts = append(ropts, ranks.World(*completions))
	}
	r, err := ranks.FromEnv(ropts...)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	in := input{filter: *filter, columns: *columns, rename: *rename, window: *window, seed: *seed, world: r.World, parallel: *par}
	switch *badLines {
	case "fail":
	case "skip":
		in.badLines = new(sources.SkipReport)
	default:
		return fmt.Errorf("%w: -bad-lines %q: want fail or skip", errUsage, *badLines)
	}
	if err := in.rowflowOutput(ctx, fs.Arg(0), *rowID, !given["partition-by"]); err != nil {
		return err
	}
	// A Parquet input written as it is, and a CSV or JSON Lines input
	// given a schema, go as column batches, which shards.Parquet writes
	// into the files that records would give, without making a record of
	// each row. Partitions, kept row IDs, per-row progress, -columns
	// (which names a list by its column, where Parquet batches name
	// leaves) and, for text, -rename (a projection of records) need
	// records.
	if f, err := format(fs.Arg(0)); err == nil && *outFormat == "parquet" && in.columns == "" &&
		(f == "parquet" && *schema == "" || f != "parquet" && *schema != "" && in.rename == "") &&
		in.ids == "" && *partitionBy == "" && (len(in.hive) == 0 || given["partition-by"]) && *every == 0 {
		in.batches = f
	}
	p, err := in.pipeline(fs.Arg(0))
	if err != nil {
		return err
	}
	opts := []shards.Option{shards.Writers(*writers)}
	if *rowsPerFile > 0 {
		opts = append(opts, shards.RowsPerFile(*rowsPerFile))
	}
	if *rowID != "" {
		opts = append(opts, shards.RowIDColumn(*rowID))
	}
	switch {
	case *partitionBy != "":
		opts = append(opts, shards.PartitionBy(strings.Split(*partitionBy, ",")...))
	case len(in.hive) > 0:
		opts = append(opts, shards.PartitionBy(in.hive...))
	}
	sink, err := in.sink(ctx, fs.Arg(0), *out, *outFormat, *schema, *compression, opts)
	if err != nil {
		return err
	}
	if *every > 0 {
		p = p.Via(progressLines(os.Stderr, r.Rank, *every))
	}
	unit := "rows"
	if in.batches != "" {
		unit = "batches"
	}
	runCtx, pr := startProgress(ctx, "reshard", *bar, in.total(fs.Arg(0)), unit)
	err = p.WithRank(r.Rank, r.World).To(sink).Run(runCtx)
	var m *shards.Manifest
	if err == nil {
		m, err = shards.ReadManifest(*out, r.Rank)
	}
	if m != nil {
		pr.done(flow.Stats{Rows: m.Rows, Delivered: m.Rows}, true)
	} else {
		pr.done(flow.Stats{}, false)
	}
	if err != nil {
		return err
	}
	if in.badLines != nil {
		if err := writeBadLines(*out, r.Rank, in.badLines); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "rank %d of %d (%s): %d rows in %d files, %d bytes\n", r.Rank, r.World, r.From, m.Rows, len(m.Files), m.Bytes)
	return nil
}

// sink returns the sink of reshard's output: Parquet with the columns of
// schema (or of the Parquet input), or JSON Lines. A schema must name the
// input's Hive columns that the output is partitioned by (in.hive).
func (in input) sink(ctx context.Context, path, out, outFormat, schema, compression string, opts []shards.Option) (flow.Sink, error) {
	switch outFormat {
	case "jsonl":
		if schema != "" {
			return flow.Sink{}, fmt.Errorf("%w: -schema is for Parquet output", errUsage)
		}
		return shards.JSONL[sources.Record](out, append(opts, shards.Compression(compression))...), nil
	case "parquet":
	default:
		return flow.Sink{}, fmt.Errorf("%w: -format %q: want parquet or jsonl", errUsage, outFormat)
	}
	popts := []shards.ParquetOption{shards.Compression(compression)}
	for _, o := range opts {
		popts = append(popts, o)
	}
	if schema == "auto" {
		recs := in // inference reads records
		recs.batches = ""
		cols, err := inferSchema(ctx, recs, path)
		if err != nil {
			return flow.Sink{}, err
		}
		schema = schemaText(cols)
	}
	if schema != "" {
		s, err := parseSchema(schema)
		if err != nil {
			return flow.Sink{}, fmt.Errorf("%w: -schema: %v", errUsage, err)
		}
		for _, c := range in.hive {
			if _, ok := s.Lookup(c); !ok {
				return flow.Sink{}, fmt.Errorf("%w: -schema has no column %q, a Hive column of the input, which reshard writes as directories %s=…/: -schema names every column, the Hive columns too", errUsage, c, c)
			}
		}
		return in.parquetSink(out, append(popts, shards.Schema(s))), nil
	}
	f, err := format(path)
	if err != nil {
		return flow.Sink{}, err
	}
	if f != "parquet" {
		return flow.Sink{}, fmt.Errorf("%w: Parquet output of %s input needs -schema (its records have no types; -schema auto infers them from the first records), or -format jsonl", errUsage, textNames[f])
	}
	pq, _, err := in.options(f)
	if err != nil {
		return flow.Sink{}, err
	}
	s, err := parquet.RecordSchema(path, pq...)
	if err != nil {
		return flow.Sink{}, err
	}
	if in.ids != "" {
		s = withoutColumns(s, rowIDNames(in.ids)...)
	}
	return in.parquetSink(out, append(popts, shards.Schema(s))), nil
}

// parquetSink is shards.Parquet of the values that pipeline reads: column
// batches (in.batches) or records. popts give the schema.
func (in input) parquetSink(out string, popts []shards.ParquetOption) flow.Sink {
	if in.batches != "" {
		return shards.Parquet[*parquet.ColumnBatch](out, popts...)
	}
	return shards.Parquet[sources.Record](out, popts...)
}

// parquetCodecs are the compressions of Parquet output (see shards.Compression).
var parquetCodecs = []string{"zstd", "snappy", "gzip", "lz4", "none"}

// checkCompression checks that -format names an output format and
// -compression a compression of it.
func checkCompression(f, name string) error {
	switch f {
	case "jsonl":
		if _, err := codec.Parse(name); err != nil {
			return fmt.Errorf("%w: -compression %q: want none, gzip, zstd or s2 for jsonl", errUsage, name)
		}
	case "parquet":
		if !slices.Contains(parquetCodecs, name) {
			return fmt.Errorf("%w: -compression %q: want %s for parquet", errUsage, name, strings.Join(parquetCodecs, ", "))
		}
	default:
		return fmt.Errorf("%w: -format %q: want parquet or jsonl", errUsage, f)
	}
	return nil
}

// checkOutOfInput refuses an output directory out that is the input in
// or lies inside it, since reads of the input would then read the output
// too, and one that contains the input, since reads (and the commit) of
// the output would take the input for data. The paths are compared
// absolute and cleaned, with their symbolic links resolved as far as they
// exist.
func checkOutOfInput(out, in string) error {
	if objstore.IsURL(out) || objstore.IsURL(in) {
		return checkURLsApart(out, in)
	}
	o, err := realPath(out)
	if err != nil {
		return fmt.Errorf("-out %s: %w", out, err)
	}
	i, err := realPath(in)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if rel, err := filepath.Rel(i, o); err == nil && filepath.IsLocal(rel) || o == i {
		return fmt.Errorf("%w: -out %s is the input %s or inside it; reads of the input would read the output too: write it elsewhere", errUsage, out, in)
	}
	if rel, err := filepath.Rel(o, i); err == nil && filepath.IsLocal(rel) {
		return fmt.Errorf("%w: -out %s contains the input %s; reads of the output would read the input too: write it elsewhere", errUsage, out, in)
	}
	return nil
}

// checkURLsApart is checkOutOfInput where out or in is an s3:// URL: a
// URL and a local path are apart; two URLs are compared by their keys'
// prefixes, "/" by "/".
func checkURLsApart(out, in string) error {
	if !objstore.IsURL(out) || !objstore.IsURL(in) {
		return nil
	}
	o, i := strings.TrimSuffix(out, "/")+"/", strings.TrimSuffix(in, "/")+"/"
	if strings.HasPrefix(o, i) {
		return fmt.Errorf("%w: -out %s is the input %s or inside it; reads of the input would read the output too: write it elsewhere", errUsage, out, in)
	}
	if strings.HasPrefix(i, o) {
		return fmt.Errorf("%w: -out %s contains the input %s; reads of the output would read the input too: write it elsewhere", errUsage, out, in)
	}
	return nil
}

// realPath returns the absolute, clean form of p with the symbolic links
// of its longest existing prefix resolved; the rest need not exist yet.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(dir) == dir {
			return "", err
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

var textNames = map[string]string{"csv": "CSV", "jsonl": "JSON Lines"}

// progressLines returns a stage that passes records on and prints a line
// to w every every records, in the order of the stream.
func progressLines(w io.Writer, rank int, every int64) flow.Stage {
	var mu sync.Mutex
	var n int64
	return operators.Map(func(r sources.Record) (sources.Record, error) {
		mu.Lock()
		defer mu.Unlock()
		if n++; n%every == 0 {
			fmt.Fprintf(w, "rank %d: %d rows read\n", rank, n)
		}
		return r, nil
	})
}

// badLinesName is the report of the records that rank skipped, beside its
// output: a name starting with "_", which readers and the commit leave
// alone.
func badLinesName(rank int) string { return fmt.Sprintf("_bad-lines-%05d.json", rank) }

// writeBadLines writes the report of the records the rank skipped into
// dir, under a temporary name first so that no half-written report is
// ever visible.
func writeBadLines(dir string, rank int, report *sources.SkipReport) error {
	type line struct {
		Path         string
		Line, Offset int64
		Err          string
	}
	out := struct {
		Lines   []line
		Omitted int64
	}{Lines: []line{}, Omitted: report.Omitted}
	for _, s := range report.Skipped {
		out.Lines = append(out.Lines, line{s.Path, s.Line, s.Offset, s.Err})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if objstore.IsURL(dir) {
		name := strings.TrimSuffix(dir, "/") + "/" + badLinesName(rank)
		if err := objstore.Put(context.Background(), name, bytes.NewReader(b), int64(len(b)), false); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		return nil
	}
	final := filepath.Join(dir, badLinesName(rank))
	tmp, err := os.CreateTemp(dir, "."+badLinesName(rank)+".tmp-")
	if err != nil {
		return err
	}
	if _, err = tmp.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), final)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", final, err)
	}
	return nil
}
