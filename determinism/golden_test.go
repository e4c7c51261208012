package determinism_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
)

func TestRecordCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stream.digest")
	p := func(n int64) *flow.Pipeline { return flow.From(counting(n, sources.PartitionSize(7))).Parallel(3) }

	sum, err := determinism.Record[int64](ctx, p(100), path)
	if err != nil {
		t.Fatal(err)
	}
	want := sumOf(idsOf("generate", 100), seq(100))
	if sum != want {
		t.Errorf("Record = %v, want %v", sum, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), want.String()+" 100\n"; got != want {
		t.Errorf("file holds %q, want %q", got, want)
	}
	if err := determinism.Check[int64](ctx, p(100), path); err != nil {
		t.Errorf("Check of the same stream: %v", err)
	}
	err = determinism.Check[int64](ctx, p(99), path)
	if !errors.Is(err, determinism.ErrMismatch) || !strings.Contains(err.Error(), "(99 items)") ||
		!strings.Contains(err.Error(), want.String()+" (100 items)") {
		t.Errorf("Check of another stream: %v", err)
	}

	for name, content := range map[string]string{
		"empty":     "",
		"no count":  want.String() + "\n",
		"short":     "abc 3\n",
		"not hex":   strings.Repeat("z", 64) + " 3\n",
		"bad count": want.String() + " -1\n",
	} {
		bad := filepath.Join(t.TempDir(), "bad")
		if err := os.WriteFile(bad, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := determinism.Check[int64](ctx, p(100), bad); err == nil || errors.Is(err, determinism.ErrMismatch) {
			t.Errorf("%s file: Check = %v, want a format error", name, err)
		}
	}
	if err := determinism.Check[int64](ctx, p(100), filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: Check = %v", err)
	}

	failing := flow.From(sources.Generate(10, func(i int64) (int64, error) { return 0, errors.New("boom") }))
	if _, err := determinism.Record[int64](ctx, failing, path); err == nil {
		t.Error("Record of a failing run succeeded")
	}
	if err := determinism.Check[int64](ctx, p(100), path); err != nil {
		t.Errorf("a failing Record changed the file: %v", err)
	}
}

func TestSumOf(t *testing.T) {
	ctx := context.Background()
	got, err := determinism.SumOf[int64](ctx, flow.From(counting(1000, sources.PartitionSize(64))).Parallel(4))
	if want := sumOf(idsOf("generate", 1000), seq(1000)); err != nil || got != want {
		t.Errorf("SumOf = %v, %v; want %v", got, err, want)
	}
	if _, err := determinism.SumOf[any](ctx, flow.From(sources.Slice([]any{1, func() {}}))); err == nil ||
		!strings.Contains(err.Error(), "func()") {
		t.Errorf("SumOf of a func in an interface: %v", err)
	}
	if _, err := determinism.SumOf[func()](ctx, flow.From(sources.Slice([]func(){nil}))); err == nil {
		t.Error("SumOf of funcs succeeded")
	}
}
