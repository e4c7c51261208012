package main

import (
	"fmt"
	"os"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// input is how a command reads a dataset: its format and the options the
// flags gave.
type input struct {
	filter   string
	columns  string
	rename   string // old=new,old=new
	window   int
	seed     uint64
	world    int // the run's world: rows are divided among its ranks
	parallel int
	chunk    int // rows per chunk, 0 for the sources' default
	// badLines, when not nil, makes a CSV or JSON Lines source skip the
	// records it cannot read and list them there.
	badLines *sources.SkipReport
	// ids, when not empty, names the row-ID columns of a Parquet input
	// that reshard wrote: its rows keep those IDs (see rowflowOutput).
	ids string
	// hive lists the Hive partition columns of a Parquet input that the
	// output keeps.
	hive []string
	// batches, when not empty, is the input's format ("parquet", "csv"
	// or "jsonl"), which pipeline then reads as column batches
	// (sources/parquet.Read, sources/text.CSV or JSONL of
	// *parquet.ColumnBatch) rather than records, for shards.Parquet.
	batches string
}

// dataFormats are the formats the command reads, each with the file
// names that its source takes in a directory: the Parquet source's, and
// the text sources' names with or without a compression extension.
var dataFormats = []struct {
	name     string // as format returns it
	label    string // for errors
	suffixes []string
}{
	{"parquet", "Parquet", dataset.Parquet.Suffixes},
	{"csv", "CSV", dataset.CSV.Suffixes},
	{"jsonl", "JSON Lines", dataset.JSONL.Suffixes},
}

// formatOf returns the index in dataFormats of the format a file name
// has, or -1.
func formatOf(name string) int {
	for i, f := range dataFormats {
		for _, s := range f.suffixes {
			if strings.HasSuffix(name, s) {
				return i
			}
		}
	}
	return -1
}

// format returns the format of the dataset at path, parquet, csv or
// jsonl: a file's by its extension, and a directory's by the extensions
// of its data files, which it finds as the sources' discovery does
// (hidden and _-prefixed files and directories skipped, links followed
// within the directory). A directory holding data files of two formats
// is an error that names them.
func format(path string) (string, error) {
	if objstore.IsURL(path) {
		return discoveredFormat(path) // an object, or the objects under a prefix
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		if i := formatOf(fi.Name()); i >= 0 {
			return dataFormats[i].name, nil
		}
		return "", fmt.Errorf("%s: not a Parquet, CSV or JSON Lines file (by its extension)", path)
	}
	return discoveredFormat(path)
}

// discoveredFormat returns the format of the data files that discovery
// finds at path.
func discoveredFormat(path string) (string, error) {
	all := dataset.Format{Name: "Parquet, CSV or JSON Lines"}
	for _, f := range dataFormats {
		all.Suffixes = append(all.Suffixes, f.suffixes...)
	}
	ds, err := all.Discover(path)
	if err != nil {
		return "", err
	}
	example := make([]string, len(dataFormats)) // the first file of each format
	for _, f := range ds.Files() {
		if i := formatOf(f.RelPath); i >= 0 && example[i] == "" {
			example[i] = f.RelPath
		}
	}
	var found []int
	for i, e := range example {
		if e != "" {
			found = append(found, i)
		}
	}
	if len(found) == 0 { // Discover finds none or fails; kept for safety
		return "", fmt.Errorf("%s: no Parquet, CSV or JSON Lines files", path)
	}
	if len(found) > 1 {
		var names []string
		for _, i := range found {
			names = append(names, fmt.Sprintf("%s (%s)", dataFormats[i].label, example[i]))
		}
		return "", fmt.Errorf("%s: holds data files of more than one format: %s; read each format as a dataset of its own", path, strings.Join(names, ", "))
	}
	return dataFormats[found[0]].name, nil
}

// pipeline returns the records of the dataset at path, read with in's
// options; in's seed is the pipeline's, which seeds the shuffle.
func (in input) pipeline(path string) (*flow.Pipeline, error) {
	var p *flow.Pipeline
	f := in.batches
	switch f {
	case "parquet":
		pq, ds, err := in.options(f)
		if err != nil {
			return nil, err
		}
		for _, o := range ds {
			pq = append(pq, o)
		}
		p = flow.From(parquet.Read[*parquet.ColumnBatch](path, pq...))
	case "csv":
		opts, err := textOptions[text.CSVOption](in, f)
		if err != nil {
			return nil, err
		}
		p = flow.From(text.CSV[*parquet.ColumnBatch](path, opts...))
	case "jsonl":
		opts, err := textOptions[text.JSONLOption](in, f)
		if err != nil {
			return nil, err
		}
		p = flow.From(text.JSONL[*parquet.ColumnBatch](path, opts...))
	default:
		var src flow.Source[sources.Record]
		var err error
		if src, f, err = in.source(path); err != nil {
			return nil, err
		}
		p = flow.From(src)
	}
	p = p.Parallel(max(in.parallel, 1))
	if in.window > 0 {
		p = p.WithSeed(in.seed)
	}
	if in.ids != "" {
		p = keepIDs(p, in.ids)
	}
	if f != "parquet" && (in.columns != "" || in.rename != "") {
		// The Parquet source renames and selects columns itself; text
		// records go through a projection.
		proj, err := newProjection(in.columns, in.rename, f == "csv")
		if err != nil {
			return nil, err
		}
		p = p.Via(operators.Map(proj.apply))
	}
	return p, nil
}

// source returns the source of the dataset at path with in's options,
// and the dataset's format.
func (in input) source(path string) (flow.Source[sources.Record], string, error) {
	f, err := format(path)
	if err != nil {
		return nil, "", err
	}
	pq, ds, err := in.options(f)
	if err != nil {
		return nil, "", err
	}
	var src flow.Source[sources.Record]
	switch f {
	case "parquet":
		for _, o := range ds {
			pq = append(pq, o)
		}
		src = parquet.Read[sources.Record](path, pq...)
	case "csv":
		opts, err := textOptions[text.CSVOption](in, f)
		if err != nil {
			return nil, "", err
		}
		src = text.CSV[sources.Record](path, opts...)
	default:
		opts, err := textOptions[text.JSONLOption](in, f)
		if err != nil {
			return nil, "", err
		}
		src = text.JSONL[sources.Record](path, opts...)
	}
	return src, f, nil
}

// textOptions returns the options of in for a dataset of the text format
// f as options of type O (text.CSVOption or text.JSONLOption), which
// every sources.DatasetOption is.
func textOptions[O any](in input, f string) ([]O, error) {
	_, ds, err := in.options(f)
	if err != nil {
		return nil, err
	}
	var opts []O
	for _, o := range ds {
		opts = append(opts, any(o).(O))
	}
	if in.badLines != nil {
		opts = append(opts, any(sources.SkipBad(in.badLines)).(O))
	}
	return opts, nil
}

// options returns the options of in for a dataset of format f: those
// that only the Parquet source takes, and those every source takes.
func (in input) options(f string) ([]parquet.Option, []sources.DatasetOption, error) {
	var pq []parquet.Option
	if f != "parquet" {
		if in.filter != "" {
			return nil, nil, fmt.Errorf("%w: -filter reads Parquet datasets only", errUsage)
		}
		return nil, sourceDatasetOptions(in), nil
	} else if in.badLines != nil {
		return nil, nil, fmt.Errorf("%w: -bad-lines skip reads CSV and JSON Lines only (a damaged Parquet file fails the run)", errUsage)
	}
	if in.filter != "" {
		flt, err := sources.ParseExpr(in.filter)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: -filter: %v", errUsage, err)
		}
		pq = append(pq, parquet.RowFilter(flt))
	}
	if in.rename != "" {
		for _, pair := range strings.Split(in.rename, ",") {
			old, new, ok := strings.Cut(pair, "=")
			if !ok || old == "" || new == "" {
				return nil, nil, fmt.Errorf("%w: -rename %q: want old=new[,old=new]", errUsage, in.rename)
			}
			pq = append(pq, parquet.Rename(old, new))
		}
	}
	if in.columns != "" {
		pq = append(pq, parquet.Columns(strings.Split(in.columns, ",")...))
	}
	return pq, sourceDatasetOptions(in), nil
}

// sourceDatasetOptions returns the options of in that every dataset
// source takes.
func sourceDatasetOptions(in input) []sources.DatasetOption {
	var ds []sources.DatasetOption
	if in.chunk > 0 {
		ds = append(ds, sources.ChunkSize(in.chunk))
	}
	if in.window > 0 {
		ds = append(ds, sources.ShuffleWindow(in.window))
	}
	return ds
}

// total returns the number of rows a pipeline of in over path reads,
// from the Parquet footers, when that is known without reading the rows
// (no row filter, one rank); else 0.
func (in input) total(path string) int64 {
	if f, err := format(path); err != nil || f != "parquet" || in.filter != "" || in.world > 1 {
		return 0
	}
	files, err := parquetFiles(path)
	if err != nil {
		return 0
	}
	var n int64
	for _, file := range files {
		err := openParquet(file.Path, func(f *pq.File, _ int64) error {
			n += f.NumRows()
			return nil
		})
		if err != nil {
			return 0
		}
	}
	return n
}
