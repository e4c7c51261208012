package parquet_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

type timeRow struct {
	ID    int64      `parquet:"id"`
	At    time.Time  `parquet:"at,timestamp(microsecond)"`
	Milli time.Time  `parquet:"milli,timestamp(millisecond)"`
	Nano  time.Time  `parquet:"nano,timestamp(nanosecond)"`
	Maybe *time.Time `parquet:"maybe,optional,timestamp(microsecond)"`
}

// TestTimeFields: time.Time fields written by the shard writer (TIMESTAMP
// of each unit, optional) read back as the same instants, in UTC,
// truncated to each column's unit; a DATE column (written from days)
// reads into a time.Time at midnight; a time.Time tagged date is refused
// by the writer, which parquet-go would write wrongly.
func TestTimeFields(t *testing.T) {
	base := time.Date(2024, 3, 1, 10, 20, 30, 123456789, time.FixedZone("x", 3600))
	var rows []timeRow
	for i := range 50 {
		at := base.Add(time.Duration(i) * 37 * time.Hour)
		r := timeRow{ID: int64(i), At: at, Milli: at, Nano: at}
		if i%3 == 0 {
			r.Maybe = &at
		}
		rows = append(rows, r)
	}
	dir := t.TempDir()
	if err := flow.From(sources.Slice(rows)).To(shards.Parquet[timeRow](dir)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got []timeRow
	for v, err := range flow.Values[timeRow](t.Context(), flow.From(parquet.Read[timeRow](dir)).Parallel(3)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d rows", len(got))
	}
	for i, r := range rows {
		want := timeRow{ID: r.ID, At: r.At.Truncate(time.Microsecond).UTC(), Milli: r.At.Truncate(time.Millisecond).UTC(),
			Nano: r.At.UTC()}
		if r.Maybe != nil {
			m := r.Maybe.Truncate(time.Microsecond).UTC()
			want.Maybe = &m
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("row %d: %+v, want %+v", i, got[i], want)
		}
	}
}

type dayRow struct {
	Days int32 `parquet:"day,date"`
}

type dayTime struct {
	Day time.Time `parquet:"day,date"`
}

func TestDateFields(t *testing.T) {
	dir := t.TempDir()
	rows := []dayRow{{Days: 19783}, {Days: -1}}
	if err := flow.From(sources.Slice(rows)).To(shards.Parquet[dayRow](dir)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var got []time.Time
	for v, err := range flow.Values[dayTime](t.Context(), flow.From(parquet.Read[dayTime](dir))) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v.Day)
	}
	want := []time.Time{time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("dates: %v, want %v", got, want)
	}
	err := flow.From(sources.Slice([]dayTime{{}})).To(shards.Parquet[dayTime](t.TempDir())).Err()
	if err == nil || !strings.Contains(err.Error(), "field Day is a time.Time with a date tag") {
		t.Fatalf("a time.Time tagged date: %v", err)
	}
}
