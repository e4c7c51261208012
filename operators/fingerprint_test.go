package operators_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// Each case builds a pipeline in two ways that differ in one setting of a
// source or stage: the fingerprints differ, and building either way
// twice gives the same fingerprint.
func TestFingerprintCoversSettings(t *testing.T) {
	nums := make([]int64, 100)
	toks := make([][]int32, 100)
	for i := range nums {
		nums[i] = int64(i)
		toks[i] = make([]int32, 1+i%7)
	}
	from := func(opts ...sources.SliceOption) *flow.Pipeline { return flow.From(sources.Slice(nums, opts...)) }
	tokens := func(s flow.Stage) *flow.Pipeline { return flow.From(sources.Slice(toks)).Via(s) }
	length := func(t []int32) int { return len(t) }
	sum := func(acc, v int64) (int64, error) { return acc + v, nil }
	parity := func(v int64) int64 { return v % 2 }
	gen := func(i int64) (int64, error) { return i, nil }
	cases := []struct {
		name string
		a, b func() *flow.Pipeline
	}{
		{"slice length",
			func() *flow.Pipeline { return flow.From(sources.Slice(nums[:10])) },
			func() *flow.Pipeline { return flow.From(sources.Slice(nums[:11])) }},
		{"slice partition size",
			func() *flow.Pipeline { return from(sources.PartitionItems(16)) },
			func() *flow.Pipeline { return from(sources.PartitionItems(32)) }},
		{"generate count",
			func() *flow.Pipeline { return flow.From(sources.Generate(20, gen)) },
			func() *flow.Pipeline { return flow.From(sources.Generate(100, gen)) }},
		{"batch size",
			func() *flow.Pipeline { return from().Via(operators.Batch[int64](2)) },
			func() *flow.Pipeline { return from().Via(operators.Batch[int64](5)) }},
		{"batch last-batch policy",
			func() *flow.Pipeline { return from().Via(operators.Batch[int64](3)) },
			func() *flow.Pipeline {
				return from().Via(operators.Batch[int64](3, operators.DropRemainder()))
			}},
		{"batch items per partition",
			func() *flow.Pipeline { return from().Via(operators.Batch[int64](3)) },
			func() *flow.Pipeline { return from().Via(operators.Batch[int64](3, operators.PartitionItems(4))) }},
		{"reduce group size",
			func() *flow.Pipeline { return from().Via(operators.ReduceEvery(2, sum)) },
			func() *flow.Pipeline { return from().Via(operators.ReduceEvery(3, sum)) }},
		{"reduce groups or runs",
			func() *flow.Pipeline { return from().Via(operators.ReduceEvery(2, sum)) },
			func() *flow.Pipeline { return from().Via(operators.ReduceRuns(parity, sum)) }},
		{"bucket boundaries",
			func() *flow.Pipeline {
				return tokens(operators.BucketByLength(length, operators.Buckets([]int{3}, []int{4, 2})))
			},
			func() *flow.Pipeline {
				return tokens(operators.BucketByLength(length, operators.Buckets([]int{4}, []int{4, 2})))
			}},
		{"token budget",
			func() *flow.Pipeline { return tokens(operators.BucketByLength(length, operators.TokenBudget(40))) },
			func() *flow.Pipeline { return tokens(operators.BucketByLength(length, operators.TokenBudget(80))) }},
		{"bucket pool",
			func() *flow.Pipeline { return tokens(operators.BucketPool(4, 16, length)) },
			func() *flow.Pipeline { return tokens(operators.BucketPool(4, 32, length)) }},
		{"pad value",
			func() *flow.Pipeline { return tokens(operators.Batch[[]int32](4)).Via(operators.Pad(int32(0))) },
			func() *flow.Pipeline { return tokens(operators.Batch[[]int32](4)).Via(operators.Pad(int32(-1))) }},
		{"pad side",
			func() *flow.Pipeline { return tokens(operators.Batch[[]int32](4)).Via(operators.Pad(int32(0))) },
			func() *flow.Pipeline {
				return tokens(operators.Batch[[]int32](4)).Via(operators.Pad(int32(0), operators.PadLeft()))
			}},
		{"pad multiple",
			func() *flow.Pipeline {
				return tokens(operators.Batch[[]int32](4)).Via(operators.Pad(int32(0), operators.PadMultiple(4)))
			},
			func() *flow.Pipeline {
				return tokens(operators.Batch[[]int32](4)).Via(operators.Pad(int32(0), operators.PadMultiple(8)))
			}},
		{"pack length",
			func() *flow.Pipeline { return tokens(operators.Pack(16, int32(0))) },
			func() *flow.Pipeline { return tokens(operators.Pack(32, int32(0))) }},
		{"pack overlong policy",
			func() *flow.Pipeline { return tokens(operators.Pack(16, int32(0))) },
			func() *flow.Pipeline {
				return tokens(operators.Pack(16, int32(0), operators.DropOverlong()))
			}},
		{"table size",
			func() *flow.Pipeline { return from().Via(operators.TableBucket[int64](4)) },
			func() *flow.Pipeline { return from().Via(operators.TableBucket[int64](8)) }},
		{"tables",
			func() *flow.Pipeline { return from().Via(operators.TableBucket[int64](4, operators.Tables(1, 2, 0))) },
			func() *flow.Pipeline { return from().Via(operators.TableBucket[int64](4, operators.Tables(1, 3, 0))) }},
		{"shuffle window",
			func() *flow.Pipeline { return from().Via(operators.Shuffle[int64](10)) },
			func() *flow.Pipeline { return from().Via(operators.Shuffle[int64](20)) }},
		{"block shuffle k",
			func() *flow.Pipeline { return from().Via(operators.BlockShuffle[int64](2)) },
			func() *flow.Pipeline { return from().Via(operators.BlockShuffle[int64](3)) }},
		{"index shuffle source",
			func() *flow.Pipeline { return flow.From(operators.IndexShuffle(sources.Slice(nums[:10]))) },
			func() *flow.Pipeline { return flow.From(operators.IndexShuffle(sources.Slice(nums[:11]))) }},
		{"take count",
			func() *flow.Pipeline { return from().Via(operators.Take[int64](5)) },
			func() *flow.Pipeline { return from().Via(operators.Take[int64](6)) }},
		{"even ranks policy",
			func() *flow.Pipeline {
				return flow.From(operators.EvenRanks(sources.Slice(nums), nil))
			},
			func() *flow.Pipeline {
				return flow.From(operators.EvenRanks(sources.Slice(nums), nil, operators.PadUneven()))
			}},
		{"cached pipeline",
			func() *flow.Pipeline {
				return flow.From(operators.Cache[operators.Rows[int64]](from().Via(operators.Batch[int64](2))))
			},
			func() *flow.Pipeline {
				return flow.From(operators.Cache[operators.Rows[int64]](from().Via(operators.Batch[int64](3))))
			}},
		{"cache key",
			func() *flow.Pipeline { return flow.From(operators.Cache[int64](from(), operators.CacheKey("v1"))) },
			func() *flow.Pipeline { return flow.From(operators.Cache[int64](from(), operators.CacheKey("v2"))) }},
		{"parquet columns",
			func() *flow.Pipeline {
				return flow.From(parquet.Read[*parquet.ColumnBatch]("data", parquet.Columns("a")))
			},
			func() *flow.Pipeline {
				return flow.From(parquet.Read[*parquet.ColumnBatch]("data", parquet.Columns("b")))
			}},
		{"pipeline epochs",
			func() *flow.Pipeline { return flow.From(text.CSV[sources.Record]("data")).Epochs(2) },
			func() *flow.Pipeline { return flow.From(text.CSV[sources.Record]("data")) }},
		{"csv header",
			func() *flow.Pipeline { return flow.From(text.CSV[sources.Record]("data", text.Header("a"))) },
			func() *flow.Pipeline { return flow.From(text.CSV[sources.Record]("data", text.Header("b"))) }},
	}
	for _, c := range cases {
		a, again, b := c.a().Fingerprint(), c.a().Fingerprint(), c.b().Fingerprint()
		if a != again {
			t.Errorf("%s: one definition, two fingerprints %s and %s", c.name, a, again)
		}
		if a == b {
			t.Errorf("%s: both settings give fingerprint %s", c.name, a)
		}
	}
}

