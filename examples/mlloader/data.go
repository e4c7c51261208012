package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Doc is a row of the training dataset.
type Doc struct {
	ID    int64  `parquet:"id"`
	Text  string `parquet:"text"`
	Label int32  `parquet:"label"`
}

// writeDataset writes n documents of 1 to 120 words under dir, in the
// given number of Parquet files with row groups of 4096 rows. The text comes from a fixed
// linear congruential sequence, so every run writes the same data.
func writeDataset(dir string, n, files int) error {
	words := strings.Fields("the a of data row pipeline parallel serial order merge batch shard epoch " +
		"seed stream parquet column token model train replay test exact fast worker gradient loss step")
	x := uint64(7)
	next := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int(x>>33) % m
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for f := range files {
		lo, hi := f*n/files, (f+1)*n/files
		docs := make([]Doc, 0, hi-lo)
		for i := lo; i < hi; i++ {
			text := make([]string, 1+next(120))
			for j := range text {
				text[j] = words[next(len(words))]
			}
			docs = append(docs, Doc{ID: int64(i), Text: strings.Join(text, " "), Label: int32(next(10))})
		}
		if err := writeFile(filepath.Join(dir, fmt.Sprintf("part-%03d.parquet", f)), docs); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, docs []Doc) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := parquet.NewGenericWriter[Doc](f, parquet.Compression(&zstd.Codec{}))
	for len(docs) > 0 {
		k := min(4096, len(docs))
		if _, err := w.Write(docs[:k]); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		docs = docs[k:]
	}
	if err := w.Close(); err != nil {
		return err
	}
	return f.Close()
}
