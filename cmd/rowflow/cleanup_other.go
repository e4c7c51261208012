//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// tryLock does not lock here, as the sinks do not: every run's lock
// looks free.
func tryLock(*os.File) (bool, error) { return true, nil }
