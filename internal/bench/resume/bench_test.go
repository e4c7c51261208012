package main

import (
	"context"
	"testing"
)

// TestMeasure runs the measurement on a small dataset: the resumed run's
// first item must be the uninterrupted run's next one (measure checks
// it), and resuming must cost less than re-reading.
func TestMeasure(t *testing.T) {
	const rows = 600_000
	r, err := measure(context.Background(), rows, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Resume >= r.Reference {
		t.Errorf("resume took %v, re-reading %v", r.Resume, r.Reference)
	}
	// The oldest row a shuffle buffer of w rows holds is about w·ln(w)
	// rows old (92,000 for w = 10,000); the source restarts at its row
	// group, and never three times that far back.
	if back := rows*9/10 - r.RestartGroup*groupRows; back > 3*92_000 {
		t.Errorf("the resumed source starts at row group %d of %d, %d rows before the position", r.RestartGroup, r.Groups, back)
	}
	t.Logf("re-read %v, resume %v (%.2f%%), source restarts at row group %d of %d", r.Reference, r.Resume, 100*r.Ratio(), r.RestartGroup, r.Groups)
}

// BenchmarkResume reports the resume/re-read ratio as a metric.
func BenchmarkResume(b *testing.B) {
	for b.Loop() {
		r, err := measure(context.Background(), 1_000_000, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(100*r.Ratio(), "resume-%")
	}
}
