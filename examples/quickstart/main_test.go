package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/sinks"
)

func TestQuickstartRuns(t *testing.T) {
	dir := t.TempDir()
	var out strings.Builder
	if err := run(context.Background(), &out, 5000, 3, dir); err != nil {
		t.Fatal(err)
	}
	m, err := sinks.ReadManifest(filepath.Join(dir, "tokens"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Another run, elsewhere and with other workers, writes the same files.
	other := t.TempDir()
	if err := run(context.Background(), io.Discard, 5000, 2, other); err != nil {
		t.Fatal(err)
	}
	m2, err := sinks.ReadManifest(filepath.Join(other, "tokens"), 0)
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
		if _, err := os.Stat(filepath.Join(dir, "tokens", f.Path)); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.Files) < 2 || rows == 0 {
		t.Fatalf("manifest lists %d files with %d rows", len(m.Files), rows)
	}
	want := fmt.Sprintf("wrote %d files under %s:\n", len(m.Files), filepath.Join(dir, "tokens"))
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
