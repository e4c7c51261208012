package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
)

// TestMain runs main, in a child process of the test, when
// QUICKSTART_MAIN holds its arguments.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("QUICKSTART_MAIN"); ok {
		os.Args = append([]string{"quickstart"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestQuickstartRuns(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := run(context.Background(), &out, 5000, 3, dir); err != nil {
		t.Fatal(err)
	}
	m, err := shards.ReadManifest(filepath.Join(dir, "tokens-5000"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Another run, elsewhere and with other workers, writes the same files.
	other := t.TempDir()
	if err := run(context.Background(), io.Discard, 5000, 2, other); err != nil {
		t.Fatal(err)
	}
	m2, err := shards.ReadManifest(filepath.Join(other, "tokens-5000"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Files) != len(m.Files) {
		t.Fatalf("%d files, then %d", len(m.Files), len(m2.Files))
	}
	for i := range m.Files {
		if m.Files[i].SHA256 != m2.Files[i].SHA256 || m.Files[i].Path != m2.Files[i].Path {
			t.Fatalf("file %s differs between runs", m.Files[i].Path)
		}
	}
	var rows int64
	for _, f := range m.Files {
		rows += f.Rows
		if _, err := os.Stat(filepath.Join(dir, "tokens-5000", f.Path)); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.Files) < 2 || rows == 0 {
		t.Fatalf("manifest lists %d files with %d rows", len(m.Files), rows)
	}
	want := fmt.Sprintf("wrote %d files under %s:\n", len(m.Files), filepath.Join(dir, "tokens-5000"))
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// Without -dir, quickstart says that the files it wrote go when it ends,
// and they do; the stream's Part is labelled as the partition it is.
func TestQuickstartTemporary(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out strings.Builder
	if err := run(context.Background(), &out, 2000, 2, ""); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if !strings.Contains(text, "first tokens of the shuffled stream (partition, row ID, value):\n") {
		t.Errorf("output lacks the partition label:\n%s", text)
	}
	var wrote string
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, "wrote ") {
			wrote = l
		}
	}
	if !strings.HasSuffix(wrote, " (removed when quickstart ends; -dir DIR keeps the files):\n") || !strings.Contains(wrote, tmp) {
		t.Errorf("the line about the files is %q", wrote)
	}
	if entries, err := os.ReadDir(tmp); err != nil || len(entries) != 0 {
		t.Errorf("the temporary directory holds %v (%v), want it removed", entries, err)
	}
}

func TestTokenize(t *testing.T) {
	got, err := tokenize(Sentence{Text: "The  data,row ", Lang: "en"})
	if err != nil || len(got) != 3 || got[0].Word != "the" || got[2] != (Token{Word: "row", Pos: 2, Lang: "en"}) {
		t.Fatalf("tokenize = %+v, %v", got, err)
	}
}

// A size or a number of workers that quickstart cannot use is an error
// that says so, from run and, with exit code 2, from the command, before
// anything is written.
func TestQuickstartFlags(t *testing.T) {
	for _, c := range []struct {
		n, workers int
		msg        string
	}{
		{-5, 2, "-n -5: must be at least 1"},
		{0, 2, "-n 0: must be at least 1"},
		{100, 0, "-workers 0: must be at least 1"},
		{100, -1, "-workers -1: must be at least 1"},
		{100, 70000, `-workers 70000: flow: Parallel(70000) on stage "slice": at most 65536 workers`},
	} {
		dir := t.TempDir()
		err := run(context.Background(), io.Discard, c.n, c.workers, dir)
		if err == nil || err.Error() != c.msg {
			t.Errorf("run with -n %d -workers %d: %v, want %s", c.n, c.workers, err, c.msg)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("run with -n %d -workers %d wrote %v", c.n, c.workers, entries)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("QUICKSTART_MAIN=-n %d -workers %d -dir %s", c.n, c.workers, dir))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		var exit *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 2 || stderr.String() != "quickstart: "+c.msg+"\n" {
			t.Errorf("quickstart -n %d -workers %d: %v, %q; want exit 2 and %s", c.n, c.workers, err, stderr.String(), c.msg)
		}
	}
}

// Runs in one directory with other sizes each write their own sample and
// tokens, and a run again with a size writes the same files; files that
// quickstart did not write stay as they are.
func TestQuickstartRerunInOneDirectory(t *testing.T) {
	dir := t.TempDir()
	mine := map[string]string{"notes.txt": "mine", "tokens/keep.txt": "mine too", "sentences/keep.txt": "and this"}
	for rel, body := range mine {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sums := map[int]string{}
	for _, n := range []int{1500, 2500, 1500} {
		var out strings.Builder
		if err := run(context.Background(), &out, n, 2, dir); err != nil {
			t.Fatalf("run with -n %d after others in %s: %v", n, dir, err)
		}
		m, err := shards.ReadManifest(filepath.Join(dir, fmt.Sprintf("tokens-%d", n)), 0)
		if err != nil {
			t.Fatal(err)
		}
		var sum strings.Builder
		for _, f := range m.Files {
			sum.WriteString(f.SHA256)
		}
		if old, ok := sums[n]; ok && old != sum.String() {
			t.Errorf("-n %d wrote other files the second time", n)
		}
		sums[n] = sum.String()
		if !strings.Contains(out.String(), fmt.Sprintf("sample dataset: %d sentences in 6 Parquet files under %s\n", n, filepath.Join(dir, fmt.Sprintf("sentences-%d", n)))) {
			t.Errorf("run with -n %d said:\n%s", n, out.String())
		}
	}
	if sums[1500] == sums[2500] {
		t.Error("-n 1500 and -n 2500 wrote the same files")
	}
	for rel, body := range mine {
		if b, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(b) != body {
			t.Errorf("%s: %q, %v; want %q kept", rel, b, err, body)
		}
	}
}
