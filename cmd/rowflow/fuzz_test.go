package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"

	"github.com/rowflow/rowflow/internal/testutil"
)

// fzRow is a row of the datasets FuzzCLIAgainstLibrary draws: nullable
// strings and floats, a nullable list, and required columns.
type fzRow struct {
	ID int64    `parquet:"id"`
	S  *string  `parquet:"s,optional"`
	F  *float64 `parquet:"f,optional"`
	L  []int32  `parquet:"l,optional,list"`
	B  bool     `parquet:"b"`
}

// The formats of the datasets drawn.
const (
	fzParquet = iota
	fzCSV
	fzJSONL
)

// fzExt is each format's file name extension.
var fzExt = []string{".parquet", ".csv", ".jsonl"}

// fzFile is one file of a drawn dataset: its path relative to the root
// (under a Hive folder p=VALUE when the dataset has them) and its rows.
type fzFile struct {
	rel  string
	hive string // the value of the Hive column p, or "" for none
	rows []fzRow
	keys [][]string // the order of a JSON Lines line's keys, by row
	comp string     // a text file's compression: "", "gz" or "zst"
}

// fzStrings are pieces of the strings drawn: delimiters, quotes, line
// ends, JSON and Hive punctuation, and characters beyond ASCII.
var fzStrings = []string{"a", "b c", ",", `"`, `""`, "\n", "\r\n", "{", "}", "[1]", "=", "/", "é", "日本", "🙂", "\t", "null", "NaN", " "}

// fzFloats are floats whose text is worth a round trip.
var fzFloats = []float64{0, 1, -1.5, 0.1, 1e300, -2.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 123456789.125, math.Inf(1), math.Inf(-1), math.NaN()}

// drawDataset draws a dataset of one to three files from r, in Hive
// folders or not.
func drawDataset(r *rand.Rand, kind int) []fzFile {
	hive := r.IntN(2) == 0
	ext := fzExt[kind]
	var files []fzFile
	id := int64(r.IntN(1000))
	for i := range 1 + r.IntN(3) {
		f := fzFile{rel: fmt.Sprintf("f%d%s", i, ext)}
		if kind != fzParquet && r.IntN(4) == 0 {
			f.comp = []string{"gz", "zst"}[r.IntN(2)]
			f.rel += "." + f.comp
		}
		if hive {
			f.hive = []string{"x", "y", "2024", "a b"}[r.IntN(4)]
			f.rel = "p=" + f.hive + "/" + f.rel
		}
		for range r.IntN(9) {
			row := fzRow{ID: id, B: r.IntN(2) == 0}
			id += int64(r.IntN(3)) - 1 // ids repeat and go down: they are data
			if r.IntN(4) > 0 {
				var b strings.Builder
				for range r.IntN(4) {
					b.WriteString(fzStrings[r.IntN(len(fzStrings))])
				}
				s := b.String()
				row.S = &s
			}
			if r.IntN(4) > 0 {
				x := fzFloats[r.IntN(len(fzFloats))]
				if r.IntN(2) == 0 {
					x = r.NormFloat64() * math.Pow(10, float64(r.IntN(20)-10))
				}
				row.F = &x
			}
			if r.IntN(4) > 0 {
				row.L = []int32{}
				for range r.IntN(4) {
					row.L = append(row.L, r.Int32()-math.MaxInt32/2)
				}
			}
			f.rows = append(f.rows, row)
			keys := []string{"id", "s", "f", "l", "b"}
			if r.IntN(3) == 0 {
				r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			}
			f.keys = append(f.keys, keys)
		}
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b fzFile) int { return strings.Compare(a.rel, b.rel) })
	return files
}

// csvText returns the CSV file of rows, written by encoding/csv: a null
// is the empty field, a list its JSON array; with header, the header
// line first.
func csvText(rows []fzRow, header bool) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if header {
		w.Write([]string{"id", "s", "f", "l", "b"})
	}
	for _, row := range rows {
		rec := []string{strconv.FormatInt(row.ID, 10), "", "", "", strconv.FormatBool(row.B)}
		if row.S != nil {
			rec[1] = *row.S
		}
		if row.F != nil {
			rec[2] = strconv.FormatFloat(*row.F, 'g', -1, 64)
		}
		if row.L != nil {
			js, _ := json.Marshal(row.L)
			rec[3] = string(js)
		}
		w.Write(rec)
	}
	w.Flush()
	return b.Bytes()
}

