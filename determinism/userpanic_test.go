package determinism_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// brokenDigest's AppendDigest dereferences a nil pointer for odd values:
// a user's bug, not a value that cannot be encoded.
type brokenDigest struct {
	N int
	p *int
}

func (b *brokenDigest) AppendDigest(out []byte) []byte {
	if b.N%2 == 1 {
		return append(out, byte(*b.p))
	}
	return append(out, byte(b.N))
}

// TestUserPanicsAreNotEncodingErrors: a runtime panic in a user's
// AppendDigest is not taken for a value that cannot be encoded: AddChunk
// and Compare, which encode in the caller's goroutine, let it go on to the
// caller with its stack, instead of returning it as a plain data error
// (Compare once reported the two pipelines as equal up to it).
func TestUserPanicsAreNotEncodingErrors(t *testing.T) {
	wantPanic := func(name string, f func() error) {
		t.Helper()
		defer func() {
			r := recover()
			if err, ok := r.(error); !ok || !strings.Contains(err.Error(), "nil pointer dereference") {
				t.Fatalf("%s: panic %v, want the runtime's nil dereference", name, r)
			}
		}()
		err := f()
		t.Fatalf("%s returned %v instead of letting the panic go on", name, err)
	}
	h := determinism.NewHasher[brokenDigest]()
	c := flow.Chunk[brokenDigest]{IDs: flow.ListIDs([]rowid.ID{{}}), Values: []brokenDigest{{N: 1}}}
	wantPanic("AddChunk", func() error { return determinism.AddChunk(h, &c) })
	p := func() *flow.Pipeline { return flow.From(sources.Slice([]brokenDigest{{N: 0}, {N: 1}})) }
	wantPanic("Compare", func() error { return determinism.Compare[brokenDigest](context.Background(), p(), p()) })
}
