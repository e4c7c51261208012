package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Row is the dataset's row.
type Row struct {
	ID    int64   `parquet:"id"`
	Score float64 `parquet:"score"`
	Text  string  `parquet:"text"`
}

const groupRows = 20_000

// Result is one measurement.
type Result struct {
	Reference, Resume time.Duration
	JSONBytes         int
	// RestartGroup is the row group of the epoch the resumed run's source
	// starts at, of Groups.
	RestartGroup, Groups int64
}

// Ratio is the resume's time as a fraction of the reference's.
func (r Result) Ratio() float64 { return float64(r.Resume) / float64(r.Reference) }

// dataset writes the input into a new temporary directory.
func dataset(ctx context.Context, rows int) (string, error) {
	dir, err := os.MkdirTemp("", "resumebench-")
	if err != nil {
		return "", err
	}
	src := sources.Generate(int64(rows), func(i int64) (Row, error) {
		return Row{ID: i, Score: float64(i%1000) / 1000, Text: fmt.Sprintf("row %d", i)}, nil
	})
	err = flow.From(src).To(shards.Parquet[Row](dir, shards.RowGroupRows(groupRows), shards.Overwrite())).Run(ctx)
	return dir, err
}

// pipeline is the measured pipeline over dir.
func pipeline(dir string) *flow.Pipeline {
	return flow.From(parquet.Read[Row](dir)).Parallel(2).
		Via(operators.Map(func(r Row) (int64, error) { return r.ID*3 + int64(len(r.Text)), nil })).Parallel(2).
		Via(operators.Shuffle[int64](10_000)).
		Via(operators.Batch[int64](32)).
		Epochs(2).WithSeed(5)
}

// measure runs the measurement of resumebench.
func measure(ctx context.Context, rows, rounds int) (Result, error) {
	dir, err := dataset(ctx, rows)
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	p := pipeline(dir)

	// One followed run: the checkpoint at the start of the second epoch
	// and 90% into it, and the item after each.
	batches := int64(rows / 32)
	startAt, at := batches-1, batches+batches*9/10
	tr := new(flow.Tracker)
	var start, ck flow.Checkpoint
	var next operators.Rows[int64]
	k := int64(0)
	for it, err := range flow.Items[operators.Rows[int64]](ctx, p.Checkpoints(tr)) {
		if err != nil {
			return Result{}, err
		}
		switch k {
		case startAt:
			if start, err = tr.Checkpoint(); err != nil {
				return Result{}, err
			}
		case at:
			if ck, err = tr.Checkpoint(); err != nil {
				return Result{}, err
			}
		case at + 1:
			next = it.Value
		}
		if k++; k > at+1 {
			break
		}
	}
	if next.Values == nil {
		return Result{}, fmt.Errorf("the run ended before item %d", at+1)
	}
	js, err := json.Marshal(ck)
	if err != nil {
		return Result{}, err
	}
	if os.Getenv("RESUMEBENCH_DEBUG") != "" {
		fmt.Println(string(js))
	}
	res := Result{JSONBytes: len(js), Groups: int64((rows + groupRows - 1) / groupRows)}
	// The first stage's input mark, from the checkpoint's JSON form, is
	// where the source restarts.
	var view struct {
		Stages []struct{ In flow.Mark } `json:"stages"`
	}
	if err := json.Unmarshal(js, &view); err != nil {
		return Result{}, err
	}
	if len(view.Stages) == 0 || view.Stages[0].In.Part < 0 {
		return Result{}, fmt.Errorf("the checkpoint restarts the source at its start: %s", js)
	}
	res.RestartGroup = epoch.Partition(view.Stages[0].In.Part)

	var refs, resumes []time.Duration
	for range rounds + 1 { // the first round warms up
		t0 := time.Now()
		n := startAt
		for _, err := range flow.Items[operators.Rows[int64]](ctx, p.Resume(start)) {
			if err != nil {
				return Result{}, err
			}
			if n++; n == at {
				break
			}
		}
		refs = append(refs, time.Since(t0))

		t0 = time.Now()
		for it, err := range flow.Items[operators.Rows[int64]](ctx, p.Resume(ck)) {
			if err != nil {
				return Result{}, err
			}
			if !slices.Equal(it.Value.Values, next.Values) {
				return Result{}, fmt.Errorf("the resumed run's first batch %v differs from the uninterrupted run's %v", it.Value.Values[:4], next.Values[:4])
			}
			break
		}
		resumes = append(resumes, time.Since(t0))
	}
	res.Reference, res.Resume = median(refs[1:]), median(resumes[1:])
	return res, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
