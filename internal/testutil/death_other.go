//go:build !linux

package testutil

import "os/exec"

// dieWithParent does nothing where the system cannot tie a child's life
// to its parent's: a server a crashed test started there outlives it.
func dieWithParent(*exec.Cmd) {}
