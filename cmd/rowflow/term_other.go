//go:build !linux

package main

import "os"

// isTerminal reports whether f is a terminal: on this system rowflow does
// not tell, so the bar shows only with -progress.
func isTerminal(*os.File) bool { return false }
