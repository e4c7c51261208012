package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources/text"
)

// Row is what every variant decodes.
type Row struct {
	ID    int64   `csv:"id" json:"id"`
	Small int32   `csv:"small" json:"small"`
	Score float64 `csv:"score" json:"score"`
	Ok    bool    `csv:"ok" json:"ok"`
	Text  string  `csv:"text" json:"text"`
}

func runtimeGC() { runtime.GC() }

type variant struct {
	name string
	vs   string  // the variant it is compared with
	aim  float64 // the ratio aimed at
	run  func(ctx context.Context) (int64, error)
}

func variants(csvPath, jsonPath string) []variant {
	source := func(p *flow.Pipeline) func(context.Context) (int64, error) {
		return func(ctx context.Context) (int64, error) {
			var n int64
			err := p.To(sinks.Count[Row](&n)).Run(ctx)
			return n, err
		}
	}
	return []variant{
		{name: "hand-csv", run: func(context.Context) (int64, error) { return handCSV(csvPath) }},
		{name: "rowflow-csv-p1", vs: "hand-csv", aim: 0.9, run: source(flow.From(text.CSV[Row](csvPath)))},
		{name: "rowflow-csv-p2", vs: "hand-csv", aim: 1.6, run: source(flow.From(text.CSV[Row](csvPath)).Parallel(2))},
		{name: "hand-json", run: func(context.Context) (int64, error) { return handJSON(jsonPath) }},
		{name: "rowflow-jsonl-p1", vs: "hand-json", aim: 0.9, run: source(flow.From(text.JSONL[Row](jsonPath)))},
		{name: "rowflow-jsonl-p2", vs: "hand-json", aim: 1.6, run: source(flow.From(text.JSONL[Row](jsonPath)).Parallel(2))},
	}
}

// handCSV is the loop a user writes without rowflow: encoding/csv over a
// bufio.Reader, reusing the record, parsing each field into the struct.
func handCSV(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(f, 64<<10))
	r.ReuseRecord = true
	if _, err := r.Read(); err != nil {
		return 0, err
	}
	var n int64
	var sink int64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		var row Row
		if row.ID, err = strconv.ParseInt(rec[0], 10, 64); err != nil {
			return n, err
		}
		small, err := strconv.ParseInt(rec[1], 10, 32)
		if err != nil {
			return n, err
		}
		row.Small = int32(small)
		if row.Score, err = strconv.ParseFloat(rec[2], 64); err != nil {
			return n, err
		}
		if row.Ok, err = strconv.ParseBool(rec[3]); err != nil {
			return n, err
		}
		row.Text = rec[4]
		sink += row.ID + int64(len(row.Text))
		n++
	}
	_ = sink
	return n, nil
}

// handJSON is the same with bufio.Scanner and json.Unmarshal per line.
func handJSON(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(bufio.NewReaderSize(f, 64<<10))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var n, sink int64
	for sc.Scan() {
		var row Row
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return n, err
		}
		sink += row.ID + int64(len(row.Text))
		n++
	}
	_ = sink
	return n, sc.Err()
}

// writeData writes rows rows as CSV and as JSON Lines.
func writeData(csvPath, jsonPath string, rows int) error {
	cf, err := os.Create(csvPath)
	if err != nil {
		return err
	}
	defer cf.Close()
	jf, err := os.Create(jsonPath)
	if err != nil {
		return err
	}
	defer jf.Close()
	cb, jb := bufio.NewWriter(cf), bufio.NewWriter(jf)
	w := csv.NewWriter(cb)
	w.Write([]string{"id", "small", "score", "ok", "text"})
	enc := json.NewEncoder(jb)
	for i := range rows {
		r := Row{ID: int64(i), Small: int32(i % 1000), Score: float64(i) / 7, Ok: i%3 == 0,
			Text: fmt.Sprintf("row %08d, a text of forty bytes here", i)}
		w.Write([]string{strconv.FormatInt(r.ID, 10), strconv.Itoa(int(r.Small)),
			strconv.FormatFloat(r.Score, 'g', -1, 64), strconv.FormatBool(r.Ok), r.Text})
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := cb.Flush(); err != nil {
		return err
	}
	return jb.Flush()
}
