package determinism

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rowflow/rowflow/flow"
)

// ErrMismatch is wrapped by the error [Check] returns when the stream's
// digest differs from the recorded one.
var ErrMismatch = errors.New("determinism: digest differs from the recorded one")

// SumOf runs p, which must have no sink and produce values of type T, and
// returns the digest of its stream. If T has no encoding (see
// [Encodable]), it returns that error without running p.
func SumOf[T any](ctx context.Context, p *flow.Pipeline) (Sum, error) {
	if err := Encodable[T](); err != nil {
		return Sum{}, err
	}
	h := NewHasher[T]()
	for c, err := range flow.Chunks[T](ctx, p) {
		if err != nil {
			return Sum{}, err
		}
		err := h.TryAddChunk(&c)
		c.Release()
		if err != nil {
			return Sum{}, err
		}
	}
	return h.Sum(), nil
}

// Record runs p as [SumOf] does and writes the digest to the file at path,
// replacing it, as one line: the hash in hexadecimal, a space, the item
// count. It writes nothing if the run fails.
func Record[T any](ctx context.Context, p *flow.Pipeline, path string) (Sum, error) {
	sum, err := SumOf[T](ctx, p)
	if err != nil {
		return Sum{}, err
	}
	if err := os.WriteFile(path, []byte(fmt.Sprintf("%v %d\n", sum, sum.Count)), 0o644); err != nil {
		return Sum{}, fmt.Errorf("determinism: %w", err)
	}
	return sum, nil
}

// Check runs p as [SumOf] does and compares the digest with the one that
// [Record] wrote to the file at path. If they differ, the error wraps
// [ErrMismatch] and gives both.
func Check[T any](ctx context.Context, p *flow.Pipeline, path string) error {
	want, err := readSum(path)
	if err != nil {
		return err
	}
	got, err := SumOf[T](ctx, p)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("%w: the stream has %v (%d items), %s records %v (%d items)",
			ErrMismatch, got, got.Count, path, want, want.Count)
	}
	return nil
}

// readSum reads a file written by Record.
func readSum(path string) (Sum, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Sum{}, fmt.Errorf("determinism: %w", err)
	}
	bad := func() (Sum, error) {
		return Sum{}, fmt.Errorf("determinism: %s: not a recorded digest (want 64 hex digits, a space and a count)", path)
	}
	hash, count, ok := strings.Cut(strings.TrimSuffix(string(data), "\n"), " ")
	var s Sum
	if !ok || len(hash) != 2*len(s.Hash) {
		return bad()
	}
	if _, err := hex.Decode(s.Hash[:], []byte(hash)); err != nil {
		return bad()
	}
	if s.Count, err = strconv.ParseInt(count, 10, 64); err != nil || s.Count < 0 {
		return bad()
	}
	return s, nil
}
