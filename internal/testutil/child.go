package testutil

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Memory bounds of hostile inputs are measured in child processes: the
// test binary runs again with only one test selected and an environment
// variable naming what that test should do, so that the child's peak
// resident set size is that of the work alone.

const (
	childEnv    = "ROWFLOW_TEST_CHILD"
	childPrefix = "rowflow-child:"
)

// ChildArg returns the argument that [RunChild] passed to this process,
// and whether the process is such a child. A child test that is not one
// skips itself.
func ChildArg(t testing.TB) string {
	t.Helper()
	arg, ok := os.LookupEnv(childEnv)
	if !ok {
		t.Skip("run in a child process by another test")
	}
	return arg
}

// RunChild runs the test named test of the current test binary in a child
// process, with arg available to it through [ChildArg], and returns the
// values the child reported with [Report]. A child that fails or dies
// fails t, with its output.
func RunChild(t testing.TB, test, arg string) map[string]string {
	t.Helper()
	out, err := ChildOutput(test, arg)
	if err != nil {
		t.Fatalf("child %s(%s): %v\n%s", test, arg, err, tail(out))
	}
	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), childPrefix)
		if !ok {
			continue
		}
		for _, kv := range strings.Split(strings.TrimSpace(line), "\t") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				got[k] = v
			}
		}
	}
	if len(got) == 0 {
		t.Fatalf("child %s(%s) reported nothing:\n%s", test, arg, tail(out))
	}
	return got
}

// ChildOutput runs the test named test of the current test binary in a
// child process, as [RunChild] does, and returns its output and how it
// ended: an *exec.ExitError if it failed or was killed.
func ChildOutput(test, arg string) ([]byte, error) {
	return ChildCommand(test, arg).CombinedOutput()
}

// ChildCommand returns the command that runs the test named test of the
// current test binary in a child process, with arg available to it
// through [ChildArg], for a caller that talks to the child while it runs
// (through pipes, or by signalling it).
func ChildCommand(test, arg string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+arg)
	return cmd
}

// StartChild starts the test named test of the current test binary in a
// child process, as [ChildCommand] makes it, for a parent that kills it
// at a point the child reports: the child writes its reports to file
// descriptor 3 (os.NewFile(3, …)), which the returned scanner reads, and
// its standard input is a pipe that is never written, so a child that
// reads it blocks until it is killed. Its standard output and error go to
// out. The pipes are closed when t ends; the caller waits for the child.
func StartChild(t testing.TB, test, arg string) (cmd *exec.Cmd, reports *bufio.Scanner, out *bytes.Buffer) {
	t.Helper()
	cmd = ChildCommand(test, arg)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	cmd.ExtraFiles = []*os.File{w}
	stdin, err := cmd.StdinPipe() // never written: the child blocks on it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close() })
	out = new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return cmd, bufio.NewScanner(r), out
}

func tail(out []byte) []byte {
	if len(out) > 8<<10 {
		return out[len(out)-8<<10:]
	}
	return out
}

// Report prints key=value pairs for the parent's [RunChild]. Values must
// not hold tabs or newlines.
func Report(kv ...any) {
	var b strings.Builder
	b.WriteString(childPrefix)
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&b, "%v=%v\t", kv[i], kv[i+1])
	}
	fmt.Println(strings.TrimSuffix(b.String(), "\t"))
}

// PeakRSS returns the process's peak resident set size in bytes (VmHWM in
// /proc/self/status). It fails where /proc is not available.
func PeakRSS() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kib << 10, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// ReportRun reports to a child's parent its peak RSS, the rows its run
// read and the run's error on one line.
func ReportRun(t testing.TB, rows int64, err error) {
	peak, perr := PeakRSS()
	if perr != nil {
		t.Fatal(perr)
	}
	msg := "no error"
	if err != nil {
		msg = strings.NewReplacer("\t", " ", "\n", " ").Replace(err.Error())
	}
	Report("peak", peak, "rows", rows, "err", msg)
}

// raceMemory is how many times a plain build's memory a child built with
// the race detector may take: its shadow memory and bookkeeping raise a
// program's memory by 5–10× by Go's documentation, by 1.3–2.7× in
// rowflow's children (whose memory is mostly buffers).
const raceMemory = 4

// CheckPeak fails t unless peak, a child's peak resident set size in
// bytes as [ReportRun] reports it, is positive and at most bound bytes:
// the bound of the work in a plain build, raised raceMemory times in a
// build with the race detector, where the check still finds memory that
// grows with the input.
func CheckPeak(t testing.TB, peak string, bound int64) {
	t.Helper()
	n, err := strconv.ParseInt(peak, 10, 64)
	if RaceEnabled {
		bound *= raceMemory
	}
	if err != nil || n <= 0 || n > bound {
		t.Errorf("peak RSS %q bytes, want at most %d MiB (race detector: %t)", peak, bound>>20, RaceEnabled)
	}
}
