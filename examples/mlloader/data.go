package main

import (
	"context"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// Doc is a row of the training dataset, and the training example made of
// it: the Parquet files hold its ID, text and label; tokenize fills in its
// tokens. operators.Collate makes a batch of Docs columns by these tags:
// id and label as vectors, the tokens as input_ids padded to a multiple
// of 8; the text, a string, is left out.
type Doc struct {
	ID     int64   `parquet:"id"`
	Text   string  `parquet:"text"`
	Label  int32   `parquet:"label"`
	Tokens []int32 `parquet:"-" collate:"input_ids,multiple=8"`
}

var vocabulary = strings.Fields("the a of data row pipeline parallel serial order merge batch shard epoch " +
	"seed stream parquet column token model train replay test exact fast worker gradient loss step")

// doc makes document i: 1 to 120 words and a label, drawn from a fixed
// linear congruential sequence started at i, so every run writes the
// same data.
func doc(i int64) (Doc, error) {
	x := uint64(i)*0x9e3779b97f4a7c15 + 7
	next := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int(x>>33) % m
	}
	text := make([]string, 1+next(120))
	for j := range text {
		text[j] = vocabulary[next(len(vocabulary))]
	}
	return Doc{ID: i, Text: strings.Join(text, " "), Label: int32(next(10))}, nil
}

// writeDataset writes n documents under dir with rowflow itself: Parquet
// files of up to n/files rows, row groups of 4096 rows.
func writeDataset(ctx context.Context, dir string, n, files int) error {
	return flow.From(sources.Generate(int64(n), doc, sources.PartitionItems(4096))).Parallel(2).
		To(shards.Parquet[Doc](dir, shards.RowsPerFile(int64((n+files-1)/files)), shards.RowGroupRows(4096))).
		Run(ctx)
}
