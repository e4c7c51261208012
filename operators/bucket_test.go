package operators_test

import (
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

func tokenLen(t []int32) int { return len(t) }

// bucketSerial is the reference: each bucket a list, a batch emitted when
// its bucket is full, the rest at the end in the order of first members.
func bucketSerial(rows int64, bounds, sizes []int, budget int, last remainder) []flow.Item[operators.Rows[[]int32]] {
	type pending struct {
		vals    [][]int32
		ids     []rowid.ID
		first   int64
		longest int
	}
	var items []flow.Item[operators.Rows[[]int32]]
	emit := func(b *pending, pad int) {
		r := operators.Rows[[]int32]{Values: b.vals, IDs: b.ids}
		id := foldIDs("bucket-by-length", b.ids)
		if pad > 0 {
			r.Padding = pad
			r.Values = append(r.Values, make([][]int32, pad)...)
			r.IDs = append(r.IDs, make([]rowid.ID, pad)...)
		}
		items = append(items, flow.Item[operators.Rows[[]int32]]{Part: int64(len(items) / 16), ID: id, Value: r})
		*b = pending{}
	}
	buckets := make([]pending, len(bounds)+1)
	for i := range rows {
		tok := tokens(i)
		bi := len(bounds)
		for j, bound := range bounds {
			if len(tok) < bound {
				bi = j
				break
			}
		}
		b := &buckets[bi]
		if budget > 0 && len(b.vals) > 0 && (len(b.vals)+1)*max(b.longest, len(tok), 1) > budget {
			emit(b, 0)
		}
		if len(b.vals) == 0 {
			b.first = i
		}
		b.vals, b.ids = append(b.vals, tok), append(b.ids, sourceID(i))
		b.longest = max(b.longest, len(tok))
		if sizes != nil && len(b.vals) == sizes[bi] {
			emit(b, 0)
		}
	}
	for {
		oldest := -1
		for j := range buckets {
			if len(buckets[j].vals) > 0 && (oldest < 0 || buckets[j].first < buckets[oldest].first) {
				oldest = j
			}
		}
		if oldest < 0 {
			return items
		}
		switch last {
		case dropRemainder:
			buckets[oldest] = pending{}
		case padRemainder:
			emit(&buckets[oldest], sizes[oldest]-len(buckets[oldest].vals))
		default:
			emit(&buckets[oldest], 0)
		}
	}
}

func TestBucketByLength(t *testing.T) {
	const rows = 2000
	bounds, sizes := []int{3, 6, 10}, []int{16, 8, 5, 3}
	for _, c := range []struct {
		name   string
		opts   []operators.BucketOption
		bounds []int
		sizes  []int
		budget int
		last   remainder
	}{
		{name: "buckets", opts: []operators.BucketOption{operators.Buckets(bounds, sizes)}, bounds: bounds, sizes: sizes},
		{name: "buckets drop", opts: []operators.BucketOption{operators.Buckets(bounds, sizes), operators.DropRemainder()},
			bounds: bounds, sizes: sizes, last: dropRemainder},
		{name: "buckets pad", opts: []operators.BucketOption{operators.Buckets(bounds, sizes), operators.PadRemainder()},
			bounds: bounds, sizes: sizes, last: padRemainder},
		{name: "budget", opts: []operators.BucketOption{operators.TokenBudget(40)}, budget: 40},
		{name: "budget and bounds", opts: []operators.BucketOption{operators.TokenBudget(40), operators.Buckets([]int{5}, []int{100, 100})},
			bounds: []int{5}, sizes: []int{100, 100}, budget: 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := bucketSerial(rows, c.bounds, c.sizes, c.budget, c.last)
			shapeVariants(t, want, func(p int) *flow.Pipeline {
				return flow.From(tokenSource(rows, 64)).Parallel(p).
					Via(operators.BucketByLength(tokenLen, c.opts...))
			})
			// The rows are all there once (kept or padded), and batches keep the budget.
			seen := map[rowid.ID]bool{}
			for _, it := range want {
				r := it.Value
				longest := 0
				for i, id := range r.IDs[:r.Len()-r.Padding] {
					if seen[id] {
						t.Fatalf("row %v twice", id)
					}
					seen[id] = true
					longest = max(longest, len(r.Values[i]))
				}
				if c.budget > 0 && r.Len() > 1 && r.Len()*longest > c.budget {
					t.Fatalf("batch of %d rows up to %d long passes the budget %d", r.Len(), longest, c.budget)
				}
			}
			if c.last != dropRemainder && len(seen) != rows {
				t.Fatalf("%d rows delivered, want %d", len(seen), rows)
			}
		})
	}
	for name, opts := range map[string][]operators.BucketOption{
		"none":            nil,
		"sizes":           {operators.Buckets([]int{3}, []int{1})},
		"order":           {operators.Buckets([]int{3, 3}, []int{1, 1, 1})},
		"pad with budget": {operators.TokenBudget(10), operators.PadRemainder()},
	} {
		for _, err := range flow.Items[operators.Rows[[]int32]](t.Context(), flow.From(tokenSource(10, 5)).Via(operators.BucketByLength(tokenLen, opts...))) {
			if err == nil {
				t.Fatalf("%s: the run gave an item", name)
			}
		}
	}
}

// Under a token budget an empty row counts as one token, so a stream of
// empty rows still makes batches of at most the budget's rows instead of
// one batch of the whole stream.
func TestTokenBudgetEmptyRows(t *testing.T) {
	empty := make([][]int32, 100)
	for _, p := range []int{1, 4} {
		var sizes []int
		src := flow.From(sources.Slice(empty, sources.PartitionItems(16))).Parallel(p)
		for r, err := range flow.Values[operators.Rows[[]int32]](t.Context(), src.Via(operators.BucketByLength(tokenLen, operators.TokenBudget(40)))) {
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, r.Len())
		}
		if !slices.Equal(sizes, []int{40, 40, 20}) {
			t.Errorf("parallelism %d: batches of %v rows, want [40 40 20]", p, sizes)
		}
	}
}
