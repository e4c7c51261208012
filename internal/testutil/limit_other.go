//go:build !unix

package testutil

import "errors"

// LimitAddressSpace caps the process's virtual memory at n bytes; it is
// not available on this system.
func LimitAddressSpace(n uint64) error {
	return errors.New("testutil: LimitAddressSpace needs a Unix system")
}
