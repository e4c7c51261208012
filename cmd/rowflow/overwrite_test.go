package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output that reshard may not replace is refused with advice in the
// command's terms: the command has no option to overwrite, so the error
// says to remove the output or write to another -out directory, never to
// use package shards' Overwrite option.
func TestOutputExistsAdviceInCommandTerms(t *testing.T) {
	in := eightEvents(t)
	// refused runs reshard into out and checks the error: exit 1, the
	// words want, advice a command-line user can follow.
	refused := func(t *testing.T, out string, want string, args ...string) {
		t.Helper()
		args = append(append([]string{"reshard", "-out", out}, args...), in)
		_, errOut, code := rowflow(t, nil, args...)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Fatalf("rowflow %s: exit %d, want 1 and %q:\n%s", strings.Join(args, " "), code, want, errOut)
		}
		if strings.Contains(errOut, "Overwrite") {
			t.Errorf("rowflow %s: the advice names the Go option Overwrite:\n%s", strings.Join(args, " "), errOut)
		}
		if !strings.Contains(errOut, "or write to another -out directory (reshard does not overwrite output)") {
			t.Errorf("rowflow %s: the advice does not name what to do instead:\n%s", strings.Join(args, " "), errOut)
		}
	}

	t.Run("another pipeline", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		must(t, nil, "reshard", "-out", out, in)
		refused(t, out, "of another pipeline", "-format", "jsonl")
	})
	t.Run("other bytes", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		must(t, nil, "reshard", "-out", out, "-compression", "gzip", in)
		if err := os.Remove(filepath.Join(out, "_manifest-00000.json")); err != nil {
			t.Fatal(err)
		}
		refused(t, out, "left by an interrupted run", "-compression", "snappy")
	})
	t.Run("unreadable manifest", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		must(t, nil, "reshard", "-out", out, in)
		if err := os.WriteFile(filepath.Join(out, "_manifest-00000.json"), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
		refused(t, out, "that this run cannot check")
	})
	t.Run("manifest of another version", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		must(t, nil, "reshard", "-out", out, in)
		path := filepath.Join(out, "_manifest-00000.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The manifest is indented JSON whose "version" comes first.
		v := strings.Replace(string(b), `"version": 3,`, `"version": 99,`, 1)
		if v == string(b) {
			t.Fatalf("the manifest has no version 3:\n%s", b)
		}
		if err := os.WriteFile(path, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
		refused(t, out, "format version 99")
		for _, args := range [][]string{{"commit", "-world", "1", out}, {"verify", "-manifest", out}} {
			_, errOut, code := rowflow(t, nil, args...)
			if code != 1 || !strings.Contains(errOut, "format version 99") || strings.Contains(errOut, "Overwrite") ||
				!strings.Contains(errOut, "remove the output and write it again with this version") {
				t.Errorf("rowflow %s: exit %d, want 1 and advice without Overwrite:\n%s", strings.Join(args, " "), code, errOut)
			}
		}
	})
}
