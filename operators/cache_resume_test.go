package operators_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
)

// values is an Emitter that keeps the values pushed to it.
type values []int64

func (v *values) Push(_ context.Context, c flow.Chunk[int64]) error {
	*v = append(*v, c.Values...)
	c.Release()
	return nil
}

// TestCacheOnDiskFromLaterPartition: a run that reads only the later
// partitions of a disk cache, as a resumed run does, gets them as they
// were cached. The first partition's data is damaged: reading it fails,
// naming it, and nothing else does.
func TestCacheOnDiskFromLaterPartition(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	cache := operators.Cache[int64](flow.From(source(1000, 50, 16)), operators.OnDisk(path))
	want := collect[int64](t, flow.From(cache))
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Past the header ("rowflow cache v2\n" and the ID line) comes the
	// first record: its length, 9 bytes of head, then its zstd data.
	start := bytes.IndexByte(whole[len("rowflow cache v2\n"):], '\n') + len("rowflow cache v2\n") + 1
	n, w := binary.Uvarint(whole[start:])
	body := start + w + 9
	whole[body+int(n)/2] ^= 0xff
	if err := os.WriteFile(path, whole, 0o644); err != nil {
		t.Fatal(err)
	}
	var got values
	first := true
	for part, err := range cache.Partitions(t.Context(), flow.Env{}) {
		if err != nil {
			t.Fatal(err)
		}
		if first {
			first = false
			err := part.Read(t.Context(), &values{})
			if err == nil || !strings.Contains(err.Error(), "record 0 (partition 0)") || !strings.Contains(err.Error(), path) {
				t.Fatalf("reading the damaged partition: %v", err)
			}
			continue
		}
		if err := part.Read(t.Context(), &got); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(want)-50 {
		t.Fatalf("%d values after the first partition, want %d", len(got), len(want)-50)
	}
	for i, v := range got {
		if v != want[50+i].Value {
			t.Fatalf("value %d is %d, want %d", i, v, want[50+i].Value)
		}
	}
}

// A disk cache replaced between planning and reading (rebuilt by another
// run) fails the read instead of reading the new file at the old offsets.
func TestCacheOnDiskReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	cache := operators.Cache[int64](flow.From(source(200, 50, 16)), operators.OnDisk(path))
	collect[int64](t, flow.From(cache))
	var parts []flow.Partition[int64]
	for part, err := range cache.Partitions(t.Context(), flow.Env{}) {
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, part)
	}
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".new", whole, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	err = parts[1].Read(t.Context(), &values{})
	if err == nil || !strings.Contains(err.Error(), "replaced") {
		t.Fatalf("reading after the file was replaced: %v", err)
	}
}
