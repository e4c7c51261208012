//go:build race

package pqcol

// raceEnabled reports a -race build, where sync.Pool drops items at random
// and allocation counts mean little.
const raceEnabled = true
