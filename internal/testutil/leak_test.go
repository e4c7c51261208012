package testutil

import (
	"strings"
	"testing"
	"testing/synctest"
)

func blockedHelper(c chan struct{}) { <-c }

// TestBubbleStacks: the goroutines of the bubble are counted, with their
// stacks, and one that exits is no longer counted.
func TestBubbleStacks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := bubbleStacks()
		if len(base) == 0 || !strings.Contains(strings.Join(base, "\n"), "TestBubbleStacks") {
			t.Fatalf("the bubble's own goroutine is not among its stacks: %q", base)
		}
		c := make(chan struct{})
		go blockedHelper(c)
		synctest.Wait()
		with := bubbleStacks()
		if len(with) != len(base)+1 || !strings.Contains(strings.Join(with, "\n"), "testutil.blockedHelper") {
			t.Fatalf("%d stacks with a blocked goroutine, %d before:\n%s", len(with), len(base), strings.Join(with, "\n\n"))
		}
		close(c)
		synctest.Wait()
		if after := bubbleStacks(); len(after) != len(base) {
			t.Fatalf("%d stacks after the goroutine exited, %d before", len(after), len(base))
		}
	})
}

// TestSynctestWaitsForExits: goroutines that are finishing when the test
// function returns are waited for, not reported.
func TestSynctestWaitsForExits(t *testing.T) {
	Synctest(t, func(t *testing.T) {
		done := make(chan struct{})
		for range 8 {
			go func() { done <- struct{}{} }()
		}
		for range 8 {
			<-done
		}
	})
}
