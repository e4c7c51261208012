// Package longtest is the switch of the tests that are too long for the
// README's test command (go test ./...): soak tests, fuzz corpora, tens of
// millions of rows, killed child processes. They run when ROWFLOW_LONG is
// set to 1, as .ci/run sets it, and skip otherwise, saying how to run
// them. It imports nothing of rowflow, so that every package's tests can
// use it.
package longtest

import (
	"os"
	"testing"
)

// Env is the variable that turns the long tests on.
const Env = "ROWFLOW_LONG"

// On reports whether the long tests run.
func On() bool { return os.Getenv(Env) == "1" }

// Require skips t unless the long tests run.
func Require(t testing.TB) {
	t.Helper()
	if !On() {
		t.Skipf("a long test: set %s=1 to run it (.ci/run does)", Env)
	}
}
