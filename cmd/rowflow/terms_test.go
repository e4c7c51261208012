package main_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goOption matches a Go option of the library as its errors name it,
// such as RowIDColumn("row_id"), World(0) or ExpectRows.
var goOption = regexp.MustCompile(`\b(Explicit|World|Rank|RowIDColumn|ExpectRows|Overwrite|Codec|Compression)\b(\(|\s+says)`)

// The errors of library options that the command sets from its flags name
// the flags, not the Go options.
func TestErrorsNameFlagsNotGoOptions(t *testing.T) {
	data := eightEvents(t)
	dir := t.TempDir()
	parquetOut := filepath.Join(dir, "pq")
	must(t, nil, "reshard", "-out", parquetOut, data)
	jsonlOut := filepath.Join(dir, "jsonl")
	must(t, nil, "reshard", "-out", jsonlOut, "-format", "jsonl", data)
	for _, c := range []struct {
		env  []string
		args []string
		code int
		msg  string
	}{
		{nil, []string{"commit", "-world", "1", "-rows", "5", parquetOut}, 1, "the ranks wrote 8 rows in all, -rows says 5"},
		// With one row-ID column of two, the input's IDs are not kept, and
		// the output's row-ID columns clash with it.
		{nil, []string{"reshard", "-out", filepath.Join(dir, "again-pq"), "-columns", "id,row_id_ord", parquetOut}, 1, `-row-id-column "row_id": the schema already has a column "row_id_ord"`},
		{nil, []string{"reshard", "-out", filepath.Join(dir, "again-jsonl"), "-format", "jsonl", "-columns", "id,row_id_hi", jsonlOut}, 1, `-row-id-column "row_id": the record already has a column "row_id_hi"`},
		{[]string{"JOB_COMPLETION_INDEX=1"}, []string{"reshard", "-out", filepath.Join(dir, "k8s"), data}, 2, "give the Job's completion count with -completions N"},
		{nil, []string{"reshard", "-out", filepath.Join(dir, "x"), "-rank", "3", "-world", "2", data}, 2, "-rank 3 -world 2"},
		{nil, []string{"reshard", "-out", filepath.Join(dir, "x"), "-world", "2", data}, 2, "-rank and -world come together"},
		{nil, []string{"reshard", "-out", filepath.Join(dir, "x"), "-completions", "-1", data}, 2, "-completions -1: must be at least 1"},
	} {
		_, errOut, code := rowflow(t, c.env, c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("rowflow %s: exit %d, %q; want exit %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.msg)
		}
		if m := goOption.FindString(errOut); m != "" {
			t.Errorf("rowflow %s: the error names the Go option %q: %s", strings.Join(c.args, " "), m, errOut)
		}
	}
}
