//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package flock

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTempsOfLiveAndDeadRuns: a temporary stays while its file is open
// (its run lives) and is removed by the next CreateTemp or RemoveStale
// once it is closed (its run died); entries of another prefix stay.
func TestTempsOfLiveAndDeadRuns(t *testing.T) {
	dir := t.TempDir()
	names := func() []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	other := filepath.Join(dir, "other-1")
	if err := os.WriteFile(other, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	live, err := CreateTemp(dir, "t-", false)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead, err := CreateTemp(dir, "t-", true)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dead.Name()); err != nil || !fi.IsDir() {
		t.Fatalf("CreateTemp(isDir) made %v (%v), want a directory", fi, err)
	}
	if err := os.WriteFile(filepath.Join(dead.Name(), "staged"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := len(names()); got != 3 {
		t.Fatalf("%d entries after two CreateTemps, want 3: %v", got, names())
	}
	dead.Close() // its run is gone
	third, err := CreateTemp(dir, "t-", false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Base(live.Name()), filepath.Base(third.Name()), "other-1"}
	slices.Sort(want)
	if got := names(); !slices.Equal(got, want) {
		t.Fatalf("after a run died and another started: %v, want %v", got, want)
	}
	live.Close()
	third.Close()
	RemoveStale(dir, "t-")
	if got := names(); !slices.Equal(got, []string{"other-1"}) {
		t.Fatalf("after every run ended: %v, want [other-1]", got)
	}
}
