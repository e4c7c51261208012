package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

func runHead(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("head", "[-n N] [-json] PATH   (a dataset, or an s3://bucket/prefix URL)", "rowflow head -n 5 -json data/", "rowflow head s3://bucket/tables/events")
	n := fs.Int("n", 10, "rows to show")
	asJSON := fs.Bool("json", false, "print JSON Lines instead of a table; a NaN or infinite float, which JSON has no number for, is the string \"NaN\", \"+Inf\" or \"-Inf\"")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: -n %d", errUsage, *n)
	}
	// One reader, in chunks of the rows shown: head reads no further than
	// the chunk that holds its last row, so a bad line past them is not met.
	p, err := input{parallel: 1, chunk: min(max(*n, 1), 1024)}.pipeline(fs.Arg(0))
	if err != nil {
		return err
	}
	var rows []sources.Record
	if *n > 0 {
		for r, err := range flow.Values[sources.Record](ctx, p) {
			if err != nil {
				return err
			}
			rows = append(rows, r)
			if len(rows) == *n {
				break
			}
		}
	}
	if f, err := format(fs.Arg(0)); err == nil && f == "parquet" && len(rows) > 0 {
		// Timestamps, dates, times and decimals as text, not their
		// stored integers.
		s, err := parquet.RecordSchema(fs.Arg(0))
		if err != nil {
			return err
		}
		rows = withLogicalText(rows, logicalColumns(s))
	}
	if *asJSON {
		return writeJSON(stdout, fs.Arg(0), rows)
	}
	return writeTable(stdout, rows)
}

// writeJSON writes rows as JSON Lines, or nothing and an error that
// names the dataset at path and the row. A NaN or infinite float, at any
// depth of a list, becomes the string "NaN", "+Inf" or "-Inf", as many
// JSON tools write them and as the table shows them.
func writeJSON(w io.Writer, path string, rows []sources.Record) error {
	var b []byte
	for i, r := range rows {
		line, err := json.Marshal(r) // Record's MarshalJSON writes the floats' texts
		if err != nil {
			return fmt.Errorf("%s: row %d of the rows shown: %w", path, i+1, err)
		}
		b = append(append(b, line...), '\n')
	}
	_, err := w.Write(b)
	return err
}

// writeTable writes rows as a table whose columns are the union of the
// rows' names, in the order they first come: a row that lacks a column
// has a blank cell there, and a name that a row holds twice (a Hive
// column that the files hold too) shows its first value, as in JSON.
func writeTable(w io.Writer, rows []sources.Record) error {
	var names []string
	col := map[string]int{}
	for _, r := range rows {
		for _, name := range r.Names {
			if _, ok := col[name]; !ok {
				col[name] = len(names)
				names = append(names, name)
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(names) > 0 {
		fmt.Fprintln(tw, strings.Join(names, "\t"))
	}
	clean := strings.NewReplacer("\t", " ", "\n", " ")
	for _, r := range rows {
		cells := make([]string, len(names))
		set := make([]bool, len(names))
		for i, name := range r.Names {
			if j := col[name]; !set[j] && i < len(r.Values) {
				cells[j], set[j] = clean.Replace(fmt.Sprint(r.Values[i])), true
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
