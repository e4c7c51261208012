package main_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// head's table has a column for every name of the rows it shows, in the
// order the names first come; a row's value is under its own name, and a
// name a row lacks is blank.
func TestHeadTableColumnsOfEveryRow(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"v.jsonl": `{"a":1,"b":2}` + "\n" + `{"b":3,"c":4}` + "\n" + `{"c":"x","a":5}` + "\n"})
	out := must(t, nil, "head", filepath.Join(dir, "v.jsonl"))
	var lines []string
	for l := range strings.Lines(out) {
		lines = append(lines, strings.TrimRight(l, " \n"))
	}
	want := []string{"a  b  c", "1  2", "   3  4", "5     x"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("head printed\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
