//go:build unix

package main

import (
	"os"
	"syscall"
	"time"
)

// usage returns the CPU time (user and system) and the peak resident set
// size in bytes of a child process that has exited.
func usage(ps *os.ProcessState) (time.Duration, int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return ps.UserTime() + ps.SystemTime(), 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Maxrss) * 1024 // KiB on Linux
}
