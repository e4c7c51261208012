//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package operators

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes an exclusive lock on the directory dir, waiting for it:
// the few operations it guards are short. It reports false, and locks
// nothing, if the directory cannot be opened or its file system has no
// locks.
func lockDir(dir string) (unlock func(), ok bool) {
	if dir == "" {
		dir = "."
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
