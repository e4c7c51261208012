package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/rowflow/rowflow/flow"
)

// progress shows a run's progress on standard error: a bar (rows, rows/s,
// time left when the total is known) from
// github.com/vbauerster/mpb/v8 when standard error is a terminal of some
// width; when -progress asks for it elsewhere (a file, a pipe, a terminal
// that reports no width), a line a second with the same figures, which a
// log keeps whole; nothing otherwise.
type progress struct {
	bars *mpb.Progress
	bar  *mpb.Bar
	last flow.Stats
	// unit is what the run's items are: "rows", or "batches" for column
	// batches, whose count says nothing of the rows or the time left.
	unit string
	// Lines off a terminal:
	lines io.Writer
	name  string
	total int64
}

// startProgress returns a context whose runs report to a bar named name,
// and the bar, or ctx and nil when no bar is wanted. unit is what the
// run's items are ("rows" or "batches"); total, when known, counts them.
func startProgress(ctx context.Context, name string, want bool, total int64, unit string) (context.Context, *progress) {
	term := isTerminal(os.Stderr)
	if !want && !term {
		return ctx, nil
	}
	if !term || terminalWidth(os.Stderr) == 0 {
		return startLines(ctx, name, total, unit)
	}
	if unit != "rows" {
		total = 0
	}
	popts := []mpb.ContainerOption{mpb.WithOutput(os.Stderr), mpb.WithWidth(32), mpb.WithRefreshRate(150 * time.Millisecond)}
	pr := &progress{bars: mpb.NewWithContext(ctx, popts...), unit: unit}
	pr.bar = pr.bars.New(total, mpb.BarStyle(),
		mpb.PrependDecorators(decor.Name(name+" "), decor.Any(func(decor.Statistics) string {
			if total > 0 {
				return fmt.Sprintf("%d/%d %s", pr.last.Rows, total, unit)
			}
			return fmt.Sprintf("%d %s", pr.last.Rows, unit)
		}, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			s := fmt.Sprintf("%.0f %s/s", pr.last.Rate, unit)
			if pr.last.Remaining > 0 {
				s += fmt.Sprintf("  ETA %s", pr.last.Remaining.Round(time.Second))
			}
			return s
		})))
	m := &flow.Monitor{OnProgress: pr.update, ProgressEvery: 100 * time.Millisecond, TotalRows: total}
	return flow.WithMonitor(ctx, m), pr
}

// startLines returns a context whose runs print a progress line a second.
// total counts rows: the last line counts rows whatever the unit.
func startLines(ctx context.Context, name string, total int64, unit string) (context.Context, *progress) {
	pr := &progress{lines: os.Stderr, name: name, total: total, unit: unit}
	m := &flow.Monitor{OnProgress: pr.update, ProgressEvery: time.Second}
	if unit == "rows" {
		m.TotalRows = total
	}
	return flow.WithMonitor(ctx, m), pr
}

func (pr *progress) update(p flow.Stats) {
	if pr.unit != "rows" {
		// The time left comes from the source's row counts, which batches
		// do not follow.
		p.TotalRows, p.Remaining = 0, 0
	}
	pr.last = p
	if pr.lines != nil {
		fmt.Fprintln(pr.lines, pr.line(""))
		return
	}
	pr.bar.SetCurrent(p.Rows)
}

// line is a progress line: the name, the rows (of the total, when known),
// the rate, the time left, and then what.
func (pr *progress) line(then string) string {
	p := pr.last
	s := fmt.Sprintf("%s: %d %s", pr.name, p.Rows, pr.unit)
	if pr.total > 0 && pr.unit == "rows" {
		s = fmt.Sprintf("%s: %d/%d %s", pr.name, p.Rows, pr.total, pr.unit)
	}
	s += fmt.Sprintf(", %.0f %s/s", p.Rate, pr.unit)
	if p.Remaining > 0 {
		s += fmt.Sprintf(", ETA %s", p.Remaining.Round(time.Second))
	}
	if then != "" {
		s += ", " + then
	}
	return s
}

// done completes the bar with the run's last figures and waits for it to
// be drawn.
func (pr *progress) done(final flow.Stats, ok bool) {
	if pr == nil {
		return
	}
	if final.Rows > 0 && pr.lines != nil && pr.unit != "rows" {
		// The last line counts rows, from the run's result.
		pr.unit, final.Elapsed = "rows", pr.last.Elapsed
		if s := final.Elapsed.Seconds(); s > 0 {
			final.Rate = float64(final.Rows) / s
		}
		pr.last = final
	} else if final.Rows > 0 && pr.unit == "rows" {
		final.Rate, final.Elapsed = pr.last.Rate, pr.last.Elapsed
		if pr.lines != nil {
			pr.last = final
		} else {
			pr.update(final)
		}
	}
	if pr.lines != nil {
		fmt.Fprintln(pr.lines, pr.line(map[bool]string{true: "done", false: "failed"}[ok]))
		return
	}
	if ok {
		pr.bar.SetTotal(-1, true)
	} else {
		pr.bar.Abort(false)
	}
	pr.bars.Wait()
}
