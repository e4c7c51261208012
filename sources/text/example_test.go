package text_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// A CSV dataset with a Hive column, read into structs by the csv tags on
// two workers; quoted fields may hold commas and newlines.
func ExampleCSV() {
	dir, _ := os.MkdirTemp("", "csv")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, "lang=en"), 0o755)
	os.WriteFile(filepath.Join(dir, "lang=en", "part-0.csv"), []byte(
		"id,text,score\n"+
			"1,hello,0.5\n"+
			"2,\"two\nlines, one field\",0.75\n"), 0o644)

	type Example struct {
		ID    int64   `csv:"id"`
		Text  string  `csv:"text"`
		Score float64 `csv:"score"`
		Lang  string  `csv:"lang"` // the Hive column
	}
	p := flow.From(text.CSV[Example](dir)).Parallel(2)
	for ex, err := range flow.Values[Example](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%d %q %v %s\n", ex.ID, ex.Text, ex.Score, ex.Lang)
	}
	// Output:
	// 1 "hello" 0.5 en
	// 2 "two\nlines, one field" 0.75 en
}

// A gzip-compressed JSON Lines file with a bad line: SkipBadLines skips
// it and reports where it was.
func ExampleJSONL() {
	dir, _ := os.MkdirTemp("", "jsonl")
	defer os.RemoveAll(dir)
	f, _ := os.Create(filepath.Join(dir, "events.jsonl.gz"))
	zw := gzip.NewWriter(f)
	zw.Write([]byte(`{"user": "ann", "clicks": 3}` + "\n" +
		`{"user": "bob", "clicks": "many"}` + "\n" +
		`{"user": "cy", "clicks": 5}` + "\n"))
	zw.Close()
	f.Close()

	type Event struct {
		User   string `json:"user"`
		Clicks int    `json:"clicks"`
	}
	var bad sources.SkipReport
	p := flow.From(text.JSONL[Event](dir, sources.SkipBad(&bad)))
	for ev, err := range flow.Values[Event](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(ev.User, ev.Clicks)
	}
	for _, l := range bad.Skipped {
		fmt.Printf("skipped %s line %d: %s\n", l.Path, l.Line, l.Err)
	}
	// Output:
	// ann 3
	// cy 5
	// skipped events.jsonl.gz line 2: json: cannot unmarshal string into Go struct field Event.clicks of type int
}
