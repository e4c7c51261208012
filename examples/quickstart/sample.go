package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// sampleRow is a row as stored: the language is in the directory name.
type sampleRow struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
}

// writeSample writes n sentences as a Hive-partitioned dataset under dir:
// lang=de, lang=en and lang=fr, two files each, row groups of 2048 rows.
// The sentences come from a fixed linear congruential sequence, so every
// run writes the same data. It returns the number of files.
func writeSample(dir string, n int) (int, error) {
	words := strings.Fields("the a data row pipeline parallel serial order merge batch shard epoch " +
		"seed stream parquet column token model train replay test exact fast worker")
	x := uint64(42)
	next := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int(x>>33) % m
	}
	langs := []string{"de", "en", "fr"}
	const perLang = 2
	files := len(langs) * perLang
	for f := range files {
		path := filepath.Join(dir, "lang="+langs[f/perLang], fmt.Sprintf("part-%d.parquet", f%perLang))
		lo, hi := f*n/files, (f+1)*n/files
		rows := make([]sampleRow, 0, hi-lo)
		for i := lo; i < hi; i++ {
			parts := make([]string, next(12))
			for j := range parts {
				parts[j] = words[next(len(words))]
			}
			rows = append(rows, sampleRow{ID: int64(i), Text: strings.Join(parts, " ")})
		}
		if err := writeFile(path, rows); err != nil {
			return 0, err
		}
	}
	return files, nil
}

func writeFile(path string, rows []sampleRow) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := parquet.NewGenericWriter[sampleRow](f, parquet.Compression(&zstd.Codec{}))
	for len(rows) > 0 {
		k := min(2048, len(rows))
		if _, err := w.Write(rows[:k]); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		rows = rows[k:]
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}
