//go:build race

package testutil

// RaceEnabled reports a binary built with the race detector, where
// sync.Pool drops items at random, allocation counts mean little and
// memory is several times a plain build's.
const RaceEnabled = true
