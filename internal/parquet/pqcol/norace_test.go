//go:build !race

package pqcol

const raceEnabled = false
