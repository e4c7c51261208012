package duckdb

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// messyCSV writes n rows of generated messy CSV to good (what DuckDB
// reads) and the same rows with bad records among them to messy (what
// rowflow reads with -bad-lines skip): fields with commas, quotes, line
// breaks and non-ASCII text, empty fields, timestamps in two zones,
// integers, floats, and records with a field too many. It returns the
// number of bad records.
func messyCSV(t *testing.T, good, messy string, n int) int {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	words := []string{"plain", "a, comma", `a "quote"`, "two\nlines", "ünïcödé", "", "  spaces  "}
	langs := []string{"en", "fr", "de", ""}
	var g, m strings.Builder
	gw, mw := csv.NewWriter(&g), csv.NewWriter(&m)
	header := []string{"id", "name", "score", "ts", "lang"}
	gw.Write(header)
	mw.Write(header)
	bad := 0
	base := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range n {
		score := ""
		if r.IntN(5) > 0 {
			score = fmt.Sprint(float64(r.IntN(20000)-10000) / 100)
		}
		ts := ""
		switch r.IntN(3) {
		case 0:
			ts = base.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		case 1:
			ts = base.Add(time.Duration(i) * time.Minute).In(time.FixedZone("", -5*3600)).Format("2006-01-02 15:04:05-07:00")
		}
		rec := []string{fmt.Sprint(i), words[r.IntN(len(words))], score, ts, langs[r.IntN(len(langs))]}
		gw.Write(rec)
		mw.Write(rec)
		if i%397 == 5 {
			mw.Write(append(rec[:len(rec):len(rec)], "extra"))
			bad++
		}
	}
	gw.Flush()
	mw.Flush()
	if err := os.WriteFile(good, []byte(g.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(messy, []byte(m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestDuckDBMessyCSVReshard runs the command on generated messy CSV with
// the ETL flags (-schema auto, -rename, -columns, -partition-by,
// -bad-lines skip) and has DuckDB compare rowflow's Parquet output with
// its own read_csv of the same rows: the same rows, types and nulls.
func TestDuckDBMessyCSVReshard(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	good, messy := filepath.Join(dir, "good.csv"), filepath.Join(dir, "in", "messy.csv")
	os.MkdirAll(filepath.Dir(messy), 0o755)
	const n = 3000
	bad := messyCSV(t, good, messy, n)
	bin := filepath.Join(dir, "rowflow")
	build := exec.Command("go", "build", "-o", bin, "./cmd/rowflow")
	build.Dir = filepath.Join("..", "..", "..") // rowflow's own module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the command: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "reshard", "-out", out, "-schema", "auto", "-rename", "name=title",
		"-columns", "id,title,score,ts,lang", "-partition-by", "lang", "-bad-lines", "skip", "-parallel", "3", filepath.Dir(messy))
	stdout, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("reshard: %v\n%s", err, stderr)
	}
	if !strings.Contains(string(stdout), fmt.Sprintf(": %d rows in ", n)) {
		t.Fatalf("reshard said %q; want %d rows", stdout, n)
	}
	raw, err := os.ReadFile(filepath.Join(out, "_bad-lines-00000.json"))
	if err != nil {
		t.Fatal(err)
	}
	var report struct{ Lines []json.RawMessage }
	if err := json.Unmarshal(raw, &report); err != nil || len(report.Lines) != bad {
		t.Fatalf("the bad-lines report lists %d records (%v), want %d: %s", len(report.Lines), err, bad, raw)
	}

	db := openDuckDB(t)
	ours := `SELECT id, title, score, ts, lang FROM read_parquet('` + filepath.Join(out, "*", "*.parquet") + `', hive_partitioning = false)`
	theirs := `SELECT id, name AS title, score, ts, lang FROM read_csv('` + good + `', header = true, columns = {
		'id': 'BIGINT', 'name': 'VARCHAR', 'score': 'DOUBLE', 'ts': 'TIMESTAMPTZ', 'lang': 'VARCHAR'})`
	var diff, rows int
	var types string
	q := `SELECT (SELECT count(*) FROM ((` + ours + `) EXCEPT ALL (` + theirs + `))) + (SELECT count(*) FROM ((` + theirs + `) EXCEPT ALL (` + ours + `))),
		(SELECT count(*) FROM (` + ours + `)),
		(SELECT concat_ws(',', typeof(id), typeof(title), typeof(score), typeof(ts), typeof(lang)) FROM (` + ours + `) LIMIT 1)`
	if err := db.QueryRow(q).Scan(&diff, &rows, &types); err != nil {
		t.Fatal(err)
	}
	if diff != 0 || rows != n {
		t.Errorf("DuckDB reads %d rows of rowflow's output, %d of them different from its read_csv of the same rows", rows, diff)
	}
	if types != "BIGINT,VARCHAR,DOUBLE,TIMESTAMP WITH TIME ZONE,VARCHAR" {
		t.Errorf("the output's types, as DuckDB reads them: %s", types)
	}
	var nullLangs int
	if err := db.QueryRow(`SELECT count(*) FROM read_parquet('` + filepath.Join(out, "lang=__HIVE_DEFAULT_PARTITION__", "*.parquet") + `') WHERE lang IS NULL`).Scan(&nullLangs); err != nil || nullLangs == 0 {
		t.Errorf("the default partition holds %d rows with a null lang (%v)", nullLangs, err)
	}
}
