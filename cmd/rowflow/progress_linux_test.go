package main_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY returns the two ends of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A terminal of 100 columns: mpb draws nothing on one of width 0.
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100}); err != nil {
		t.Fatal(err)
	}
	return m, s
}

// On a terminal, reshard draws a progress bar with rows, the rate and
// the total; off a terminal it prints nothing on standard error.
func TestProgressBarOnATerminal(t *testing.T) {
	data := dataset(t)
	master, slave := openPTY(t)
	defer master.Close()
	cmd := exec.Command(rowflowBin, "reshard", "-out", filepath.Join(t.TempDir(), "out"), data)
	cmd.Stderr = slave
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child holds it now
	screen := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // ends with EIO once the child has exited
		screen <- b
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	got := string(<-screen)
	for _, want := range []string{"reshard", "1000/1000 rows", "rows/s", "["} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal shows no %q:\n%q", want, got)
		}
	}
	// Off a terminal: quiet, unless -progress asks for progress lines.
	_, errOut, code := rowflow(t, nil, "reshard", "-out", filepath.Join(t.TempDir(), "out2"), data)
	if code != 0 || errOut != "" {
		t.Fatalf("off a terminal: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = rowflow(t, nil, "reshard", "-progress", "-out", filepath.Join(t.TempDir(), "out3"), data)
	if code != 0 || !strings.Contains(errOut, "1000/1000 rows") {
		t.Fatalf("-progress off a terminal: exit %d, stderr %q", code, errOut)
	}
}

// TestProgressLines: off a terminal, and on a pseudo-terminal that
// reports no size, -progress prints whole lines with the rows, the rate
// and how the run ended, rather than a bar cut to a width it cannot know
// (or nothing at all).
func TestProgressLines(t *testing.T) {
	data := dataset(t)
	_, errOut, code := rowflow(t, nil, "reshard", "-progress", "-out", filepath.Join(t.TempDir(), "out"), data)
	last := lastLine(errOut)
	if code != 0 || !strings.HasPrefix(last, "reshard: 1000/1000 rows, ") || !strings.Contains(last, " rows/s") || !strings.HasSuffix(last, ", done") {
		t.Fatalf("-progress off a terminal: exit %d, last line %q of\n%s", code, last, errOut)
	}

	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer m.Close()
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// No TIOCSWINSZ: the terminal reports 0 columns and 0 rows.
	cmd := exec.Command(rowflowBin, "reshard", "-out", filepath.Join(t.TempDir(), "out2"), data)
	cmd.Stderr = s
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	screen := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(m)
		screen <- b
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(string(<-screen), "\r", "")
	if last := lastLine(got); !strings.HasPrefix(last, "reshard: 1000/1000 rows, ") || !strings.HasSuffix(last, ", done") {
		t.Fatalf("a terminal of no size shows %q", got)
	}
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
