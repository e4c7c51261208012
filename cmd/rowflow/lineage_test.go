package main_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
)

var (
	tripleJSON = regexp.MustCompile(`"row_id_key1":(\d+),"row_id_key2":(\d+),"row_id_ord":(\d+)`)
	halvesJSON = regexp.MustCompile(`"row_id_hi":(\d+),"row_id_lo":(\d+)`)
)

// withIDs returns the JSON Lines of head -json with the row-ID columns of
// either form replaced by "row_id":"<the ID>", so that outputs whose rows
// have the same IDs read the same, however each writer encoded them.
func withIDs(t *testing.T, jsonl string) string {
	t.Helper()
	word := func(s string) uint64 {
		u, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("row-ID word %q: %v", s, err)
		}
		return u
	}
	jsonl = tripleJSON.ReplaceAllStringFunc(jsonl, func(m string) string {
		w := tripleJSON.FindStringSubmatch(m)
		return `"row_id":"` + shards.RowID(word(w[1]), word(w[2]), word(w[3])).String() + `"`
	})
	return halvesJSON.ReplaceAllStringFunc(jsonl, func(m string) string {
		w := halvesJSON.FindStringSubmatch(m)
		return `"row_id":"` + rowid.ID{Hi: word(w[1]), Lo: word(w[2])}.String() + `"`
	})
}
