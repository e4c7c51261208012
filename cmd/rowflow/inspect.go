package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/parquet/assemble"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

func runInspect(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("inspect", "PATH   (a Parquet dataset, or an s3://bucket/prefix URL: what its footers say; a CSV or JSON Lines dataset: its files and the schema inferred from its first records)", "rowflow inspect data/", "rowflow inspect s3://bucket/tables/events")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	switch f, err := format(fs.Arg(0)); {
	case err == nil && f != "parquet":
		return inspectText(ctx, fs.Arg(0), f, stdout)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		// Data files of two formats, or a layout discovery refuses (such
		// as Hive columns that differ between files): the error says so,
		// where reading the Parquet files alone would hide it. A path
		// that does not exist may be a glob of Parquet files.
		return err
	}
	files, err := parquetFiles(fs.Arg(0))
	if err != nil {
		return err
	}
	var rows, bytes int64
	var schema string
	stats := map[string]*columnStats{}
	var order []string
	for _, file := range files {
		rel := file.RelPath
		err := openParquet(file.Path, func(f *parquet.File, size int64) error {
			codecs := map[string]bool{}
			for _, rg := range f.Metadata().RowGroups {
				for _, c := range rg.Columns {
					codecs[strings.ToLower(c.MetaData.Codec.String())] = true
				}
			}
			fmt.Fprintf(stdout, "%s  rows %d  row groups %d  bytes %d  compression %s%s\n",
				rel, f.NumRows(), len(f.RowGroups()), size, strings.Join(slices.Sorted(maps.Keys(codecs)), ","), hive(rel))
			rows += f.NumRows()
			bytes += size
			if schema == "" {
				schema = f.Schema().String()
			}
			for _, rg := range f.RowGroups() {
				for i, col := range f.Schema().Columns() {
					name := strings.Join(col, ".")
					s := stats[name]
					if s == nil {
						s = &columnStats{}
						stats[name] = s
						order = append(order, name)
					}
					s.add(rg.ColumnChunks()[i], rel)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\n%d files, %d rows, %d bytes\n\nschema:\n%s\n\ncolumns (min, max, nulls):\n", len(files), rows, bytes, schema)
	for _, name := range order {
		s := stats[name]
		fmt.Fprintf(stdout, "  %-24s %s  %s  %d%s\n", name, s.show(s.min), s.show(s.max), s.nulls, s.note())
	}
	return nil
}

// hive returns the Hive columns of the directories of a file's
// slash-separated path, as text.
func hive(rel string) string {
	var cols []string
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if k, v, ok := strings.Cut(seg, "="); ok && k != "" {
			cols = append(cols, k+"="+v)
		}
	}
	if len(cols) == 0 {
		return ""
	}
	return "  hive " + strings.Join(cols, " ")
}

// parquetFiles returns the Parquet files of the dataset at path (a file,
// a directory or a glob pattern), found as every command's sources find
// them: internal/io/dataset's discovery, which skips hidden and _ names and
// follows symbolic links that stay under the dataset root.
func parquetFiles(path string) ([]dataset.File, error) {
	ds, err := dataset.Parquet.Discover(path)
	if err != nil {
		return nil, err
	}
	return ds.Files(), nil
}

// openParquet opens the Parquet file name and calls use with it and its
// size; the file is closed when use returns.
func openParquet(name string, use func(f *parquet.File, size int64) error) error {
	fh, err := objstore.Open(context.Background(), name, objstore.Options{Tail: objstore.FooterTail})
	if err != nil {
		return err
	}
	defer fh.Close()
	f, err := parquet.OpenFile(fh, fh.Size())
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return use(f, fh.Size())
}

// columnStats gathers a column's bounds from the files' column indexes.
// Bounds are compared only between chunks whose values order the same way
// (see sameOrder): a column whose type differs between files has no
// bounds, and note names its types and a file of each.
type columnStats struct {
	typ      parquet.Type // the first chunk's
	min, max parquet.Value
	has      bool
	nulls    int64
	types    []parquet.Type // the types found that order differently, in file order
	files    []string       // the first file of each of types
}

func (s *columnStats) add(c parquet.ColumnChunk, file string) {
	t := c.Type()
	if !slices.ContainsFunc(s.types, func(u parquet.Type) bool { return sameOrder(u, t) }) {
		s.types = append(s.types, t)
		s.files = append(s.files, file)
	}
	s.typ = s.types[0]
	ci, err := c.ColumnIndex()
	if err != nil || ci == nil {
		return
	}
	for p := range ci.NumPages() {
		s.nulls += ci.NullCount(p)
		if s.differ() || ci.NullPage(p) {
			continue
		}
		lo, hi := ci.MinValue(p), ci.MaxValue(p)
		if !s.has {
			s.min, s.max, s.has = lo.Clone(), hi.Clone(), true
			continue
		}
		if s.typ.Compare(lo, s.min) < 0 {
			s.min = lo.Clone()
		}
		if s.typ.Compare(hi, s.max) > 0 {
			s.max = hi.Clone()
		}
	}
}

// differ reports whether the column's type differs between files.
func (s *columnStats) differ() bool { return len(s.types) > 1 }

// sameOrder reports whether values of the types a and b can be compared
// with each other: the same physical type and, for integers, the same
// signedness.
func sameOrder(a, b parquet.Type) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	_, sa, _ := assemble.IntType(&pqcol.Leaf{Kind: a.Kind(), Node: parquet.Leaf(a)})
	_, sb, _ := assemble.IntType(&pqcol.Leaf{Kind: b.Kind(), Node: parquet.Leaf(b)})
	return sa == sb
}

// note says, for a column whose type differs between files, that it
// does, with the types and a file of each.
func (s *columnStats) note() string {
	if !s.differ() {
		return ""
	}
	var ts []string
	for i, t := range s.types {
		ts = append(ts, t.String()+" in "+s.files[i])
	}
	return "  (types differ: " + strings.Join(ts, ", ") + "; bounds not compared)"
}

// show formats a bound of the column: unsigned integer columns (UINT_32,
// UINT_64 and narrower) as unsigned numbers, which parquet.Value's String
// prints as signed ones.
func (s *columnStats) show(v parquet.Value) string {
	if !s.has || s.differ() {
		return "-"
	}
	t := v.String()
	var raw any
	switch v.Kind() {
	case parquet.Int32:
		raw = v.Int32()
	case parquet.Int64:
		raw = v.Int64()
	case parquet.ByteArray, parquet.FixedLenByteArray:
		raw = v.ByteArray()
	}
	if text, ok := logicalText(s.typ, raw); ok {
		return text
	}
	if _, signed, ok := assemble.IntType(&pqcol.Leaf{Kind: s.typ.Kind(), Node: parquet.Leaf(s.typ)}); ok && !signed {
		if s.typ.Kind() == parquet.Int32 {
			t = strconv.FormatUint(uint64(v.Uint32()), 10)
		} else {
			t = strconv.FormatUint(v.Uint64(), 10)
		}
	}
	if len(t) > 24 {
		t = t[:21] + "..."
	}
	return t
}

// inspectText prints the files of a CSV or JSON Lines dataset and the
// schema inferred from its first records, as -schema auto uses it.
func inspectText(ctx context.Context, path, f string, stdout io.Writer) error {
	ds, err := datasetFormats[f].Discover(path)
	if err != nil {
		return err
	}
	var total int64
	for _, file := range ds.Files() {
		st, err := objstore.Stat(ctx, file.Path)
		if err != nil {
			return err
		}
		total += st.Size
		fmt.Fprintf(stdout, "%s  bytes %d%s\n", file.RelPath, st.Size, hive(file.RelPath))
	}
	cols, err := inferSchema(ctx, input{}, path)
	if errors.Is(err, errNoRecords) {
		// An empty dataset, as a Parquet one of no rows: nothing to infer.
		fmt.Fprintf(stdout, "\n%d %s files, %d bytes, no records: no schema to infer\n", len(ds.Files()), textNames[f], total)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d %s files, %d bytes\n\nschema inferred from the first %d records (-schema auto):\n", len(ds.Files()), textNames[f], total, inferSample)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, c := range cols {
		null := ""
		if c.nullable {
			null = "nullable"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.name, c.typ, null)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n-schema '%s'\n", schemaText(cols))
	return nil
}
