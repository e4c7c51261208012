package main_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/sinks/shards"
)

// TestReshardBatchesAsRecords: reshard moves a Parquet input, and a CSV
// or JSON Lines input with a schema, as column batches unless it needs
// records;
// -progress-every needs records, so a run with it writes through records. With filters, renames,
// writers and file sizes, the two write the same files, their
// pipelines' fingerprints aside.
func TestReshardBatchesAsRecords(t *testing.T) {
	type row struct {
		ID    int64    `parquet:"id"`
		Name  *string  `parquet:"name,optional"`
		Score float64  `parquet:"score"`
		Tags  []string `parquet:"tags,list"`
	}
	in := t.TempDir()
	for f := range 2 {
		rows := make([]row, 3000)
		for i := range rows {
			rows[i] = row{ID: int64(f*5000 + i), Score: float64(i%100) / 10, Tags: strings.Fields(strings.Repeat("t ", i%3))}
			if i%5 != 0 {
				s := fmt.Sprint("n", i%17)
				rows[i].Name = &s
			}
		}
		if err := pq.WriteFile(filepath.Join(in, fmt.Sprintf("f%d.parquet", f)), rows, pq.MaxRowsPerRowGroup(1000)); err != nil {
			t.Fatal(err)
		}
	}
	csv := filepath.Join(t.TempDir(), "in.csv")
	var b strings.Builder
	b.WriteString("id,score,name,tags,when\n")
	for i := range 4000 {
		fmt.Fprintf(&b, "%d,%d.5,n%d,\"[%d,%d]\",2024-03-%02d\n", i, i%300, i%11, i, i%7, 1+i%28)
		if i%9 == 0 {
			b.WriteString(",,,,\n") // a row of nulls
		}
	}
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// Progress lines count the batches as they go, and the rows at the end.
	_, errOut, code := rowflow(t, nil, "reshard", "-progress", "-out", filepath.Join(t.TempDir(), "p"), in)
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); code != 0 || !strings.Contains(errOut, " batches/s") ||
		!strings.HasPrefix(lines[len(lines)-1], "reshard: 6000/6000 rows, ") || !strings.HasSuffix(lines[len(lines)-1], ", done") {
		t.Fatalf("reshard -progress: exit %d, %q", code, errOut)
	}
	jsonl := filepath.Join(t.TempDir(), "in.jsonl")
	var j strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&j, `{"id":%d,"score":%d.5,"name":"n%d","tags":[%d,%d],"when":"2024-03-%02d"}`+"\n", i, i%300, i%11, i, i%7, 1+i%28)
		if i%9 == 0 {
			j.WriteString(`{"id":null,"tags":null}` + "\n") // a row of nulls
		}
	}
	j.WriteString("{\"id\":1,\"name\":\"x\",\n") // a line that is not JSON
	if err := os.WriteFile(jsonl, []byte(j.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv") // a record of too many fields, and one of a bad quote
	if err := os.WriteFile(bad, []byte(b.String()+"1,2,3,4,5,6\n7,\"x,y,z,2024-01-01\n8,1.5,n,[],2024-01-02\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-schema", "id:int64,score:float64,name:string,tags:[]int32,when:date", csv},
		{"-schema", "id:int64,score:float64,name:string,tags:[]int32,when:date", "-bad-lines", "skip", bad},
		{"-schema", "auto", "-writers", "2", "-rows-per-file", "900", csv},
		{"-schema", "id:int64,score:float64,name:string,tags:[]int32,when:date", "-bad-lines", "skip", "-writers", "2", jsonl},
		nil,
		{"-filter", "score < 2.5 or id > 6000"},
		{"-rename", "name=label", "-writers", "2", "-rows-per-file", "700"},
		{"-row-id-column", "", "-compression", "snappy", "-shuffle-window", "3", "-seed", "5"},
	} {
		cols, recs := filepath.Join(t.TempDir(), "c"), filepath.Join(t.TempDir(), "r")
		if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".csv") && !strings.HasSuffix(args[len(args)-1], ".jsonl") { // the Parquet input
			args = append(args, in)
		}
		must(t, nil, append([]string{"reshard", "-out", cols}, args...)...)
		must(t, nil, append([]string{"reshard", "-out", recs, "-progress-every", "1000000000"}, args...)...)
		mc, err := shards.ReadManifest(cols, 0)
		if err != nil {
			t.Fatal(err)
		}
		mr, err := shards.ReadManifest(recs, 0)
		if err != nil {
			t.Fatal(err)
		}
		if mc.Fingerprint == mr.Fingerprint || mc.Rows != mr.Rows || mc.Rows == 0 || len(mc.Files) != len(mr.Files) {
			t.Fatalf("%q: batches wrote %d rows in %d files (fingerprint %s), records %d in %d (%s)",
				args, mc.Rows, len(mc.Files), mc.Fingerprint, mr.Rows, len(mr.Files), mr.Fingerprint)
		}
		for _, f := range mr.Files {
			want, err := os.ReadFile(filepath.Join(recs, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(cols, f.Path))
			if err != nil {
				t.Fatal(err)
			}
			if got = bytes.ReplaceAll(got, []byte(mc.Fingerprint), []byte(mr.Fingerprint)); !bytes.Equal(got, want) {
				t.Fatalf("%q: %s differs", args, f.Path)
			}
		}
	}
}
