package main

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/internal/bench/mapfilter"
)

func TestVariantsAgree(t *testing.T) {
	for _, part := range []int{1000, 65536} {
		vs := variants(part)
		for _, n := range []int{0, 1, 1023, 1025, 100_003} {
			d := mapfilter.Data(n)
			for _, v := range vs {
				got, err := v.run(t.Context(), d)
				if err != nil {
					t.Fatalf("p=%d n=%d %s: %v", part, n, v.name, err)
				}
				if got != mapfilter.Want(n) {
					t.Errorf("p=%d n=%d %s: count %d, want %d", part, n, v.name, got, mapfilter.Want(n))
				}
			}
		}
	}
}

// Benchmark sizes: go-streams spends about a microsecond per value.
const (
	benchN      = 1 << 20
	benchSmallN = 1 << 17
)

// BenchmarkMapFilterCount runs every variant; one op is a run over benchN
// values (benchSmallN for go-streams). Compare variants by ns/elem.
func BenchmarkMapFilterCount(b *testing.B) {
	d := mapfilter.Data(benchN)
	for _, v := range variants(defaultPartition) {
		in := d
		if v.small {
			in = d[:benchSmallN]
		}
		b.Run(v.name, func(b *testing.B) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				got, err := v.run(b.Context(), in)
				if err != nil {
					b.Fatal(err)
				}
				if got != mapfilter.Want(len(in)) {
					b.Fatalf("count %d, want %d", got, mapfilter.Want(len(in)))
				}
			}
			runtime.ReadMemStats(&after)
			elems := float64(b.N) * float64(len(in))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/elems, "ns/elem")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/elems, "allocs/elem")
		})
	}
}

// BenchmarkIterators compares counting with sinks.Count against loops
// over flow.Items and flow.Values on the headline pipeline.
func BenchmarkIterators(b *testing.B) {
	d := mapfilter.Data(benchN)
	for _, v := range variants(defaultPartition) {
		if v.name != nameRowflow && v.name != nameItems && v.name != nameValues && v.name != nameItemIDs && v.name != nameMonitored {
			continue
		}
		b.Run(v.name, func(b *testing.B) {
			for b.Loop() {
				if got, err := v.run(b.Context(), d); err != nil || got != mapfilter.Want(len(d)) {
					b.Fatalf("count %d, %v; want %d", got, err, mapfilter.Want(len(d)))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(d)), "ns/elem")
		})
	}
}

// The report notes go-streams' smaller input only when go-streams ran
// (not when -only leaves it out), and then with the count it ran on.
func TestReportGoStreamsNote(t *testing.T) {
	cfg := config{n: 1_000_000, streamsN: 100_000, rounds: 1, part: defaultPartition}
	res := func(name string, n int) result {
		return result{v: variant{name: name}, n: n, d: time.Duration(n), cpu: time.Duration(n)}
	}
	for _, tc := range []struct {
		name string
		res  []result
		want string // the note, or "" for none
	}{
		{"without go-streams", []result{res(nameRowflow, cfg.n), res(nameMonitored, cfg.n)}, ""},
		{"with go-streams", []result{res(nameRowflow, cfg.n), res(nameGoStreams, cfg.streamsN)}, "go-streams ran on the first 100k values"},
		{"go-streams on every value", []result{res(nameGoStreams, cfg.n)}, ""},
	} {
		var b strings.Builder
		report(&b, cfg, tc.res, "", "")
		got := ""
		for l := range strings.Lines(b.String()) {
			if strings.Contains(l, "go-streams ran") {
				got = strings.TrimSpace(l)
			}
		}
		if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: note %q, want %q", tc.name, got, tc.want)
		}
	}
}
