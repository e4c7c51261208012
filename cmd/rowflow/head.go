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
)

func runHead(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("head", "[-n N] [-json] PATH", "rowflow head -n 5 -json data/")
	n := fs.Int("n", 10, "rows to show")
	asJSON := fs.Bool("json", false, "print JSON Lines instead of a table")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if *n < 0 {
		return fmt.Errorf("%w: -n %d", errUsage, *n)
	}
	p, err := input{}.pipeline(fs.Arg(0))
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
	if *asJSON {
		for _, r := range rows {
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s\n", b)
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if len(rows) > 0 {
		fmt.Fprintln(tw, strings.Join(rows[0].Names, "\t"))
	}
	for _, r := range rows {
		cells := make([]string, len(r.Values))
		for i, v := range r.Values {
			cells[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(fmt.Sprint(v))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
