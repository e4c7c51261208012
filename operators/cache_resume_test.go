package operators_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
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
	// Past the header (the magic line, the ID line and the data line)
	// comes the first record: its length, 13 bytes of head, then its zstd
	// data.
	start := cacheHeaderEnd(whole)
	n, w := binary.Uvarint(whole[start:])
	body := start + w + 13
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

// TestCacheOnDiskDamagedHead: a bit flipped in a record's partition number
// or last-record byte, which zstd's checksum does not cover, fails the
// replay instead of moving rows to another partition.
func TestCacheOnDiskDamagedHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	cache := operators.Cache[int64](flow.From(source(5000, 700, 256)), operators.OnDisk(path))
	collect[int64](t, flow.From(cache))
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := cacheHeaderEnd(whole)
	var heads []int // the offsets of the records' partition numbers
	for {
		n, w := binary.Uvarint(whole[off:])
		if n == 0 {
			break
		}
		heads = append(heads, off+w)
		off += w + 13 + int(n)
	}
	if len(heads) != 8 {
		t.Fatalf("%d records, want 8 (5000 rows in partitions of 700)", len(heads))
	}
	for _, h := range []int{heads[0], heads[3], heads[len(heads)-1]} {
		for _, b := range []int{0, 1, 3, 7, 8} { // partition number bytes, the last-record byte
			damaged := slices.Clone(whole)
			damaged[h+b] ^= 1
			if err := os.WriteFile(path, damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			var n int64
			err := flow.From(cache).To(sinks.Count[int64](&n)).Run(t.Context())
			if err == nil || !strings.Contains(err.Error(), "head is damaged") || !strings.Contains(err.Error(), path) {
				t.Errorf("byte %d of the head at %d flipped: %d rows, error %v", b, h, n, err)
			}
		}
	}
}

// TestCacheOnDiskOtherVersion: a cache file of another format version is
// refused, or rebuilt with Rebuild; a file that is no cache is never
// overwritten, even with Rebuild.
func TestCacheOnDiskOtherVersion(t *testing.T) {
	dir := t.TempDir()
	src := flow.From(source(3000, 700, 256))
	want := collect[int64](t, src)
	old := filepath.Join(dir, "old.rfcache")
	foreign := filepath.Join(dir, "notes.txt")
	for path, text := range map[string]string{old: "rowflow cache v2\nabc\n\x00\x00", foreign: "my notes\n"} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var n int64
	err := flow.From(operators.Cache[int64](src, operators.OnDisk(old))).To(sinks.Count[int64](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "another version") {
		t.Errorf("a v2 cache: %v", err)
	}
	got := collect[int64](t, flow.From(operators.Cache[int64](src, operators.OnDisk(old), operators.Rebuild())))
	if !slices.Equal(got, want) {
		t.Errorf("a v2 cache rebuilt: %d items, want the pipeline's %d", len(got), len(want))
	}
	err = flow.From(operators.Cache[int64](src, operators.OnDisk(foreign), operators.Rebuild())).To(sinks.Count[int64](&n)).Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "not a rowflow cache file") {
		t.Errorf("a file that is no cache, with Rebuild: %v", err)
	}
	if b, err := os.ReadFile(foreign); err != nil || string(b) != "my notes\n" {
		t.Errorf("the file that is no cache now holds %q, %v", b, err)
	}
}

// TestCacheOnDiskCutHeader: a cache file cut inside its header, in the
// format line or after it (copied in part, say), is reported as cut, not
// as a file of another version, and Rebuild rebuilds it. A file too short
// to say "rowflow cache v" is no cache file, and never overwritten.
func TestCacheOnDiskCutHeader(t *testing.T) {
	dir := t.TempDir()
	src := flow.From(source(3000, 700, 256))
	want := collect[int64](t, src)
	full := filepath.Join(dir, "full.rfcache")
	collect[int64](t, flow.From(operators.Cache[int64](src, operators.OnDisk(full))))
	head, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	end := bytes.IndexByte(head, '\n') + 1
	end += bytes.IndexByte(head[end:], '\n') + 1 // after the cache ID's line
	for _, cut := range []int{1, 14} {
		path := filepath.Join(dir, fmt.Sprintf("short%d.rfcache", cut))
		if err := os.WriteFile(path, head[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		var n int64
		err := flow.From(operators.Cache[int64](src, operators.OnDisk(path), operators.Rebuild())).To(sinks.Count[int64](&n)).Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), "not a rowflow cache file") {
			t.Errorf("%q, with Rebuild: %v", head[:cut], err)
		}
		if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, head[:cut]) {
			t.Errorf("%q now holds %q, %v", head[:cut], b, err)
		}
	}
	for _, cut := range []int{15, 16, end / 2, end - 1} {
		path := filepath.Join(dir, fmt.Sprintf("cut%d.rfcache", cut))
		if err := os.WriteFile(path, head[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		var n int64
		err := flow.From(operators.Cache[int64](src, operators.OnDisk(path))).To(sinks.Count[int64](&n)).Run(t.Context())
		if err == nil || !strings.Contains(err.Error(), "header is cut") || !strings.Contains(err.Error(), path) {
			t.Errorf("cut at byte %d of %q: %d rows, error %v", cut, head[:cut], n, err)
		}
		got := collect[int64](t, flow.From(operators.Cache[int64](src, operators.OnDisk(path), operators.Rebuild())))
		if !slices.Equal(got, want) {
			t.Errorf("cut at byte %d, rebuilt: %d items, want the pipeline's %d", cut, len(got), len(want))
		}
	}
}
