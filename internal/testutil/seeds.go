package testutil

// FuzzSeeds returns how many of the n seeds that a fuzz test generates it
// adds: all n, or a quarter of them (at least one) in a binary built with
// the race detector. That pass looks for data races, which the first
// seeds reach as well as all of them do, and a seed there takes several
// times as long; the plain pass checks the values of all n.
func FuzzSeeds(n int) int {
	if RaceEnabled {
		return max(1, n/4)
	}
	return n
}
