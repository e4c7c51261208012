package sinks_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

func words(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("w", i%11)
	}
	return out
}

func TestDigest(t *testing.T) {
	ctx := context.Background()
	vals := words(5000)
	want := determinism.NewHasher[string]()
	for i, v := range vals {
		want.Add(rowid.Ordinal(uint64(i)).Combine(rowid.FromString("slice")), v)
	}
	// The partition size changes the partition numbers, not the digest; the
	// parallelism changes neither.
	for _, size := range []int{1, 100, 5000} {
		for _, n := range []int{1, 3} {
			var got determinism.Sum
			p := flow.From(sources.Slice(vals, sources.PartitionItems(size), sources.ChunkSize(64))).
				Via(operators.Map(func(s string) (string, error) { return s, nil })).Parallel(n).
				To(sinks.Digest[string](&got))
			if err := p.Run(ctx); err != nil {
				t.Fatal(err)
			}
			if got != want.Sum() {
				t.Errorf("partition size %d, parallelism %d: digest %v (%d items), want %v (%d items)",
					size, n, got, got.Count, want.Sum(), want.Sum().Count)
			}
		}
	}

	var empty determinism.Sum
	if err := flow.From(sources.Slice([]string{})).To(sinks.Digest[string](&empty)).Run(ctx); err != nil {
		t.Fatal(err)
	}
	if empty != determinism.NewHasher[string]().Sum() {
		t.Errorf("empty stream: digest %v", empty)
	}
}

// TestDigestOnSuccessOnly checks that a failed run leaves the destination
// as it was.
func TestDigestOnSuccessOnly(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	before := determinism.Sum{Count: -1}
	got := before
	failing := flow.From(sources.Generate(1000, func(i int64) (int64, error) {
		if i == 900 {
			return 0, boom
		}
		return i, nil
	}, sources.PartitionItems(100))).Parallel(2).To(sinks.Digest[int64](&got))
	if err := failing.Run(ctx); !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want boom", err)
	}
	if got != before {
		t.Errorf("a failed run stored %v", got)
	}

	// Take ends the stream early and successfully: the digest covers what
	// was taken.
	taken := flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil })).
		Via(operators.Take[int64](10)).To(sinks.Digest[int64](&got))
	if err := taken.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want := determinism.NewHasher[int64]()
	for i := range int64(10) {
		want.Add(rowid.Ordinal(uint64(i)).Combine(rowid.FromString("generate")), i)
	}
	if got != want.Sum() {
		t.Errorf("after Take(10): %v (%d items), want %v", got, got.Count, want.Sum())
	}
}

func TestDigestUnencodable(t *testing.T) {
	ctx := context.Background()
	var got determinism.Sum
	err := flow.From(sources.Slice([]func(){nil})).To(sinks.Digest[func()](&got)).Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "no encoding") {
		t.Errorf("digest of funcs: Run = %v", err)
	}
	err = flow.From(sources.Slice([]func(){})).To(sinks.Digest[func()](&got)).Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "no encoding") {
		t.Errorf("digest of no funcs: Run = %v", err)
	}
	err = flow.From(sources.Slice([]any{1, make(chan int)})).To(sinks.Digest[any](&got)).Run(ctx)
	var se *flow.StageError
	if !errors.As(err, &se) || se.Stage != "digest" || !strings.Contains(err.Error(), "chan int") {
		t.Errorf("digest of a chan in an interface: Run = %v", err)
	}
	if got != (determinism.Sum{}) {
		t.Errorf("a failed run stored %v", got)
	}
}
