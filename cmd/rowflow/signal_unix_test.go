//go:build unix

package main_test

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A reshard that receives SIGINT or SIGTERM while it writes stops as a
// failed run: exit code 1, an error that says why, and nothing left in
// the output directory, neither files under final names nor the
// temporaries and lock of the run. (A scheduler such as Kubernetes stops
// a job with SIGTERM.)
func TestReshardInterruptedBySignal(t *testing.T) {
	data := bigDataset(t, 60000)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "shards")
			cmd := exec.Command(rowflowBin, "reshard", "-out", out, "-rows-per-file", "2000", "-progress-every", "1000", "-format", "jsonl", "-compression", "none", data)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(stderr)
			if !lines.Scan() || !strings.HasSuffix(lines.Text(), " rows read") {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no progress line: %q", lines.Text())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var rest bytes.Buffer
			for lines.Scan() {
				rest.WriteString(lines.Text() + "\n")
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("rowflow reshard after %v: %v (exit code %d), want exit code 1\n%s", sig, err, cmd.ProcessState.ExitCode(), rest.String())
			}
			if !strings.Contains(rest.String(), "signal received") {
				t.Errorf("rowflow reshard after %v: the error does not say why:\n%s", sig, rest.String())
			}
			var left []string
			filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					left = append(left, p)
				}
				return nil
			})
			if len(left) > 0 {
				t.Errorf("rowflow reshard after %v left %d files in its output, e.g. %s", sig, len(left), left[0])
			}
		})
	}
}
