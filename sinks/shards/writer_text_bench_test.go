package shards_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// BenchmarkTextShards writes 200,000 rows as JSON Lines and as CSV with
// the sinks, and with a hand-written loop over the same slice (bufio and
// encoding/json or encoding/csv into one file): the sink's ratio is the
// hand loop's ns/op over the sink's.
func BenchmarkTextShards(b *testing.B) {
	rows := notes(200_000)
	for _, format := range []string{"jsonl", "csv"} {
		b.Run(format+"/sink", func(b *testing.B) {
			for b.Loop() {
				dir := filepath.Join(b.TempDir(), "out")
				sink := shards.JSONL[note](dir)
				if format == "csv" {
					sink = shards.CSV[note](dir)
				}
				if err := flow.From(sources.Slice(rows)).To(sink).Run(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(format+"/hand", func(b *testing.B) {
			for b.Loop() {
				if err := handText(filepath.Join(b.TempDir(), "out."+format), format, rows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func handText(path, format string, rows []note) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	if format == "jsonl" {
		for i := range rows {
			j, err := json.Marshal(&rows[i])
			if err != nil {
				return err
			}
			w.Write(j)
			w.WriteByte('\n')
		}
	} else {
		cw := csv.NewWriter(w)
		cw.Write([]string{"id", "text", "score", "lang", "ok", "count"})
		rec := make([]string, 6)
		for _, r := range rows {
			rec[0], rec[1], rec[2], rec[3], rec[4] = strconv.FormatInt(r.ID, 10), r.Text, strconv.FormatFloat(r.Score, 'g', -1, 64), r.Lang, strconv.FormatBool(r.Ok)
			rec[5] = ""
			if r.Count != nil {
				rec[5] = strconv.FormatInt(int64(*r.Count), 10)
			}
			cw.Write(rec)
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}
