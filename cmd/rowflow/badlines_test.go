package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReshardSkipsBadLines: with -bad-lines skip, reshard of a JSON Lines
// dataset with two bad records writes the others, lists the two in
// _bad-lines-<rank>.json beside the output, and the commit passes;
// without it the run fails naming the file and line; Parquet input
// refuses the flag.
func TestReshardSkipsBadLines(t *testing.T) {
	in := t.TempDir()
	var b strings.Builder
	for i := range 500 {
		switch i {
		case 100:
			b.WriteString("{broken\n")
		case 300:
			b.WriteString("[1,2]\n")
		default:
			fmt.Fprintf(&b, "{\"id\":%d}\n", i)
		}
	}
	writeFiles(t, in, map[string]string{"a.jsonl": b.String()})
	schema := "id:int64"

	out := filepath.Join(t.TempDir(), "out")
	if _, errOut, code := rowflow(t, nil, "reshard", "-schema", schema, "-out", out, in); code != 1 || !strings.Contains(errOut, "a.jsonl") || !strings.Contains(errOut, "a.jsonl:101 (byte 990)") {
		t.Fatalf("without -bad-lines skip: exit %d, %q", code, errOut)
	}

	out = filepath.Join(t.TempDir(), "out")
	got := must(t, nil, "reshard", "-bad-lines", "skip", "-schema", schema, "-out", out, in)
	if !strings.Contains(got, ": 498 rows in ") {
		t.Fatalf("reshard -bad-lines skip: %q", got)
	}
	raw, err := os.ReadFile(filepath.Join(out, "_bad-lines-00000.json"))
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Lines []struct {
			Path string
			Line int64
		}
		Omitted int64
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatal(err)
	}
	if len(report.Lines) != 2 || report.Lines[0].Path != "a.jsonl" || report.Lines[0].Line != 101 || report.Lines[1].Line != 301 || report.Omitted != 0 {
		t.Fatalf("the report: %s", raw)
	}
	must(t, nil, "commit", "-world", "1", "-rows", "498", out)

	pq := t.TempDir()
	must(t, nil, "reshard", "-schema", schema, "-bad-lines", "skip", "-out", pq, in)
	if _, errOut, code := rowflow(t, nil, "reshard", "-bad-lines", "skip", "-out", filepath.Join(t.TempDir(), "o"), pq); code != 2 || !strings.Contains(errOut, "-bad-lines skip reads CSV and JSON Lines only") {
		t.Fatalf("Parquet input with -bad-lines skip: exit %d, %q", code, errOut)
	}
	if _, errOut, code := rowflow(t, nil, "reshard", "-bad-lines", "maybe", "-schema", schema, "-out", filepath.Join(t.TempDir(), "o"), in); code != 2 || !strings.Contains(errOut, "want fail or skip") {
		t.Fatalf("-bad-lines maybe: exit %d, %q", code, errOut)
	}
}
