// Package testutil holds helpers shared by rowflow's tests: goroutine leak
// checks, dataset generators and fault injection.
package testutil

import (
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// Synctest runs f in a synctest bubble (see [synctest.Test]) and checks
// that every goroutine f started has exited when it ends. In the bubble,
// [synctest.Wait] waits until every goroutine of the bubble is blocked,
// which is how a test waits for a pipeline to stall without polling, and
// time is fake, so a guard such as time.After(time.Minute) fires as soon as
// everything else is blocked: a hang is reported at once, not after a real
// timeout. A goroutine still blocked at the end is reported with its stack
// (and synctest then fails the test as deadlocked). Tests that use it must
// not run in parallel with others.
func Synctest(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		base := len(bubbleStacks())
		t.Cleanup(func() {
			synctest.Wait()
			if left := bubbleStacks(); len(left) > base {
				t.Errorf("%d goroutines still running, %d at the start:\n%s", len(left), base, pipelineStacks(strings.Join(left, "\n\n")))
			}
		})
		f(t)
	})
}

// bubbleStacks returns the stacks of the goroutines in the caller's
// synctest bubble, whose headers name it ("goroutine 7 [chan receive,
// synctest bubble 1]:"); goroutines outside it, such as the runtime's and
// the race detector's, do not count.
func bubbleStacks() []string {
	self := make([]byte, 256)
	self = self[:runtime.Stack(self, false)]
	header, _, _ := strings.Cut(string(self), "\n")
	i := strings.Index(header, "synctest bubble ")
	if i < 0 {
		panic("testutil: bubbleStacks called outside a synctest bubble")
	}
	mark := header[i : strings.LastIndex(header, "]")+1]
	var out []string
	for _, g := range strings.Split(allStacks(), "\n\n") {
		if h, _, _ := strings.Cut(g, "\n"); strings.Contains(h, mark) {
			out = append(out, g)
		}
	}
	return out
}

// CheckGoroutines records the number of goroutines now and, when the test
// ends, fails it if more are running than at the start. Goroutines that
// have finished their work may take a moment to exit, so the check yields
// the processor until the count returns to the baseline, for up to 5
// seconds, then reports the stacks of what is left. It is for tests that
// cannot run in a bubble; [Synctest] needs no such wait. Tests that use it
// must not run in parallel with others.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	base := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		if n := runtime.NumGoroutine(); n > base {
			t.Errorf("%d goroutines still running, %d at the start:\n%s", n, base, pipelineStacks(allStacks()))
		}
	})
}

func allStacks() string {
	buf := make([]byte, 1<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// pipelineStacks keeps the goroutine stacks that mention rowflow.
func pipelineStacks(all string) string {
	var keep []string
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, "rowflow/rowflow/") && !strings.Contains(g, "testutil.CheckGoroutines") && !strings.Contains(g, "testutil.Synctest") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}
