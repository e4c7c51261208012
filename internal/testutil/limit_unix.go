//go:build unix

package testutil

import "syscall"

// LimitAddressSpace caps the process's virtual memory at n bytes
// (RLIMIT_AS), so that a child process that tries to allocate without
// bound dies quickly instead of exhausting the machine.
func LimitAddressSpace(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
}
