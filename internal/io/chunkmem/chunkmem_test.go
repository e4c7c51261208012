package chunkmem

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestBoxesHoldTheirValues: every boxed value asserts to its type and
// value, and keeps it however many values are boxed after it (a block is
// never written again where it was handed out).
func TestBoxesHoldTheirValues(t *testing.T) {
	var m Memory
	type want struct {
		got  any
		want any
	}
	var all []want
	for i := range 5000 {
		s := fmt.Sprint("v", i)
		all = append(all,
			want{m.BoxString(m.String(s)), s},
			want{m.BoxStringAs(s, json.Number("")), json.Number(s)},
			want{m.BoxInt32(int32(-i * 3)), int32(-i * 3)},
			want{m.BoxUint32(uint32(i) << 20), uint32(i) << 20},
			want{m.BoxInt64(int64(i) << 40), int64(i) << 40},
			want{m.BoxUint64(uint64(i) << 60), uint64(i) << 60},
			want{m.BoxFloat64(float64(i) / 3), float64(i) / 3},
			want{m.BoxFloat32(float32(i) / 7), float32(i) / 7},
		)
	}
	for i, w := range all {
		if w.got != w.want {
			t.Fatalf("box %d holds %#v, want %#v", i, w.got, w.want)
		}
	}
	long := strings.Repeat("x", textBlock)
	if got := m.String(long); got != long {
		t.Fatal("a long string was not copied whole")
	}
	vs := m.Values(3)
	if len(vs) != 3 || cap(vs) != 3 || vs[0] != nil {
		t.Fatalf("Values(3) = %v (cap %d)", vs, cap(vs))
	}
}

// TestBoxesShareBlocks: boxing allocates a block per about 16 KiB of
// values, not an allocation per value.
func TestBoxesShareBlocks(t *testing.T) {
	var m Memory
	var sink any
	allocs := testing.AllocsPerRun(10, func() {
		for i := range 2048 {
			sink = m.BoxInt64(int64(i) << 40)
			sink = m.BoxFloat64(float64(i) + 0.5)
		}
	})
	_ = sink
	if allocs > 4 {
		t.Errorf("%.0f allocations for 4096 boxed values, want at most 4", allocs)
	}
}
