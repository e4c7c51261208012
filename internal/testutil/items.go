package testutil

import (
	"context"
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
