package rowid

import (
	"fmt"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil/longtest"
)

// group names a run of IDs in the acceptable set: ids[previous end:end].
type group struct {
	name string
	end  int
}

// acceptableSet builds about 10.2 million IDs the way a pipeline would,
// following each rule of the package documentation, and keeps every stage's
// inputs as well as its outputs:
//
//   - rule 1, whole-file ordinals: 8 files of 500,000 rows;
//   - rule 1, per-partition ordinals: 4 other files of 8 partitions of
//     62,500 rows, each partition with the scope file.Combine(Ordinal(p));
//   - rule 3, flat-map: the first 31,250 rows of each of those 8 files have
//     1 to 15 outputs each (id.Fork(), then Next), 8 on average;
//   - rule 4, mixing: the rows of the first 4 whole-file files, each combined
//     with the ID of the input it belongs to (two files per input);
//   - rule 5, batching: the rows of the last 4 whole-file files folded in
//     batches of 1 to 16 consecutive rows into a fixed operator ID.
func acceptableSet() ([]ID, []group) {
	const (
		files         = 8
		rowsPerFile   = 500_000
		partFiles     = 4
		parts         = 8
		rowsPerPart   = 62_500
		parentsInFile = 31_250
	)
	ids := make([]ID, 0, 10_300_000)
	var groups []group
	mark := func(format string, args ...any) {
		groups = append(groups, group{fmt.Sprintf(format, args...), len(ids)})
	}

	// Rule 1, whole-file ordinals.
	fileRows := make([][]ID, files)
	for f := range files {
		start := len(ids)
		c := NewCombiner(FromString(fmt.Sprintf("data/part-%04d.parquet", f)))
		for i := range uint64(rowsPerFile) {
			ids = append(ids, c.Combine(Ordinal(i)))
		}
		fileRows[f] = ids[start:len(ids):len(ids)]
		mark("rule 1: file %d", f)
	}

	// Rule 1, per-partition ordinals.
	for f := range partFiles {
		file := FromString(fmt.Sprintf("csv/chunk-%04d.csv", f))
		for p := range uint64(parts) {
			c := NewCombiner(file.Combine(Ordinal(p)))
			for i := range uint64(rowsPerPart) {
				ids = append(ids, c.Combine(Ordinal(i)))
			}
			mark("rule 1: csv file %d partition %d", f, p)
		}
	}

	// Rule 3, 1:N.
	for f := range files {
		for j, parent := range fileRows[f][:parentsInFile] {
			out := parent.Fork()
			for range 1 + j%15 {
				ids = append(ids, out)
				out = out.Next()
			}
		}
		mark("rule 3: flat-map of file %d", f)
	}

	// Rule 4, several inputs.
	for f := range 4 {
		c := NewCombiner(FromString(fmt.Sprintf("input-%d", f/2)))
		for _, id := range fileRows[f] {
			ids = append(ids, c.Combine(id))
		}
		mark("rule 4: file %d mixed as input %d", f, f/2)
	}

	// Rule 5, N:1.
	op := FromString("op/batch")
	for f := 4; f < files; f++ {
		rows := fileRows[f]
		for n := 0; len(rows) > 0; n++ {
			size := min(1+n%16, len(rows))
			acc := op
			for _, m := range rows[:size] {
				acc = acc.Combine(m)
			}
			ids = append(ids, acc)
			rows = rows[size:]
		}
		mark("rule 5: batches of file %d", f)
	}
	return ids, groups
}

func TestAcceptableSetHasNoCollisions(t *testing.T) {
	longtest.Require(t)
	ids, _ := acceptableSet()
	if len(ids) < 10_000_000 {
		t.Fatalf("built %d IDs, want at least 10 million", len(ids))
	}
	slices.SortFunc(ids, ID.Compare)
	var dups []ID
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] && (len(dups) == 0 || dups[len(dups)-1] != ids[i]) {
			dups = append(dups, ids[i])
		}
	}
	if len(dups) == 0 {
		return
	}
	// Rebuild the set, unsorted, to say where the duplicates come from.
	ids, groups := acceptableSet()
	for _, d := range dups[:min(len(dups), 10)] {
		var where []string
		g := 0
		for i, id := range ids {
			for i >= groups[g].end {
				g++
			}
			if id == d {
				where = append(where, fmt.Sprintf("%s (index %d)", groups[g].name, i))
			}
		}
		t.Errorf("ID %v occurs %d times: %v", d, len(where), where)
	}
	t.Fatalf("%d of %d IDs collide", len(dups), len(ids))
}
