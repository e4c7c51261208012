package determinism

import (
	"fmt"
	"math"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// Mixing says how well a stream is shuffled against its input order; see
// [MeasureMixing].
type Mixing struct {
	// N is the number of items.
	N int
	// Mean and Spread are the mean and the standard deviation of the
	// normalised displacement |i - j| / N of the items, where j is an
	// item's place in the input and i its place in the stream. The input
	// order gives 0 and 0; a uniformly random permutation about 1/3 and
	// 0.24.
	Mean, Spread float64
	// MeanRows is the mean displacement in items, |i - j|.
	MeanRows float64
	// SinglePartition is the fraction of windows of consecutive items in
	// the stream (see MeasureMixing) whose items all come from one input
	// partition: near 1 for the input order when partitions are much longer
	// than the window (only windows across a boundary are mixed), near 0
	// for a good shuffle.
	SinglePartition float64
}

func (m Mixing) String() string {
	return fmt.Sprintf("n=%d mean=%.4f spread=%.4f mean rows=%.1f single-partition windows=%.3f",
		m.N, m.Mean, m.Spread, m.MeanRows, m.SinglePartition)
}

// MeasureMixing compares a stream with its input: input is the stream in
// its original order and output the shuffled one, items matched by row ID;
// an input item's partition is its Part. Windows are taken at every
// offset, window items long (window < 2 counts none and leaves
// SinglePartition 0). It returns an error if output is not a permutation
// of input: a missing, extra or repeated ID.
func MeasureMixing[T any](input, output []flow.Item[T], window int) (Mixing, error) {
	type place struct {
		pos   int
		batch int64
	}
	at := make(map[rowid.ID]place, len(input))
	for j, it := range input {
		if _, dup := at[it.ID]; dup {
			return Mixing{}, fmt.Errorf("determinism: input item %d: ID %v appears twice", j, it.ID)
		}
		at[it.ID] = place{j, it.Part}
	}
	if len(output) != len(input) {
		return Mixing{}, fmt.Errorf("determinism: %d output items for %d input items", len(output), len(input))
	}
	m := Mixing{N: len(output)}
	if m.N == 0 {
		return m, nil
	}
	batches := make([]int64, len(output))
	var sum, sumSq float64
	for i, it := range output {
		p, ok := at[it.ID]
		if !ok {
			return Mixing{}, fmt.Errorf("determinism: output item %d: ID %v is not in the input, or repeats", i, it.ID)
		}
		delete(at, it.ID)
		batches[i] = p.batch
		d := math.Abs(float64(i - p.pos))
		sum += d
		sumSq += d * d
	}
	n := float64(m.N)
	m.MeanRows = sum / n
	m.Mean = m.MeanRows / n
	m.Spread = math.Sqrt(max(sumSq/n-m.MeanRows*m.MeanRows, 0)) / n
	if window >= 2 && m.N >= window {
		single, run := 0, 1 // run: items ending at i from one partition
		for i := 1; i < m.N; i++ {
			if batches[i] == batches[i-1] {
				run++
			} else {
				run = 1
			}
			if i >= window-1 && run >= window {
				single++
			}
		}
		m.SinglePartition = float64(single) / float64(m.N-window+1)
	}
	return m, nil
}
