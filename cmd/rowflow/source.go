package main

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
	"os"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
)

// input is how a command reads a dataset: its format and the options the
// flags gave.
type input struct {
	filter   string
	columns  string
	rename   string // old=new,old=new
	window   int
	seed     uint64
	rank     int
	world    int
	parallel int
}

// format returns the format of the dataset at path, from the extension of
// its first data file: parquet, csv or jsonl.
func format(path string) (string, error) {
	first := path
	if fi, err := os.Stat(path); err != nil {
		return "", err
	} else if fi.IsDir() {
		first = ""
		filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err != nil || first != "" || d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
				return err
			}
			first = p
			return nil
		})
	}
	name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(first, ".gz"), ".zst"), ".s2")
	switch {
	case strings.HasSuffix(name, ".parquet"):
		return "parquet", nil
	case strings.HasSuffix(name, ".csv"):
		return "csv", nil
	case strings.HasSuffix(name, ".jsonl"), strings.HasSuffix(name, ".ndjson"):
		return "jsonl", nil
	}
	return "", fmt.Errorf("%s: no Parquet, CSV or JSON Lines files", path)
}

// pipeline returns the records of the dataset at path, read with in's
// options.
func (in input) pipeline(path string) (*flow.Pipeline, error) {
	src, err := in.source(path)
	if err != nil {
		return nil, err
	}
	return flow.From(src).Parallel(max(in.parallel, 1)), nil
}

// source returns the source of the dataset at path with in's options.
func (in input) source(path string) (flow.Source[sources.Record], error) {
	f, err := format(path)
	if err != nil {
		return nil, err
	}
	pq, ds, err := in.options(f)
	if err != nil {
		return nil, err
	}
	var src flow.Source[sources.Record]
	switch f {
	case "parquet":
		for _, o := range ds {
			pq = append(pq, o)
		}
		src = sources.ParquetRecords(path, pq...)
	case "csv":
		var opts []sources.CSVOption
		for _, o := range ds {
			opts = append(opts, o)
		}
		src = sources.CSVRecords(path, opts...)
	default:
		var opts []sources.JSONLOption
		for _, o := range ds {
			opts = append(opts, o)
		}
		src = sources.JSONLRecords(path, opts...)
	}
	return src, nil
}

// options returns the options of in for a dataset of format f: those
// that only the Parquet source takes, and those every source takes.
func (in input) options(f string) ([]sources.ParquetOption, []sources.DatasetOption, error) {
	var pq []sources.ParquetOption
	if f != "parquet" {
		for _, opt := range []struct{ flag, v string }{{"-filter", in.filter}, {"-rename", in.rename}, {"-columns", in.columns}} {
			if opt.v != "" {
				return nil, nil, fmt.Errorf("%w: %s reads Parquet datasets only", errUsage, opt.flag)
			}
		}
	}
	if in.filter != "" {
		flt, err := sources.ParseFilter(in.filter)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: -filter: %v", errUsage, err)
		}
		pq = append(pq, sources.RowFilter(flt))
	}
	if in.rename != "" {
		for _, pair := range strings.Split(in.rename, ",") {
			old, new, ok := strings.Cut(pair, "=")
			if !ok || old == "" || new == "" {
				return nil, nil, fmt.Errorf("%w: -rename %q: want old=new[,old=new]", errUsage, in.rename)
			}
			pq = append(pq, sources.Rename(old, new))
		}
	}
	if in.columns != "" {
		pq = append(pq, sources.Columns(strings.Split(in.columns, ",")...))
	}
	var ds []sources.DatasetOption
	if in.window > 0 {
		ds = append(ds, sources.ShuffleWindow(in.window), sources.Seed(in.seed))
	}
	if in.world > 1 {
		ds = append(ds, sources.Rank(in.rank, in.world))
	}
	return pq, ds, nil
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
	for _, rel := range files {
		p := filepath.Join(path, rel)
		if rel == "." {
			p = path
		}
		err := openParquet(p, func(f *parquet.File, _ int64) error {
			n += f.NumRows()
			return nil
		})
		if err != nil {
			return 0
		}
	}
	return n
}
