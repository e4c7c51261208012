package operators_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/operators"
)

type record struct {
	N    int64
	Text string
}

func TestCache(t *testing.T) {
	const rows = 3000
	for _, disk := range []bool{false, true} {
		t.Run(map[bool]string{false: "memory", true: "disk"}[disk], func(t *testing.T) {
			var runs atomic.Int64 // rows the cached pipeline computed
			inner := flow.From(source(rows, 50, 16)).Parallel(3).
				Via(operators.Filter(keep)).Parallel(3).
				Via(operators.Map(func(v int64) (record, error) {
					runs.Add(1)
					return record{N: v, Text: strings.Repeat("x", int(v%5))}, nil
				})).Parallel(3)
			want := collect[record](t, inner)
			runs.Store(0)
			var opts []operators.CacheOption
			path := filepath.Join(t.TempDir(), "c.rfcache")
			if disk {
				opts = append(opts, operators.OnDisk(path))
			}
			cache := operators.Cache[record](inner, opts...)
			// Three epochs, at several parallelisms: the first builds, the
			// rest replay; every epoch equals the uncached stream.
			for _, n := range []int{1, 2, 4, 8} {
				got := collect[record](t, flow.From(cache).Parallel(n).Epochs(3).
					Via(operators.Map(func(r record) (record, error) { return r, nil })).Parallel(n))
				if len(got) != 3*len(want) {
					t.Fatalf("parallelism %d: %d items, want %d", n, len(got), 3*len(want))
				}
				for e := range 3 {
					ep := got[e*len(want) : (e+1)*len(want)]
					for i := range ep {
						w := want[i]
						w.Part = epoch.Part(int64(e), w.Part)
						if ep[i] != w {
							t.Fatalf("parallelism %d epoch %d item %d: %+v, want %+v", n, e, i, ep[i], w)
						}
					}
				}
			}
			if got := runs.Load(); got != int64(len(want)) {
				t.Errorf("the cached pipeline computed %d rows, want %d (one pass)", got, len(want))
			}
			// A cache built at another parallelism holds the same stream.
			for _, n := range []int{2, 4, 8} {
				var o []operators.CacheOption
				if disk {
					o = append(o, operators.OnDisk(filepath.Join(t.TempDir(), "c.rfcache")))
				}
				fresh := operators.Cache[record](inner, o...)
				for _, pass := range []string{"build", "replay"} {
					if got := collect[record](t, flow.From(fresh).Parallel(n)); !slices.Equal(got, want) {
						t.Fatalf("parallelism %d, %s: %d items, want %d, or other items", n, pass, len(got), len(want))
					}
				}
			}
			if !disk {
				return
			}
			// The file is there under its name, with no temporary beside it.
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 || entries[0].Name() != "c.rfcache" {
				t.Fatalf("cache directory holds %v", entries)
			}
			// Another pipeline's cache is refused, or rebuilt when asked.
			other := flow.From(source(rows, 50, 16)).Via(operators.Map(func(v int64) (record, error) { return record{N: v}, nil }))
			var err error
			for _, err = range flow.Items[record](t.Context(), flow.From(operators.Cache[record](other, operators.OnDisk(path)))) {
				if err != nil {
					break
				}
				t.Fatal("another pipeline's cache was replayed")
			}
			if err == nil || !strings.Contains(err.Error(), "built by another pipeline") {
				t.Fatalf("error %v, want a refusal", err)
			}
			got := collect[record](t, flow.From(operators.Cache[record](other, operators.OnDisk(path), operators.Rebuild())))
			if len(got) != rows || got[7].Value.N != 7 {
				t.Fatalf("rebuilt cache: %d items, item 7 %+v", len(got), got[7])
			}
			// A key tells apart pipelines the fingerprint cannot.
			for _, err = range flow.Items[record](t.Context(), flow.From(operators.Cache[record](other, operators.OnDisk(path), operators.CacheKey("v2")))) {
				break
			}
			if err == nil {
				t.Fatal("a cache with another key was replayed")
			}
			// So does the codec: values another codec wrote would not decode.
			for _, err = range flow.Items[record](t.Context(), flow.From(operators.CacheWithCodec[record](other, jsonCodec[record]{}, operators.OnDisk(path)))) {
				break
			}
			if err == nil || !strings.Contains(err.Error(), "built by another pipeline") {
				t.Fatalf("a cache written with gob, read with another codec: error %v, want a refusal", err)
			}
		})
	}
}

// A first pass that stops early leaves no cache file, and the next run
// builds it whole.
func TestCacheStoppedEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	cache := operators.Cache[int64](flow.From(source(1000, 50, 16)), operators.OnDisk(path))
	got := collect[int64](t, flow.From(cache).Via(operators.Take[int64](120)))
	if len(got) != 120 {
		t.Fatalf("%d items", len(got))
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
		t.Fatalf("after a stopped first pass the directory holds %v", entries)
	}
	if got := collect[int64](t, flow.From(cache)); len(got) != 1000 {
		t.Fatalf("%d items after rebuilding", len(got))
	}
	if got := collect[int64](t, flow.From(cache)); len(got) != 1000 || got[999].ID != sourceID(999) {
		t.Fatalf("%d items replayed", len(got))
	}
}

// A disk cache cut short anywhere fails the replay with an error naming
// the file; it never replays fewer rows as if they were all.
func TestCacheTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	cache := operators.Cache[record](flow.From(source(600, 50, 16)).Via(operators.Map(func(v int64) (record, error) {
		return record{N: v, Text: strings.Repeat("y", int(v%7))}, nil
	})), operators.OnDisk(path))
	if got := collect[record](t, flow.From(cache)); len(got) != 600 {
		t.Fatalf("first pass: %d items", len(got))
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{1, 2, 9, len(whole) / 3, len(whole) / 2, len(whole) - 40} {
		if err := os.WriteFile(path, whole[:len(whole)-cut], 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		var last error
		for _, err := range flow.Items[record](t.Context(), flow.From(cache)) {
			if err != nil {
				last = err
				break
			}
			n++
		}
		if last == nil || !strings.Contains(last.Error(), path) ||
			!strings.Contains(last.Error(), "truncated") && !strings.Contains(last.Error(), "the end says") {
			t.Fatalf("cut %d bytes: %d items and error %v, want a truncation naming %s", cut, n, last, path)
		}
	}
}

// jsonCodec is a codec other than gob.
type jsonCodec[T any] struct{}

func (jsonCodec[T]) Append(dst []byte, vals []T) ([]byte, error) {
	b, err := json.Marshal(vals)
	return append(dst, b...), err
}

func (jsonCodec[T]) Decode(src []byte, n int) ([]T, error) {
	var vals []T
	if err := json.Unmarshal(src, &vals); err != nil {
		return nil, err
	}
	if len(vals) != n {
		return nil, fmt.Errorf("%d values, want %d", len(vals), n)
	}
	return vals, nil
}
