package determinism_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

func TestRecordCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stream.digest")
	p := func(n int64) *flow.Pipeline { return flow.From(counting(n, sources.PartitionItems(7))).Parallel(3) }

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
	text := string(data)
	if head := "rowflow golden v1\nstream " + want.String() + " 100\npartition 0 7 " +
		sumOf(idsOf("generate", 7), seq(7)).String() + "\n  " + idsOf("generate", 1)[0].String() + " " +
		itemDigest(idsOf("generate", 1)[0], 0) + "\n"; !strings.HasPrefix(text, head) {
		t.Errorf("file begins %q, want %q", text[:min(len(text), len(head))], head)
	}
	if n, rows := strings.Count(text, "\npartition "), strings.Count(text, "\n  "); n != 15 || rows != 100 {
		t.Errorf("file has %d partitions and %d rows, want 15 and 100", n, rows)
	}
	if err := determinism.Check[int64](ctx, p(100), path); err != nil {
		t.Errorf("Check of the same stream: %v", err)
	}
	err = determinism.Check[int64](ctx, p(99), path)
	if !errors.Is(err, determinism.ErrMismatch) || !strings.Contains(err.Error(), "partition 14 differs") {
		t.Errorf("Check of another stream: %v", err)
	}

	// A file of the earlier format, one line, is still checked.
	legacy := filepath.Join(t.TempDir(), "legacy")
	if err := os.WriteFile(legacy, []byte(want.String()+" 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := determinism.Check[int64](ctx, p(100), legacy); err != nil {
		t.Errorf("Check against a one-line file: %v", err)
	}
	err = determinism.Check[int64](ctx, p(99), legacy)
	if !errors.Is(err, determinism.ErrMismatch) || !strings.Contains(err.Error(), "(99 items)") ||
		!strings.Contains(err.Error(), want.String()+" (100 items)") {
		t.Errorf("Check of another stream against a one-line file: %v", err)
	}

	for name, content := range map[string]string{
		"empty":           "",
		"no count":        want.String() + "\n",
		"short":           "abc 3\n",
		"not hex":         strings.Repeat("z", 64) + " 3\n",
		"bad count":       want.String() + " -1\n",
		"no stream":       "rowflow golden v1\n",
		"count too large": "rowflow golden v1\nstream " + want.String() + " 101\n" + strings.SplitN(text, "\n", 3)[2],
		"row missing":     strings.Replace(text, "\n  "+idsOf("generate", 1)[0].String(), "", 1),
		"bad row":         strings.Replace(text, "\n  "+idsOf("generate", 1)[0].String(), "\n  zz", 1),
		"bad partition":   strings.Replace(text, "partition 0 7", "partition 0 x", 1),
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

// itemDigest is the digest a golden file lists for an int64 item.
func itemDigest(id rowid.ID, v int64) string {
	b := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, id.Lo), id.Hi)
	sum := sha256.Sum256(binary.LittleEndian.AppendUint64(b, uint64(v)))
	return hex.EncodeToString(sum[:8])
}

// TestCheckReport checks the whole report of crafted differences between
// a stream of 0, 1, … 19 in partitions of 5 and its golden file.
func TestCheckReport(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "rows.golden")
	build := func(n int64, f func(int64) int64) *flow.Pipeline {
		return flow.From(sources.Generate(n, func(i int64) (int64, error) { return f(i), nil }, sources.PartitionItems(5))).Parallel(2)
	}
	same := func(i int64) int64 { return i }
	if err := determinism.CheckGolden[int64](ctx, build(20, same), path, true); err != nil {
		t.Fatal(err)
	}
	ids, vals := idsOf("generate", 21), seq(21)
	part := func(vs []int64) string { return sumOf(ids[10:10+len(vs)], vs).String()[:16] }

	err := determinism.CheckGolden[int64](ctx, build(20, func(i int64) int64 {
		if i == 12 {
			return -1
		}
		return i
	}), path, false)
	changed := append(slices.Clone(vals[10:15]), 0)
	changed[2] = -1
	want := "determinism: digest differs from the recorded one: " + path + ": partition 2 differs: " +
		"the file records part 2, 5 items, digest " + part(vals[10:15]) + "; the run has part 2, 5 items, digest " + part(changed[:5]) +
		"; item 12 (2 of the partition) differs: the file records row " + ids[12].String() + ", item digest " + itemDigest(ids[12], 12) +
		"; the run has row " + ids[12].String() + ", item digest " + itemDigest(ids[12], -1) + ", value -1"
	if err == nil || err.Error() != want {
		t.Errorf("a changed value: Check =\n%v\nwant\n%s", err, want)
	}

	err = determinism.Check[int64](ctx, build(13, same), path)
	want = "determinism: digest differs from the recorded one: " + path + ": partition 2 differs: " +
		"the file records part 2, 5 items, digest " + part(vals[10:15]) + "; the run has part 2, 3 items, digest " + part(vals[10:13]) +
		"; the run's partition ends after 3 items, where the file records item 13: row " + ids[13].String()
	if err == nil || err.Error() != want {
		t.Errorf("a shorter stream: Check =\n%v\nwant\n%s", err, want)
	}

	err = determinism.Check[int64](ctx, build(10, same), path)
	want = "determinism: digest differs from the recorded one: " + path + ": the run ended after 2 partitions (10 items); " +
		"the file records partition 2: part 2, 5 items, digest " + part(vals[10:15])
	if err == nil || err.Error() != want {
		t.Errorf("a stream of fewer partitions: Check =\n%v\nwant\n%s", err, want)
	}

	err = determinism.Check[int64](ctx, build(21, same), path)
	want = "determinism: digest differs from the recorded one: " + path +
		": the run has partition 4 (part 4, 1 items, from item 20) after the 4 partitions the file records"
	if err == nil || err.Error() != want {
		t.Errorf("a longer stream: Check =\n%v\nwant\n%s", err, want)
	}
}

func TestSumOf(t *testing.T) {
	ctx := context.Background()
	got, err := determinism.SumOf[int64](ctx, flow.From(counting(1000, sources.PartitionItems(64))).Parallel(4))
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

// TestGoldenLongStream checks that a stream of more than MaxGoldenRows
// items records its partitions but no rows.
func TestGoldenLongStream(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "long.golden")
	build := func(changed int64) *flow.Pipeline {
		return flow.From(sources.Generate(determinism.MaxGoldenRows+1, func(i int64) (int64, error) {
			if i == changed {
				return -1, nil
			}
			return i, nil
		}, sources.PartitionItems(4000))).Parallel(2)
	}
	if _, err := determinism.Record[int64](ctx, build(-1), path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(data), "\n"); lines != 5 || strings.Contains(string(data), "\n  ") {
		t.Errorf("file of %d lines:\n%s\nwant a header, a stream line and 3 partition lines", lines, data)
	}
	err = determinism.Check[int64](ctx, build(7000), path)
	if err == nil || !strings.Contains(err.Error(), ": partition 1 differs: the file records part 1, 4000 items") ||
		!strings.HasSuffix(err.Error(), "; the file lists no rows (the stream had more than 10000 items)") {
		t.Errorf("Check = %v", err)
	}
}
