package testutil

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestS3GatewayDiesWithTheTest: a test process that dies (killed, as at a
// timeout) takes the gateway it started with it. A child test process
// starts one, reports its PID and blocks; this test kills the child and
// waits, through a pidfd, for the gateway to exit.
func TestS3GatewayDiesWithTheTest(t *testing.T) {
	if os.Getenv("ROWFLOW_S3_DEATH_CHILD") != "" {
		s := StartS3(t)
		fmt.Printf("gateway-pid %d\n", s.pid)
		io.Copy(io.Discard, os.Stdin) // until the parent kills this process
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestS3GatewayDiesWithTheTest$", "-test.v")
	cmd.Env = append(os.Environ(), "ROWFLOW_S3_DEATH_CHILD=1")
	stdin, err := cmd.StdinPipe() // held open: the child blocks on it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid, seen := 0, &strings.Builder{}
	for sc := bufio.NewScanner(out); pid == 0 && sc.Scan(); {
		fmt.Fprintln(seen, sc.Text())
		fmt.Sscanf(sc.Text(), "gateway-pid %d", &pid)
	}
	if pid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skipf("the child started no gateway:\n%s", seen)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Skipf("no pidfd to wait for the gateway with: %v", err)
	}
	defer unix.Close(fd)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, 60_000) // readable once the gateway has exited
		if err == unix.EINTR {
			continue
		}
		if n != 1 || err != nil {
			unix.Kill(pid, unix.SIGKILL)
			t.Fatalf("the gateway (pid %d) outlived its killed test process by a minute: %d, %v", pid, n, err)
		}
		return
	}
}
