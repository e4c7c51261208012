//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"testing"
)

// A symbolic link does not hide that the output lies in the input: a
// link to the input, to a directory inside it, or an input given through
// a link.
func TestReshardOutputInsideInputThroughLinks(t *testing.T) {
	in := eightEvents(t)
	links := t.TempDir()
	toIn := filepath.Join(links, "to-in")
	if err := os.Symlink(in, toIn); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(in, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	toSub := filepath.Join(links, "to-sub")
	if err := os.Symlink(filepath.Join(in, "sub"), toSub); err != nil {
		t.Fatal(err)
	}
	reshardRefused(t, in, toIn)
	reshardRefused(t, in, filepath.Join(toIn, "out"))
	reshardRefused(t, in, filepath.Join(toSub, "new", "out"))
	reshardRefused(t, toIn, filepath.Join(in, "out"))
}
