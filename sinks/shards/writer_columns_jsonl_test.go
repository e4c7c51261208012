package shards_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	sparquet "github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// jsonlLine returns line i of the JSON Lines files of
// TestParquetBatchesFromJSONL: keys in varying order, missing keys and
// nulls, strings with escapes and beyond ASCII, numbers as integers,
// fractions and exponents, booleans, lists as arrays and as strings that
// hold one, and a line of 80 keys now and then.
func jsonlLine(f, i int) string {
	m := []string{
		fmt.Sprintf(`"id":%d`, f*10000+i),
		fmt.Sprintf(`"score":%d.25e1`, i),
		fmt.Sprintf(`"name":"n\u00e9%d \"q\" \\ %s"`, i%37, strings.Repeat("é", i%3)),
		fmt.Sprintf(`"ok":%v`, i%3 == 0),
		fmt.Sprintf(`"f32":%d.5`, i%100),
		fmt.Sprintf(`"ts":"2024-01-0%dT10:00:00Z"`, 1+i%9),
		fmt.Sprintf(`"price":%d.%02d`, i, i%100),
		fmt.Sprintf(`"tags":[%d,%d,null]`, i, i%5),
		fmt.Sprintf(`"blob":"b%d"`, i%7),
		fmt.Sprintf(`"code":%d`, i%11),
		fmt.Sprintf(`"small":"%d"`, i%1000),
	}
	switch i % 7 {
	case 1:
		m[1], m[2], m[7] = `"score":null`, `"name":""`, `"tags":"[]"`
	case 2:
		m = append(m[:3], m[4:]...) // no "ok"
		m[6] = `"tags":"[1, 2]"`
	case 3:
		m[10] = `"small":12`
		m[9] = `"code":"c"`
	case 4:
		for k := range 69 {
			m = append(m, fmt.Sprintf(`"w%02d":%d`, k, k))
		}
	case 5:
		m[0], m[len(m)-1] = m[len(m)-1], m[0]
		m[7] = `"tags":null`
	}
	if i%5 == 0 {
		m[0], m[1] = m[1], m[0]
	}
	return "{" + strings.Join(m, ", ") + "}\n"
}

// TestParquetBatchesFromJSONL writes the same JSON Lines once as records
// (text.JSONL[sources.Record], Parquet[sources.Record]) and once as column
// batches (text.JSONL[*parquet.ColumnBatch], Parquet[*parquet.ColumnBatch]),
// with a schema of every kind of conversion of JSON values: the files are
// the same bytes at every chunk size, parallelism and writer count.
func TestParquetBatchesFromJSONL(t *testing.T) {
	root := t.TempDir()
	for f, lang := range []string{"en", "de"} {
		var b strings.Builder
		for i := range 1500 + f*700 {
			b.WriteString(jsonlLine(f, i))
		}
		dir := filepath.Join(root, "lang="+lang)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "data.jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	group := textGroup()
	group["code"] = pq.Optional(pq.String())
	for k := range 69 {
		group[fmt.Sprintf("w%02d", k)] = pq.Optional(pq.Int(64))
	}
	schema := pq.NewSchema("jsonl", group)
	for _, v := range []struct{ chunk, par, w int }{{1024, 1, 1}, {1024, 2, 2}, {333, 4, 2}, {50, 1, 1}} {
		topts := []text.JSONLOption{sources.ChunkSize(v.chunk), text.PartitionBytes(20000)}
		recs, cols := filepath.Join(t.TempDir(), "r"), filepath.Join(t.TempDir(), "c")
		if err := flow.From(text.JSONL[sources.Record](root, topts...)).Parallel(v.par).To(shards.Parquet[sources.Record](recs, columnsOpts(schema, v.w)...)).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := flow.From(text.JSONL[*sparquet.ColumnBatch](root, topts...)).Parallel(v.par).To(shards.Parquet[*sparquet.ColumnBatch](cols, columnsOpts(schema, v.w)...)).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, fmt.Sprintf("%+v", v), recs, cols)
	}
}

