package testutil

import (
	"context"
	"reflect"
	"testing"

	"github.com/rowflow/rowflow/flow"
)

// Items runs p and returns its items, failing the test on an error.
func Items[T any](t testing.TB, p *flow.Pipeline) []flow.Item[T] {
	t.Helper()
	var out []flow.Item[T]
	for it, err := range flow.Items[T](context.Background(), p) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// SameRows reports whether a and b hold the same rows (IDs and values) in
// the same order, whatever their partition numbers: the ranks of a run
// number the parts of a partition they share apart.
func SameRows[T any](a, b []flow.Item[T]) bool {
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
