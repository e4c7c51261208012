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
