package sources_test

import (
	"reflect"

	"github.com/rowflow/rowflow/flow"
)

// sameRows reports whether a and b hold the same rows (IDs and values) in
// the same order, whatever their partition numbers: the ranks of a run
// number the parts of a partition they share apart.
func sameRows[T any](a, b []flow.Item[T]) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || !reflect.DeepEqual(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}
