//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sinks

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f without waiting, and reports
// whether it got it.
func lockFile(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOLCK):
			return true, nil // the file system has no locks: runs are not excluded
		}
		return false, err
	}
}
