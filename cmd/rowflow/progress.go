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
	// Lines off a terminal:
	lines io.Writer
	name  string
	total int64
}

// startProgress returns a context whose runs report to a bar named name,
// and the bar, or ctx and nil when no bar is wanted.
func startProgress(ctx context.Context, name string, want bool, total int64) (context.Context, *progress) {
	term := isTerminal(os.Stderr)
	if !want && !term {
		return ctx, nil
	}
	if !term || terminalWidth(os.Stderr) == 0 {
		return startLines(ctx, name, total)
	}
	popts := []mpb.ContainerOption{mpb.WithOutput(os.Stderr), mpb.WithWidth(32), mpb.WithRefreshRate(150 * time.Millisecond)}
	pr := &progress{bars: mpb.NewWithContext(ctx, popts...)}
	pr.bar = pr.bars.New(total, mpb.BarStyle(),
		mpb.PrependDecorators(decor.Name(name+" "), decor.Any(func(decor.Statistics) string {
			if total > 0 {
				return fmt.Sprintf("%d/%d rows", pr.last.Rows, total)
			}
			return fmt.Sprintf("%d rows", pr.last.Rows)
		}, decor.WCSyncSpaceR)),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string {
			s := fmt.Sprintf("%.0f rows/s", pr.last.Rate)
			if pr.last.Remaining > 0 {
				s += fmt.Sprintf("  ETA %s", pr.last.Remaining.Round(time.Second))
			}
			return s
		})))
	m := &flow.Monitor{OnProgress: pr.update, ProgressEvery: 100 * time.Millisecond, TotalRows: total}
	return flow.WithMonitor(ctx, m), pr
}

// startLines returns a context whose runs print a progress line a second.
func startLines(ctx context.Context, name string, total int64) (context.Context, *progress) {
	pr := &progress{lines: os.Stderr, name: name, total: total}
	m := &flow.Monitor{OnProgress: pr.update, ProgressEvery: time.Second, TotalRows: total}
	return flow.WithMonitor(ctx, m), pr
}

func (pr *progress) update(p flow.Stats) {
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
	s := fmt.Sprintf("%s: %d rows", pr.name, p.Rows)
	if pr.total > 0 {
		s = fmt.Sprintf("%s: %d/%d rows", pr.name, p.Rows, pr.total)
	}
	s += fmt.Sprintf(", %.0f rows/s", p.Rate)
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
	if final.Rows > 0 {
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
