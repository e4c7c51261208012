//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

// Package flock takes the exclusive file locks with which a run holds
// what it is writing: a sink's rank output, its staging directory, a
// cache's temporary file. The command's cleanup and the next run ask,
// by trying the lock, whether a run still holds them, and remove the
// temporaries of runs that were killed (CreateTemp, RemoveStale).
package flock

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive flock on f without waiting, and reports
// whether it got it. Where the file system has no locks it reports true:
// runs are then not excluded.
func TryLock(f *os.File) (bool, error) {
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
			return true, nil
		}
		return false, err
	}
}

// Lock takes an exclusive flock on f, waiting for it, and reports whether
// it holds one: false, with no error, where the file system has no locks.
func Lock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOLCK):
			return false, nil
		}
		return false, err
	}
}
