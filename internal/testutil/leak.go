// Package testutil holds helpers shared by rowflow's tests: goroutine leak
// checks, dataset generators and fault injection.
package testutil

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// CheckGoroutines records the number of goroutines now and, when the test
// ends, fails it if more are running than at the start. Goroutines that
// have finished their work may take a moment to exit, so the check yields
// the processor until the count returns to the baseline, for up to 5
// seconds, then reports the stacks of what is left. Tests that use it must
// not run in parallel with others.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	base := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		if n := runtime.NumGoroutine(); n > base {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("%d goroutines still running, %d at the start:\n%s", n, base, pipelineStacks(string(buf)))
		}
	})
}

// pipelineStacks keeps the goroutine stacks that mention rowflow.
func pipelineStacks(all string) string {
	var keep []string
	for _, g := range strings.Split(all, "\n\n") {
		if strings.Contains(g, "rowflow/rowflow/") && !strings.Contains(g, "testutil.CheckGoroutines") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}
