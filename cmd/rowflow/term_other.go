//go:build !linux

package main

import "os"

// isTerminal reports whether f is a terminal: on this system rowflow does
// not tell, so the bar shows only with -progress.
func isTerminal(*os.File) bool { return false }

// terminalWidth is 0: off Linux the bar is drawn as lines.
func terminalWidth(*os.File) int { return 0 }
