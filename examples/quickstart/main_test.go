package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/sinks"
)

func TestQuickstartRuns(t *testing.T) {
	dir := t.TempDir()
	if err := run(context.Background(), 5000, 3, dir); err != nil {
		t.Fatal(err)
	}
	m, err := sinks.ReadManifest(filepath.Join(dir, "tokens"), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Another run, elsewhere and with other workers, writes the same files.
	other := t.TempDir()
	if err := run(context.Background(), 5000, 2, other); err != nil {
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
}

func TestTokenize(t *testing.T) {
	got, err := tokenize(Sentence{Text: "The  data,row ", Lang: "en"})
	if err != nil || len(got) != 3 || got[0].Word != "the" || got[2] != (Token{Word: "row", Pos: 2, Lang: "en"}) {
		t.Fatalf("tokenize = %+v, %v", got, err)
	}
}