// compressed returns b compressed as comp says: "" (not at all), "gz" or
// "zst".
func compressed(t testing.TB, b []byte, comp string) []byte {
	t.Helper()
	var out bytes.Buffer
	switch comp {
	case "":
		return b
	case "gz":
		w := gzip.NewWriter(&out)
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	default:
		w, err := zstd.NewWriter(&out)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// jsonlText returns the JSON Lines file of rows, each line an object of
// all the row's keys in the order keys gives (null for a null value), a
// float as strconv writes it, and NaN and infinities as the strings
// "NaN", "+Inf" and "-Inf", as JSON Lines shards write them.
func jsonlText(rows []fzRow, keys [][]string) []byte {
	var b bytes.Buffer
	for i, row := range rows {
		b.WriteByte('{')
		for j, k := range keys[i] {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:", k)
			var v []byte
			switch k {
			case "id":
				v = strconv.AppendInt(nil, row.ID, 10)
			case "s":
				v, _ = json.Marshal(row.S)
			case "f":
				v = []byte(jsonlFloat(row.F))
			case "l":
				v, _ = json.Marshal(row.L)
			case "b":
				v = strconv.AppendBool(nil, row.B)
			}
			b.Write(v)
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// jsonlFloat is the JSON of a nullable float in a JSON Lines line.
func jsonlFloat(f *float64) string {
	switch {
	case f == nil:
		return "null"
	case math.IsNaN(*f):
		return `"NaN"`
	case math.IsInf(*f, 1):
		return `"+Inf"`
	case math.IsInf(*f, -1):
		return `"-Inf"`
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

// fzSchema is the -schema of the text files' columns, and of the Hive
// column when they are in Hive folders: reshard writes every column of
// its input. With picked, the columns are those -columns picks (where s
// is renamed t), in its order.
func fzSchema(hive bool, picked []string) string {
	types := map[string]string{"id": "int64", "s": "string", "t": "string", "f": "float64", "l": "[]int32", "b": "bool", "p": "string"}
	if picked == nil {
		picked = []string{"id", "s", "f", "l", "b"}
		if hive {
			picked = append(picked, "p")
		}
	}
	var cols []string
	for _, c := range picked {
		cols = append(cols, c+":"+types[c])
	}
	return strings.Join(cols, ",")
}

// fzProjected returns rec as -rename s=t -columns picked makes it: the
// columns picked, in their order, s named t; rec itself for no picked.
func fzProjected(rec sources.Record, picked []string) sources.Record {
	if picked == nil {
		return rec
	}
	var out sources.Record
	for _, c := range picked {
		name := c
		if c == "t" {
			name = "s"
		}
		out.Names = append(out.Names, c)
		out.Values = append(out.Values, rec.Values[slices.Index(rec.Names, name)])
	}
	return out
}

// fzRecord is the record a row is, as the sources document it: for
// Parquet, the typed values (a list as []any, null as nil) under the
// columns' dotted paths; for CSV, every field as its text, the empty
// field as null, \r\n in a field as \n; for JSON Lines, the line's keys
// in their order, numbers as json.Number, the float strings as strings.
// typed gives a text row's values in the types of the -schema reshard
// writes them with. The Hive column p comes last.
func fzRecord(row fzRow, keys []string, hive string, hasHive bool, kind int, typed bool) sources.Record {
	rec := sources.Record{Names: []string{"id", "s", "f", "l.list.element", "b"}}
	var s, f, l any
	if row.S != nil && (kind != fzCSV || *row.S != "") {
		s = *row.S
		if kind == fzCSV { // encoding/csv reads \r\n in a quoted field as \n
			s = strings.ReplaceAll(*row.S, "\r\n", "\n")
		}
	}
	if row.F != nil {
		f = *row.F
	}
	if row.L != nil {
		list := []any{}
		for _, x := range row.L {
			list = append(list, x)
		}
		l = list
	}
	rec.Values = []any{row.ID, s, f, l, row.B}
	switch {
	case kind == fzCSV && !typed:
		rec.Names[3] = "l"
		rec.Values[0], rec.Values[4] = strconv.FormatInt(row.ID, 10), strconv.FormatBool(row.B)
		if f != nil {
			rec.Values[2] = strconv.FormatFloat(*row.F, 'g', -1, 64)
		}
		if l != nil {
			js, _ := json.Marshal(row.L)
			rec.Values[3] = string(js)
		}
	case kind == fzJSONL && !typed:
		rec.Names[3] = "l"
		rec.Values[0] = json.Number(strconv.FormatInt(row.ID, 10))
		if f != nil {
			rec.Values[2] = json.Number(jsonlFloat(row.F))
			if t := jsonlFloat(row.F); t[0] == '"' {
				rec.Values[2], _ = strconv.Unquote(t)
			}
		}
		if l != nil {
			list := []any{}
			for _, x := range row.L {
				list = append(list, json.Number(strconv.Itoa(int(x))))
			}
			rec.Values[3] = list
		}
		var ordered sources.Record
		for _, k := range keys {
			i := slices.IndexFunc(rec.Names, func(n string) bool { return n == k })
			ordered.Names = append(ordered.Names, rec.Names[i])
			ordered.Values = append(ordered.Values, rec.Values[i])
		}
		rec = ordered
	}
	if hasHive {
		rec.Names = append(rec.Names, "p")
		rec.Values = append(rec.Values, hive)
	}
	return rec
}

// canon returns a record as comparable text: each name (a list's
// .list.element path as its column name) with the JSON of its value, in
// the order of the names (canonSorted: of the names sorted); a float as its JSON number or "NaN", "+Inf",
// "-Inf" (as Record's MarshalJSON writes it), whatever its Go type.
func canon(t testing.TB, r sources.Record) string {
	t.Helper()
	var b strings.Builder
	for i, n := range r.Names {
		if i >= len(r.Values) {
			t.Fatalf("a record has %d names and %d values", len(r.Names), len(r.Values))
		}
		v, err := json.Marshal(sources.Record{Names: []string{"v"}, Values: []any{r.Values[i]}})
		if err != nil {
			t.Fatalf("the JSON of %v (%T): %v", r.Values[i], r.Values[i], err)
		}
		fmt.Fprintf(&b, "%s=%s;", strings.TrimSuffix(n, ".list.element"), v[len(`{"v":`):len(v)-1])
	}
	return b.String()
}

func canonSorted(t testing.TB, r sources.Record) string {
	t.Helper()
	idx := make([]int, len(r.Names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return strings.Compare(strings.TrimSuffix(r.Names[a], ".list.element"), strings.TrimSuffix(r.Names[b], ".list.element"))
	})
	var sorted sources.Record
	for _, i := range idx {
		sorted.Names = append(sorted.Names, r.Names[i])
		sorted.Values = append(sorted.Values, r.Values[i])
	}
	return canon(t, sorted)
}

// cli runs the command line args in this process through run, as main
// does, and returns what it wrote and its exit code. A panic fails the
// test with its stack; a run that has not returned after a minute fails
// it as a hang.
func cli(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	done := make(chan string, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		code = run(ctx, args, &o, &e)
		done <- ""
	}()
	select {
	case p := <-done:
		if p != "" {
			t.Fatalf("rowflow %s: %s", strings.Join(args, " "), p)
		}
	case <-time.After(time.Minute):
		cancel()
		t.Fatalf("rowflow %s: no return after a minute (a hang)", strings.Join(args, " "))
	}
	return o.String(), e.String(), code
}

// libPipeline is the library's record source of the dataset at root,
// of the format kind, at parallelism par.
func libPipeline(root string, kind int, par int) *flow.Pipeline {
	var src flow.Source[sources.Record]
	switch kind {
	case fzParquet:
		src = parquet.Read[sources.Record](root)
	case fzCSV:
		src = text.CSV[sources.Record](root)
	default:
		src = text.JSONL[sources.Record](root)
	}
	return flow.From(src).Parallel(par)
}

// libRead reads the dataset at root through the library's record
// source: its items, and the error that ended the read.
func libRead(root string, kind int) ([]flow.Item[sources.Record], error) {
	var items []flow.Item[sources.Record]
	for it, err := range flow.Items[sources.Record](context.Background(), libPipeline(root, kind, 1)) {
		if err != nil {
			return items, err
		}
		items = append(items, it)
	}
	return items, nil
}

// readBack reads the output of reshard at out through the library (its
// Parquet or JSON Lines records) and returns each row's canonical text by
// the row ID its row-ID columns hold, without those columns; a row ID
// given twice fails the test.
func readBack(t testing.TB, out string, jsonl bool) map[rowid.ID]string {
	t.Helper()
	p := flow.From(parquet.Read[sources.Record](out))
	if jsonl {
		p = flow.From(text.JSONL[sources.Record](out))
	}
	word := func(r sources.Record, name string) uint64 {
		v, ok := r.Get(name)
		if !ok {
			t.Fatalf("an output row has no %s: %v", name, r)
		}
		switch v := v.(type) {
		case uint64:
			return v
		case json.Number:
			u, err := strconv.ParseUint(string(v), 10, 64)
			if err != nil {
				t.Fatalf("%s %q: %v", name, v, err)
			}
			return u
		}
		t.Fatalf("%s holds %v (%T)", name, v, v)
		return 0
	}
	got := map[rowid.ID]string{}
	for r, err := range flow.Values[sources.Record](context.Background(), p) {
		if err != nil {
			t.Fatalf("reading the output %s: %v", out, err)
		}
		var id rowid.ID
		if jsonl {
			id = rowid.ID{Hi: word(r, "row_id_hi"), Lo: word(r, "row_id_lo")}
		} else {
			id = shards.RowID(word(r, "row_id_key1"), word(r, "row_id_key2"), word(r, "row_id_ord"))
		}
		// The partition columns stay in the files (shards.PartitionBy):
		// a record of JSON Lines output has them twice, the file's and
		// the folder's, which must agree.
		var kept sources.Record
		for i, n := range r.Names {
			if j := slices.Index(kept.Names, n); j >= 0 {
				if a, b := canon(t, sources.Record{Names: []string{n}, Values: []any{kept.Values[j]}}), canon(t, sources.Record{Names: []string{n}, Values: []any{r.Values[i]}}); a != b {
					t.Fatalf("an output row's file holds %s, its folder %s", a, b)
				}
				continue
			}
			if !strings.HasPrefix(n, "row_id_") {
				kept.Names = append(kept.Names, n)
				kept.Values = append(kept.Values, r.Values[i])
			}
		}
		if _, dup := got[id]; dup {
			t.Fatalf("the output %s holds row ID %s twice", out, id)
		}
		got[id] = canonSorted(t, kept)
	}
	return got
}

// FuzzCLIAgainstLibrary draws a small dataset (one to three Parquet
// files written with parquet-go, CSV files written with encoding/csv, or
// JSON Lines files of lines whose keys come in any order, plain or
// compressed with gzip or zstd; in Hive folders p=VALUE or not) whose
// rows hold int64 ids, nullable strings of delimiters, quotes, line ends
// and non-ASCII text, nullable floats (NaN and infinities among them),
// nullable lists and bools, and runs the command in this process on it:
//
//   - digest -parallel N prints determinism.SumOf of the library's record
//     source (sources/parquet.Read, sources/text.CSV or JSONL of
//     sources.Record) read serially, whose records are the rows written (as
//     the sources document their values);
//   - verify -parallel N says ok with that digest and count;
//   - inspect lists every file and counts them (and Parquet rows);
//   - head -n K -json prints the first K rows written, as JSON Lines;
//   - reshard by every rank of a drawn world, at a drawn -parallel,
//     -writers, -rows-per-file, -shuffle-window, -filter (Parquet input)
//     or -rename and -columns, and -format (Parquet, with -schema for
//     text input, or JSON Lines), through column batches or records
//     (-progress-every), writes files that commit -world -rows accepts
//     and that, read back through the library, hold every input row the
//     filter keeps (evaluated here over the rows written) once, under the
//     row ID the library's read of the input gives it, with its values
//     (projected as -rename and -columns say), in Hive folders as the
//     input's;
//     verify -manifest passes; the output resharded again keeps its rows'
//     IDs and values; and, for Parquet and JSON Lines input, verify
//     -against finds the same rows in the output of the other format.
//
// With damage, one file is cut short (Parquet, a compressed file) or one
// record is replaced by a bad line (CSV, JSON Lines): then digest, verify,
// head past the damage and reshard exit 1 with an error naming the file
// (and, for text, file:line of the bad record, counted in the text
// written), digest with the library's own error; head before the damage
// prints its rows. Or a file is added outside the Hive folders of the
// others, or in another format: every command exits 1 saying so. No
// command may panic or hang.
func FuzzCLIAgainstLibrary(f *testing.F) {
	for seed := range uint64(testutil.FuzzSeeds(24)) {
		f.Add(seed, uint8(seed%3), seed%4 == 3)
	}
	f.Fuzz(func(t *testing.T, seed uint64, format uint8, damage bool) {
		r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
		kind := int(format % 3)
		files := drawDataset(r, kind)
		root := filepath.Join(t.TempDir(), "data")
		hasHive := files[0].hive != ""
		var all []fzRow            // the rows written, in the order of the dataset
		var model []sources.Record // the rows, as the record sources read them
		var typed []sources.Record // the rows, as -schema types them
		for _, fl := range files {
			path := filepath.Join(root, filepath.FromSlash(fl.rel))
			switch kind {
			case fzParquet:
				testutil.WriteParquet(t, path, fl.rows, 1+r.IntN(4))
			default:
				body := csvText(fl.rows, true)
				if kind == fzJSONL {
					body = jsonlText(fl.rows, fl.keys)
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, compressed(t, body, fl.comp), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for i, row := range fl.rows {
				all = append(all, row)
				model = append(model, fzRecord(row, fl.keys[i], fl.hive, hasHive, kind, false))
				typed = append(typed, fzRecord(row, fl.keys[i], fl.hive, hasHive, kind, true))
			}
		}
		par := 1 + r.IntN(4)
		if damage && r.IntN(3) == 0 {
			checkLayout(t, r, root, files, kind)
			return
		}
		if damage {
			checkDamaged(t, r, root, files, model, kind, par)
			return
		}

		// The library reads the rows written: the oracle for the rest.
		items, err := libRead(root, kind)
		if err != nil {
			t.Fatalf("the library's read: %v", err)
		}
		if len(items) != len(model) {
			t.Fatalf("the library reads %d rows, %d written", len(items), len(model))
		}
		for i, it := range items {
			if got, want := canon(t, it.Value), canon(t, model[i]); got != want {
				t.Fatalf("row %d: the library reads\n%s\nwritten\n%s", i, got, want)
			}
		}
		sum, err := determinism.SumOf[sources.Record](context.Background(), libPipeline(root, kind, 1))
		if err != nil {
			t.Fatal(err)
		}

		// inspect lists every file and counts them (and, from the Parquet
		// footers, the rows).
		want := fmt.Sprintf("\n%d %s files, ", len(files), textNames[[]string{"", "csv", "jsonl"}[kind]])
		if kind == fzParquet {
			want = fmt.Sprintf("\n%d files, %d rows, ", len(files), len(model))
		}
		ins, insErr, insCode := cli(t, "inspect", root)
		switch {
		case kind != fzParquet && len(model) == 0:
			// Text files without records have no schema to infer: inspect
			// says so, as it lists an empty Parquet dataset.
			if insCode != 0 || !strings.Contains(ins, want) || !strings.Contains(ins, "no records: no schema to infer") {
				t.Errorf("inspect of text files without records: exit %d, %s\n%s", insCode, insErr, ins)
			}
		case insCode != 0 || !strings.Contains(ins, want):
			t.Errorf("inspect: exit %d, %s\n%s\nwant it to say %q", insCode, insErr, ins, want)
		default:
			for _, fl := range files {
				if !strings.Contains(ins, fl.rel+"  ") {
					t.Errorf("inspect does not list %s:\n%s", fl.rel, ins)
				}
			}
		}

		if out, errOut, code := cli(t, "digest", "-parallel", strconv.Itoa(par), root); code != 0 || out != fmt.Sprintf("%s  %d rows\n", sum, len(model)) {
			t.Errorf("digest -parallel %d: exit %d, %q%s\nwant %s  %d rows", par, code, out, errOut, sum, len(model))
		}
		if par > 1 {
			want := fmt.Sprintf("ok: parallelism 1 and %d give the same %d rows, digest %s\n", par, len(model), sum)
			if out, errOut, code := cli(t, "verify", "-parallel", strconv.Itoa(par), root); code != 0 || out != want {
				t.Errorf("verify -parallel %d: exit %d, %q%s\nwant %q", par, code, out, errOut, want)
			}
		}

		k := r.IntN(len(model) + 2)
		if out, errOut, code := cli(t, "head", "-n", strconv.Itoa(k), "-json", root); code != 0 || out != jsonLines(t, model[:min(k, len(model))]) {
			t.Errorf("head -n %d -json: exit %d, %s\n%s\nwant\n%s", k, code, errOut, out, jsonLines(t, model[:min(k, len(model))]))
		}

		// reshard by every rank, read back through the library, against
		// the input.
		jsonl := r.IntN(2) == 0
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"reshard", "-out", out, "-parallel", strconv.Itoa(par), "-writers", strconv.Itoa(1 + r.IntN(3)), "-rows-per-file", strconv.Itoa(r.IntN(5))}
		keep, kept := func(fzRow) bool { return true }, len(model)
		var filter []string
		if kind == fzParquet && r.IntN(2) == 0 {
			var text string
			text, keep = drawFilter(r, all)
			filter = []string{"-filter", text}
			kept = 0
			for _, row := range all {
				if keep(row) {
					kept++
				}
			}
		}
		// -rename s=t, then -columns of some of the columns in any order
		// (not with a filter, which names s).
		var picked, project []string
		if filter == nil && r.IntN(3) == 0 {
			pool := []string{"id", "t", "f", "b"}
			if hasHive {
				pool = append(pool, "p")
			}
			r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
			picked = pool[:1+r.IntN(len(pool))]
			project = []string{"-rename", "s=t", "-columns", strings.Join(picked, ",")}
		}
		hiveOut := hasHive && (picked == nil || slices.Contains(picked, "p"))
		args = append(append(args, filter...), project...)
		if jsonl {
			args = append(args, "-format", "jsonl", "-compression", []string{"none", "gzip", "zstd"}[r.IntN(3)])
		} else if kind != fzParquet {
			args = append(args, "-schema", fzSchema(hasHive, picked))
		}
		if r.IntN(3) == 0 { // records rather than column batches
			args = append(args, "-progress-every", "1000000000")
		}
		if r.IntN(3) == 0 {
			args = append(args, "-shuffle-window", strconv.Itoa(1+r.IntN(3)), "-seed", strconv.Itoa(r.IntN(100)))
		}
		world := 1 + r.IntN(3)
		var total int
		for rank := range world {
			args := args
			from := "none"
			if world > 1 || r.IntN(2) == 0 {
				args, from = append(slices.Clip(args), "-rank", strconv.Itoa(rank), "-world", strconv.Itoa(world)), "explicit"
			}
			args = append(args, root)
			stdout, errOut, code := cli(t, args...)
			if code != 0 {
				t.Fatalf("rowflow %s: exit %d, %s", strings.Join(args, " "), code, errOut)
			}
			var n int
			if _, err := fmt.Sscanf(stdout, fmt.Sprintf("rank %d of %d (%s): %%d rows in ", rank, world, from), &n); err != nil {
				t.Fatalf("rowflow %s said %q: %v", strings.Join(args, " "), stdout, err)
			}
			total += n
		}
		if total != kept {
			t.Errorf("the ranks of %q wrote %d rows, want %d", args, total, kept)
		}
		want = fmt.Sprintf("committed %s: %d ranks, ", out, world)
		if c, errOut, code := cli(t, "commit", "-world", strconv.Itoa(world), "-rows", strconv.Itoa(kept), out); code != 0 || !strings.HasPrefix(c, want) || !strings.HasSuffix(c, fmt.Sprintf(" files, %d rows\n", kept)) {
			t.Errorf("commit -world %d -rows %d of %q: exit %d, %q%s", world, kept, args, code, c, errOut)
		}
		if kept == 0 {
			return // no output files: nothing to read back
		}
		if hiveOut { // by default, the output keeps the input's Hive folders
			checkHiveFolders(t, out, args)
		}
		got := readBack(t, out, jsonl)
		rows := model
		if kind != fzParquet && !jsonl {
			rows = typed
		}
		for i, it := range items {
			if !keep(all[i]) {
				continue // a row the filter drops: found below if written
			}
			w := canonSorted(t, fzProjected(rows[i], picked))
			g, ok := got[it.ID]
			switch {
			case !ok:
				t.Errorf("%q at world %d: input row %d (ID %s, %s) is not in the output", args, world, i, it.ID, w)
			case g != w:
				t.Errorf("%q at world %d: row %d (ID %s) reads back\n%s\nwant\n%s", args, world, i, it.ID, g, w)
			}
			delete(got, it.ID)
		}
		for id, g := range got {
			t.Errorf("%q at world %d: the output holds a row of ID %s that the input does not: %s", args, world, id, g)
		}

		// verify -manifest checks every rank's files.
		if v, errOut, code := cli(t, "verify", "-manifest", out); code != 0 || strings.Count(v, ": ok\n") != world {
			t.Errorf("verify -manifest of %q at world %d: exit %d, %q%s", args, world, code, v, errOut)
		}

		// The output resharded again, in its format, keeps its rows' IDs
		// and values (and its Hive folders).
		again := filepath.Join(t.TempDir(), "again")
		args3 := []string{"reshard", "-out", again, "-parallel", strconv.Itoa(1 + r.IntN(3)), "-writers", strconv.Itoa(1 + r.IntN(3)), "-rows-per-file", strconv.Itoa(r.IntN(4))}
		if jsonl {
			args3 = append(args3, "-format", "jsonl")
		}
		if _, errOut, code := cli(t, append(args3, out)...); code != 0 {
			t.Fatalf("rowflow %s: exit %d, %s", strings.Join(append(args3, out), " "), code, errOut)
		}
		if hiveOut {
			checkHiveFolders(t, again, args3)
		}
		first := readBack(t, out, jsonl)
		for id, g := range readBack(t, again, jsonl) {
			if w, ok := first[id]; !ok || g != w {
				t.Errorf("%q of the output of %q: row %s reads back\n%s\nwant\n%s", args3, args, id, g, w)
			}
			delete(first, id)
		}
		for id := range first {
			t.Errorf("%q of the output of %q: row %s is missing", args3, args, id)
		}

		// The output in the other format holds the same rows by ID. (Not
		// for CSV input: its JSON Lines output holds the fields' text, a
		// list's JSON array among them, which verify -against compares as
		// text with the Parquet output's typed values.)
		if kind == fzCSV {
			return
		}
		other := filepath.Join(t.TempDir(), "other")
		args2 := append(append([]string{"reshard", "-out", other, "-parallel", strconv.Itoa(par)}, filter...), project...)
		if !jsonl {
			args2 = append(args2, "-format", "jsonl")
		} else if kind != fzParquet {
			args2 = append(args2, "-schema", fzSchema(hasHive, picked))
		}
		if _, errOut, code := cli(t, append(args2, root)...); code != 0 {
			t.Fatalf("rowflow %s: exit %d, %s", strings.Join(args2, " "), code, errOut)
		}
		want = fmt.Sprintf("ok: %s and %s hold the same %d rows by row ID\n", out, other, kept)
		if v, errOut, code := cli(t, "verify", "-against", other, out); code != 0 || !strings.HasSuffix(v, want) {
			t.Errorf("verify -against of %q and %q: exit %d, %q%s\nwant it to end %q", args, args2, code, v, errOut, want)
		}
	})
}

// drawFilter draws a -filter over the columns of the rows, and returns
// its text and which rows it keeps, by SQL's logic as
// sources/parquet.RowFilter documents it: a comparison with a null, or
// with a NaN float, is neither true nor false, and a row is kept only
// where the filter is true.
func drawFilter(r *rand.Rand, rows []fzRow) (string, func(fzRow) bool) {
	x, f := int64(r.IntN(1000)), 0.5
	if len(rows) > 0 { // literals near the rows' values, and equal to some
		x = rows[r.IntN(len(rows))].ID + int64(r.IntN(3)) - 1
		if row := rows[r.IntN(len(rows))]; row.F != nil && !math.IsNaN(*row.F) && !math.IsInf(*row.F, 0) {
			f = *row.F
		}
	}
	num := func(row fzRow) (float64, bool) {
		if row.F == nil || math.IsNaN(*row.F) {
			return 0, false
		}
		return *row.F, true
	}
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("id >= %d", x), func(row fzRow) bool { return row.ID >= x }
	case 1:
		return fmt.Sprintf("f > %s", strconv.FormatFloat(f, 'g', -1, 64)), func(row fzRow) bool { v, ok := num(row); return ok && v > f }
	case 2:
		return fmt.Sprintf("not (f <= %s)", strconv.FormatFloat(f, 'g', -1, 64)), func(row fzRow) bool { v, ok := num(row); return ok && !(v <= f) }
	case 3:
		return "s = 'a'", func(row fzRow) bool { return row.S != nil && *row.S == "a" }
	case 4:
		// true or null is true; false or null is null.
		return "s != 'a' or b = true", func(row fzRow) bool { return row.S != nil && *row.S != "a" || row.B }
	}
	return fmt.Sprintf("id between %d and %d and b = false", x-1, x+1), func(row fzRow) bool { return row.ID >= x-1 && row.ID <= x+1 && !row.B }
}

// checkHiveFolders checks that every data file that the command line
// args wrote into out lies in a Hive folder p=VALUE.
func checkHiveFolders(t testing.TB, out string, args []string) {
	t.Helper()
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "_") {
			return err
		}
		if rel, _ := filepath.Rel(out, path); !strings.HasPrefix(rel, "p=") {
			t.Errorf("%q: the output file %s is not in a Hive folder p=VALUE, as its input's are", args, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// jsonLines returns recs as head -json writes them: a line of each
// record's JSON.
func jsonLines(t testing.TB, recs []sources.Record) string {
	t.Helper()
	var b strings.Builder
	for _, rec := range recs {
		js, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(js, '\n'))
	}
	return b.String()
}

// checkLayout adds a data file to the dataset at root that makes it one
// that no command reads: a file outside the Hive folders of the others,
// or a file of another format; every command fails, saying why.
func checkLayout(t *testing.T, r *rand.Rand, root string, files []fzFile, kind int) {
	var why string
	switch {
	case files[0].hive != "" && r.IntN(2) == 0:
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(files[0].rel)))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "g-"+filepath.Base(files[0].rel)), b, 0o644); err != nil {
			t.Fatal(err)
		}
		why = "inconsistent partition columns"
	case kind == fzParquet: // beside the first file, in its Hive folder
		if err := os.WriteFile(filepath.Join(root, filepath.Dir(filepath.FromSlash(files[0].rel)), "z.jsonl"), []byte("{\"id\":1}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		why = "holds data files of more than one format"
	default:
		testutil.WriteParquet(t, filepath.Join(root, filepath.Dir(filepath.FromSlash(files[0].rel)), "z.parquet"), []fzRow{{ID: 1}}, 1)
		why = "holds data files of more than one format"
	}
	schema := []string{}
	if kind != fzParquet {
		schema = []string{"-schema", fzSchema(files[0].hive != "", nil)}
	}
	for _, args := range [][]string{
		{"digest", root},
		{"verify", root},
		{"head", "-json", root},
		{"inspect", root},
		append(append([]string{"reshard", "-out", filepath.Join(t.TempDir(), "out")}, schema...), root),
	} {
		if out, errOut, code := cli(t, args...); code != 1 || out != "" || !strings.Contains(errOut, why) {
			t.Errorf("rowflow %s: exit %d, %q, %q; want exit 1 and an error that says %q", strings.Join(args, " "), code, out, errOut, why)
		}
	}
}

// checkDamaged damages one file of the dataset at root, whose records
// model holds, and checks what the commands do with it.
func checkDamaged(t *testing.T, r *rand.Rand, root string, files []fzFile, model []sources.Record, kind int, par int) {
	fi := r.IntN(len(files))
	fl := files[fi]
	path := filepath.Join(root, filepath.FromSlash(fl.rel))
	good := 0 // rows that may read before the damage
	for _, f := range files[:fi] {
		good += len(f.rows)
	}
	var line int // the line the bad record starts on, 0 if none
	if kind == fzParquet || fl.comp != "" && r.IntN(2) == 0 {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, r.Int64N(st.Size())); err != nil {
			t.Fatal(err)
		}
		if kind != fzParquet {
			// The rows whose text decompresses before the cut read
			// (without its footer, a Parquet file gives none).
			good += len(fl.rows)
		}
	} else {
		// Replace record j (or add one after the last) by a record that
		// does not read: in CSV, a bare quote in an unquoted field, or too
		// few or too many fields; in JSON Lines, a line that is not JSON,
		// not an object, or an object with a key twice.
		j := r.IntN(len(fl.rows) + 1)
		b := csvText(fl.rows[:j], true)
		bad := []string{"1,a\"b,2,,true\n", "1,2\n", "1,,,,true,x\n"}
		rest := csvText(fl.rows[min(j+1, len(fl.rows)):], false)
		if kind == fzJSONL {
			b = jsonlText(fl.rows[:j], fl.keys[:j])
			bad = []string{"{\"id\":1,\"s\":\n", "[1,2]\n", "{\"id\":1,\"b\":true,\"id\":2}\n", "\"x\"\n"}
			rest = jsonlText(fl.rows[min(j+1, len(fl.rows)):], fl.keys[min(j+1, len(fl.rows)):])
		}
		line = bytes.Count(b, []byte("\n")) + 1
		b = append(append(b, bad[r.IntN(len(bad))]...), rest...)
		if err := os.WriteFile(path, compressed(t, b, fl.comp), 0o644); err != nil {
			t.Fatal(err)
		}
		good += j
	}
	name := filepath.Base(path)

	// The library's read fails, naming the file, and the line.
	items, libErr := libRead(root, kind)
	if libErr == nil {
		t.Fatalf("the library read the damaged %s without an error (%d rows)", fl.rel, len(items))
	}
	if !strings.Contains(libErr.Error(), name) {
		t.Fatalf("the library's error does not name %s: %v", name, libErr)
	}
	var le *text.LineError
	if line > 0 && (!errors.As(libErr, &le) || le.Path != fl.rel || le.Line != int64(line)) {
		t.Fatalf("the library's error %v, want one of %s line %d", libErr, fl.rel, line)
	}
	if len(items) > good {
		t.Fatalf("the library read %d rows before the damage, which comes after %d", len(items), good)
	}
	where := name
	if line > 0 {
		where = fmt.Sprintf("%s:%d ", fl.rel, line)
	}

	_, libParErr := determinism.SumOf[sources.Record](context.Background(), libPipeline(root, kind, par))
	if libParErr == nil {
		t.Fatalf("the library's digest at parallelism %d of the damaged %s has no error", par, fl.rel)
	}
	if out, errOut, code := cli(t, "digest", "-parallel", strconv.Itoa(par), root); code != 1 || out != "" || errOut != "rowflow digest: "+inCommandTerms(libParErr)+"\n" || !strings.Contains(errOut, where) {
		t.Errorf("digest -parallel %d of the damaged %s: exit %d, %q, %q; want exit 1 and the library's error %v, naming %q", par, fl.rel, code, out, errOut, libParErr, where)
	}
	if par > 1 {
		if _, errOut, code := cli(t, "verify", "-parallel", strconv.Itoa(par), root); code != 1 || !strings.Contains(errOut, where) {
			t.Errorf("verify -parallel %d of the damaged %s: exit %d, %q; want exit 1 and an error naming %q", par, fl.rel, code, errOut, where)
		}
	}

	// head: rows from before the damage, or an error naming it; an
	// error when it is asked for more.
	k := r.IntN(len(model) + 2)
	out, errOut, code := cli(t, "head", "-n", strconv.Itoa(k), "-json", root)
	switch {
	case code != 0 || k > good:
		if code != 1 || out != "" || !strings.Contains(errOut, where) {
			t.Errorf("head -n %d -json of the damaged %s (after %d rows): exit %d, %q, %q; want exit 1 and an error naming %q", k, fl.rel, good, code, out, errOut, where)
		}
	case out != jsonLines(t, model[:k]):
		t.Errorf("head -n %d -json of the damaged %s:\n%s\nwant\n%s", k, fl.rel, out, jsonLines(t, model[:k]))
	}

	args := []string{"reshard", "-out", filepath.Join(t.TempDir(), "out"), "-parallel", strconv.Itoa(par), "-writers", strconv.Itoa(1 + r.IntN(3))}
	if r.IntN(2) == 0 {
		args = append(args, "-format", "jsonl")
	} else if kind != fzParquet {
		args = append(args, "-schema", fzSchema(files[0].hive != "", nil))
	}
	args = append(args, root)
	if _, errOut, code := cli(t, args...); code != 1 || !strings.Contains(errOut, where) {
		t.Errorf("rowflow %s of the damaged %s: exit %d, %q; want exit 1 and an error naming %q", strings.Join(args, " "), fl.rel, code, errOut, where)
	}
}