// What changes neither the items nor their IDs and partitions is not
// part of a pipeline's definition: the location of a dataset (its row IDs
// do not depend on it), the chunk size, giving a default option, an
// option the pipeline overrides, the parallelism.
func TestFingerprintIgnoresExecution(t *testing.T) {
	nums := make([]int64, 100)
	abs := filepath.Join(t.TempDir(), "data")
	for _, c := range []struct {
		name string
		a, b *flow.Pipeline
	}{
		{"dataset location",
			flow.From(text.CSV[sources.Record]("data", sources.Files("x.csv"))),
			flow.From(text.CSV[sources.Record](filepath.Join("copy2", "deeper", "data"), sources.Files("x.csv")))},
		{"dataset location, absolute root",
			flow.From(text.CSV[sources.Record]("data", sources.Files("x.csv"))),
			flow.From(text.CSV[sources.Record](abs, sources.Files("x.csv")))},
		{"dataset file given by its absolute path",
			flow.From(text.CSV[sources.Record]("data", sources.Files("x.csv"))),
			flow.From(text.CSV[sources.Record](abs, sources.Files(filepath.Join(abs, "x.csv"))))},
		{"the pipeline's epochs, set again",
			flow.From(text.CSV[sources.Record]("data")).Epochs(2).Epochs(3),
			flow.From(text.CSV[sources.Record]("data")).Epochs(3)},
		{"chunk size",
			flow.From(sources.Slice(nums, sources.ChunkSize(8))),
			flow.From(sources.Slice(nums, sources.ChunkSize(9)))},
		{"the default partition size given",
			flow.From(sources.Slice(nums)).Via(operators.Batch[int64](3)),
			flow.From(sources.Slice(nums)).Via(operators.Batch[int64](3, operators.PartitionItems(16)))},
		{"a last-batch policy given, then another",
			flow.From(sources.Slice(nums)).Via(operators.Batch[int64](3, operators.DropRemainder(), operators.PadRemainder())),
			flow.From(sources.Slice(nums)).Via(operators.Batch[int64](3, operators.PadRemainder()))},
		{"parallelism",
			flow.From(sources.Slice(nums)).Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(2),
			flow.From(sources.Slice(nums)).Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(4)},
	} {
		if a, b := c.a.Fingerprint(), c.b.Fingerprint(); a != b {
			t.Errorf("%s: fingerprints %s and %s", c.name, a, b)
		}
	}
}

