package parquet_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

type idText struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
}

// renameDataset writes a file with the columns id and text.
func renameDataset(t *testing.T) (root, file string) {
	root = t.TempDir()
	file = filepath.Join(root, "a.parquet")
	testutil.WriteParquet(t, file, []idText{{1, "x"}, {2, "y"}}, 10)
	return root, file
}

// runSource runs a pipeline that reads src and returns its error.
func runSource[T any](src flow.Source[T]) error {
	var out []T
	return flow.From(src).To(sinks.CollectValues(&out)).Run(context.Background())
}

// A Rename that would give a file column the name of another column, or
// that names a column the file does not have, fails the run with an error
// that names the file and the column, instead of dropping a column or
// doing nothing.
func TestRenameCollisionAndUnknownColumn(t *testing.T) {
	root, file := renameDataset(t)
	run := runSource[sources.Record]
	for _, tc := range []struct {
		name string
		err  error
		msg  string
	}{
		{"records collision", run(parquet.Read[sources.Record](root, parquet.Rename("text", "id"))),
			`Rename("text", "id"): the file already has a column "id"`},
		{"records unknown", run(parquet.Read[sources.Record](root, parquet.Rename("txet", "body"))),
			`Rename("txet", "body"): the file has no column "txet" (columns: id, text)`},
		{"columns collision", runSource(parquet.Read[*parquet.ColumnBatch](root, parquet.Rename("id", "text"))), `Rename("id", "text"): the file already has a column "text"`},
		{"struct unknown", runSource(parquet.Read[idText](root, parquet.Rename("txet", "body"))), `Rename("txet", "body"): the file has no column "txet"`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.msg) || !strings.Contains(tc.err.Error(), file) {
			t.Errorf("%s: error %v, want one that names %s and says %q", tc.name, tc.err, file, tc.msg)
		}
	}

	// Renaming both columns of a swap is no collision.
	got := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, parquet.Rename("text", "id"), parquet.Rename("id", "text"))))
	var names [][]string
	var vals [][]any
	for _, r := range got {
		names = append(names, r.Value.Names)
		vals = append(vals, r.Value.Values)
	}
	if want := [][]string{{"text", "id"}, {"text", "id"}}; !reflect.DeepEqual(names, want) {
		t.Errorf("swapped names %v, want %v", names, want)
	}
	if want := [][]any{{int64(1), "x"}, {int64(2), "y"}}; !reflect.DeepEqual(vals, want) {
		t.Errorf("swapped values %v, want %v", vals, want)
	}
}