// TestParquetBatchesFromJSONLFailsAsRecords: a value that Parquet of records
// does not take from JSONL[sources.Record]'s record, a bad line and a missing
// required value fail the column batches' run naming the same row, column
// and value; what it takes is written alike; and with SkipBad the bad
// lines are skipped alike.
func TestParquetBatchesFromJSONLFailsAsRecords(t *testing.T) {
	for _, c := range []struct {
		name, schema, line string
	}{
		{"bool as string", "s:string", `{"s":true}`},
		{"number as bool", "b:bool", `{"b":1}`},
		{"exponent as int", "i:int64", `{"i":1e2}`},
		{"text exponent as int", "i:int64", `{"i":"1e2"}`},
		{"fraction as int", "i:int32", `{"i":1.5}`},
		{"too large for int32", "i:int32", `{"i":3000000000}`},
		{"array as string", "s:string", `{"s":[1,2]}`},
		{"object as string", "s:string", `{"s":{"x":1}}`},
		{"object as list", "l:list<int32>", `{"l":{"x":1}}`},
		{"number as list", "l:list<int32>", `{"l":5}`},
		{"bad element", "l:list<int32>", `{"l":[1,"x"]}`},
		{"text as double", "d:float64", `{"d":"x"}`},
		{"number as timestamp", "t:timestamp", `{"t":5}`},
		{"number as date", "t:date", `{"t":20240101}`},
		{"string as bool", "b:bool", `{"b":"1"}`},
		{"number as bytes", "s:string", `{"s":12.50}`},
		{"list in text", "l:list<int32>", `{"l":"[1,null]"}`},
		{"empty string as int", "i:int64", `{"i":""}`},
		{"key not in the schema", "s:string", `{"s":"a","t":1}`},
		{"required and missing", "s:string!,t:int64", `{"t":1}`},
		{"required and null", "s:string!", `{"s":null}`},
		{"key twice", "s:string", `{"s":"a","s":"b"}`},
		{"escaped key twice", "s:string", `{"s":"a","\u0073":"b"}`},
		{"nested key twice", "s:string", `{"s":{"a":1,"a":2}}`},
		{"not an object", "s:string", `[1,2]`},
		{"bad syntax", "s:string", `{"s":"a",}`},
		{"truncated", "s:string", `{"s":"a"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "in.jsonl")
			lines := "{}\n"
			if strings.Contains(c.schema, "!") {
				lines = ""
			}
			if err := os.WriteFile(path, []byte(lines+c.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			schema := jsonlSchema(t, c.schema)
			errR := flow.From(text.JSONL[sources.Record](path)).To(shards.Parquet[sources.Record](filepath.Join(dir, "r"), shards.Schema(schema))).Run(t.Context())
			errC := flow.From(text.JSONL[*sparquet.ColumnBatch](path)).To(shards.Parquet[*sparquet.ColumnBatch](filepath.Join(dir, "c"), shards.Schema(schema))).Run(t.Context())
			if (errR == nil) != (errC == nil) {
				t.Fatalf("records: %v\ncolumns: %v", errR, errC)
			}
			if errR == nil { // taken alike
				sameFiles(t, c.name, filepath.Join(dir, "r"), filepath.Join(dir, "c"))
				return
			}
			// The same row, file and message; only the sinks differ.
			r := strings.ReplaceAll(errR.Error(), `Parquet[sources.Record]("`+filepath.Join(dir, "r"), "sink")
			col := strings.ReplaceAll(errC.Error(), `Parquet[*parquet.ColumnBatch]("`+filepath.Join(dir, "c"), "sink")
			if r != col {
				t.Fatalf("the errors differ:\nrecords: %q\ncolumns: %q", r, col)
			}

			var repR, repC sources.SkipReport
			var n int64
			if err := flow.From(text.JSONL[sources.Record](path, sources.SkipBad(&repR))).To(sinks.Count[sources.Record](&n)).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := flow.From(text.JSONL[*sparquet.ColumnBatch](path, sources.SkipBad(&repC))).To(sinks.Count[*sparquet.ColumnBatch](&n)).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(repR) != fmt.Sprint(repC) {
				t.Fatalf("skipped lines differ:\nrecords: %+v\ncolumns: %+v", repR, repC)
			}
		})
	}
}

// jsonlSchema returns the schema of spec, a list of name:type, where a
// type ending in ! is required.
func jsonlSchema(t *testing.T, spec string) *pq.Schema {
	t.Helper()
	g := pq.Group{}
	for _, f := range strings.Split(spec, ",") {
		name, typ, _ := strings.Cut(f, ":")
		required := strings.HasSuffix(typ, "!")
		var n pq.Node
		switch strings.TrimSuffix(typ, "!") {
		case "string":
			n = pq.String()
		case "bool":
			n = pq.Leaf(pq.BooleanType)
		case "int32":
			n = pq.Int(32)
		case "int64":
			n = pq.Int(64)
		case "float64":
			n = pq.Leaf(pq.DoubleType)
		case "timestamp":
			n = pq.Timestamp(pq.Millisecond)
		case "date":
			n = pq.Date()
		case "list<int32>":
			n = pq.List(pq.Optional(pq.Int(32)))
		default:
			t.Fatalf("type %q", typ)
		}
		if !required {
			n = pq.Optional(n)
		}
		g[name] = n
	}
	return pq.NewSchema("t", g)
}
