package testutil

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the child cmd starts receive SIGKILL when the
// thread that started it ends, as it does when the test process dies
// (crashed, or killed at a timeout), so that no server it started
// outlives it. Go ends a thread only when a goroutine locked to it
// exits, which the callers do not do.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