// A disk cache built by a pipeline with other settings is refused, never
// replayed.
func TestCacheRefusesOtherSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	gen := func(i int64) (int64, error) { return i, nil }
	type rows = operators.Rows[int64]
	batches := func(n, size int) flow.Source[rows] {
		p := flow.From(sources.Generate(int64(n), gen)).Via(operators.Batch[int64](size))
		return operators.Cache[rows](p, operators.OnDisk(path))
	}
	if got := collect[rows](t, flow.From(batches(20, 2))); len(got) != 10 {
		t.Fatalf("building the cache: %d batches, want 10", len(got))
	}
	for _, other := range []struct {
		name   string
		source flow.Source[rows]
	}{{"another batch size", batches(20, 5)}, {"another row count", batches(100, 2)}} {
		var err error
		for _, err = range flow.Items[rows](t.Context(), flow.From(other.source)) {
			if err == nil {
				t.Fatalf("%s: the cache was replayed", other.name)
			}
		}
		if err == nil || !strings.Contains(err.Error(), "built by another pipeline") {
			t.Errorf("%s: error %v, want a refusal", other.name, err)
		}
	}
	if got := collect[rows](t, flow.From(batches(20, 2))); len(got) != 10 || got[9].Value.Values[1] != 19 {
		t.Fatalf("replaying the cache: %d batches, last %v", len(got), got[len(got)-1].Value.Values)
	}
}

// A checkpoint taken from a pipeline with other settings does not resume.
func TestResumeRefusesOtherSettings(t *testing.T) {
	data := make([]int64, 200)
	run := func(size int) *flow.Pipeline {
		return flow.From(sources.Slice(data, sources.PartitionItems(50))).Via(operators.Batch[int64](size))
	}
	tr := new(flow.Tracker)
	n := 0
	for _, err := range flow.Items[operators.Rows[int64]](t.Context(), run(4).Checkpoints(tr)) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 7 {
			break
		}
	}
	ck, err := tr.Checkpoint()
	if err != nil {
		t.Fatal(err)
	}
	for _, err = range flow.Items[operators.Rows[int64]](t.Context(), run(5).Resume(ck)) {
		if err == nil {
			t.Fatal("a checkpoint of Batch(4) resumed Batch(5)")
		}
	}
	if err == nil || !strings.Contains(err.Error(), "another pipeline") {
		t.Fatalf("error %v, want a refusal", err)
	}
	var resumed int
	for _, err := range flow.Items[operators.Rows[int64]](t.Context(), run(4).Resume(ck)) {
		if err != nil {
			t.Fatal(err)
		}
		resumed++
	}
	if resumed != 50-7 {
		t.Fatalf("resumed %d batches, want %d", resumed, 50-7)
	}
}

// A disk cache of a pipeline that starts at a later item holds another
// stream: it is refused where the whole pipeline's cache lies, and the
// other way round.
func TestCacheOfAStartingPipeline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.rfcache")
	p := flow.From(sources.Generate(20, func(i int64) (int64, error) { return i, nil }))
	whole := func() flow.Source[int64] { return operators.Cache[int64](p, operators.OnDisk(path)) }
	later := func(opts ...operators.CacheOption) flow.Source[int64] {
		return operators.Cache[int64](p.Resume(flow.At(0, 15)), append(opts, operators.OnDisk(path))...)
	}
	if got := collect[int64](t, flow.From(whole())); len(got) != 20 {
		t.Fatalf("building the whole cache: %d items", len(got))
	}
	refused := func(name string, src flow.Source[int64]) {
		t.Helper()
		var err error
		for _, err = range flow.Items[int64](t.Context(), flow.From(src)) {
			if err == nil {
				t.Fatalf("%s: an item was replayed", name)
			}
		}
		if err == nil || !strings.Contains(err.Error(), "built by another pipeline") {
			t.Fatalf("%s: error %v, want a refusal", name, err)
		}
	}
	refused("the later start over the whole cache", later())
	if got := collect[int64](t, flow.From(later(operators.Rebuild()))); len(got) != 5 || got[0].Value != 15 {
		t.Fatalf("rebuilt for the later start: %d items, first %v", len(got), got)
	}
	refused("the whole pipeline over the later start's cache", whole())
}
