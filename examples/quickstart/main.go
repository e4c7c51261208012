// Command quickstart runs rowflow's main job on built-in sample data: it
// writes a small Hive-partitioned Parquet dataset of sentences, reads it
// back shuffled and in parallel, cleans and tokenises the sentences, checks
// that the parallel run reproduces the serial one exactly by comparing
// the digests of both streams, and writes the tokens as sharded Parquet
// files with a manifest. Without -dir it works in a temporary directory
// that it removes when it ends; with -dir the sample dataset and the
// token files stay there, in sentences-N and tokens-N for N sentences, so
// that a run with another -n writes beside them and one with the same -n
// writes the same files again. It never removes a file from -dir.
//
//	go run ./examples/quickstart
//	go run ./examples/quickstart -n 200000 -workers 4 -dir /tmp/quickstart
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// Sentence is a row of the sample dataset; Lang comes from the lang=…
// directories.
type Sentence struct {
	ID   int64  `parquet:"id"`
	Text string `parquet:"text"`
	Lang string `parquet:"lang"`
}

// Token is one word of a sentence, as a training job would see it.
type Token struct {
	Word string `parquet:"word"`
	ID   int32  `parquet:"vocab_id"`
	Pos  int32  `parquet:"pos"`
	Lang string `parquet:"lang"`
}

func main() {
	n := flag.Int("n", 100_000, "sentences of sample data")
	workers := flag.Int("workers", 4, "workers for the parallel runs")
	dir := flag.String("dir", "", "working directory, which keeps the files (default: a new temporary one, removed at the end)")
	flag.Parse()
	if err := checkFlags(*n, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), os.Stdout, *n, *workers, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// checkFlags checks the number of sentences n and of workers.
func checkFlags(n, workers int) error {
	if n < 1 {
		return fmt.Errorf("-n %d: must be at least 1", n)
	}
	if workers < 1 {
		return fmt.Errorf("-workers %d: must be at least 1", workers)
	}
	// Parallel refuses more workers than a stage may have: ask it before
	// anything is written.
	if err := flow.From(sources.Slice([]int(nil))).Parallel(workers).Err(); err != nil {
		return fmt.Errorf("-workers %d: %w", workers, err)
	}
	return nil
}

// run runs the quickstart in dir, or in a temporary directory that it
// removes before it returns when dir is empty, and reports to w.
func run(ctx context.Context, w io.Writer, n, workers int, dir string) error {
	if err := checkFlags(n, workers); err != nil {
		return err
	}
	note := ""
	if dir == "" {
		tmp, err := os.MkdirTemp("", "rowflow-quickstart-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
		note = " (removed when quickstart ends; -dir DIR keeps the files)"
	}
	// Each size has its own directories: the token files of one size are
	// another pipeline's output than those of another.
	data, out := filepath.Join(dir, fmt.Sprintf("sentences-%d", n)), filepath.Join(dir, fmt.Sprintf("tokens-%d", n))
	files, err := writeSample(data, n)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "sample dataset: %d sentences in %d Parquet files under %s\n", n, files, data)

	pipeline := func(par int) *flow.Pipeline {
		return flow.From(parquet.Read[Sentence](data, sources.ShuffleWindow(8), parquet.MaxRows(4096))).Parallel(par).
			Via(operators.Filter(keepSentence)).Parallel(par).
			Via(operators.FlatMap(tokenize)).Parallel(par).
			Via(operators.Map(vocab)).Parallel(par).
			WithSeed(42)
	}

	var tokens, sentences int
	langs := map[string]int{}
	var first []flow.Item[Token]
	for it, err := range flow.Items[Token](ctx, pipeline(workers)) {
		if err != nil {
			return err
		}
		tokens++
		if it.Value.Pos == 0 {
			sentences++
		}
		langs[it.Value.Lang]++
		if len(first) < 3 {
			first = append(first, it)
		}
	}
	fmt.Fprintf(w, "kept %d sentences, %d tokens (en %d, de %d, fr %d)\n", sentences, tokens, langs["en"], langs["de"], langs["fr"])
	fmt.Fprintln(w, "first tokens of the shuffled stream (partition, row ID, value):")
	for _, it := range first {
		fmt.Fprintf(w, "  %d  %s  %+v\n", it.Part, it.ID, it.Value)
	}

	serial, err := determinism.SumOf[Token](ctx, pipeline(1))
	if err != nil {
		return err
	}
	parallel, err := determinism.SumOf[Token](ctx, pipeline(workers))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "digest, 1 worker:  %s (%d items)\n", serial, serial.Count)
	fmt.Fprintf(w, "digest, %d workers: %s (%d items)\n", workers, parallel, parallel.Count)
	if serial != parallel {
		return fmt.Errorf("the parallel run differs from the serial run")
	}
	if err := determinism.Verify[Token](ctx, pipeline, determinism.Parallelisms(2, workers)); err != nil {
		return err
	}
	fmt.Fprintln(w, "serial and parallel runs are identical: values, row IDs and order")

	err = pipeline(workers).To(shards.Parquet[Token](out, shards.RowsPerFile(int64(tokens/4+1)))).Run(ctx)
	if err != nil {
		return err
	}
	m, err := shards.ReadManifest(out, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %d files under %s%s:\n", len(m.Files), out, note)
	for _, f := range m.Files {
		fmt.Fprintf(w, "  %s  %7d rows  %8d bytes  sha256 %.16s…\n", f.Path, f.Rows, f.Bytes, f.SHA256)
	}
	return nil
}

// keepSentence drops sentences of fewer than three words.
func keepSentence(s Sentence) bool { return len(strings.Fields(s.Text)) >= 3 }

// tokenize splits a sentence into lower-case words.
func tokenize(s Sentence) ([]Token, error) {
	words := strings.FieldsFunc(s.Text, func(r rune) bool { return !unicode.IsLetter(r) })
	out := make([]Token, len(words))
	for i, w := range words {
		out[i] = Token{Word: strings.ToLower(w), Pos: int32(i), Lang: s.Lang}
	}
	return out, nil
}

// vocab gives a token its hashed vocabulary ID.
func vocab(t Token) (Token, error) {
	h := fnv.New32a()
	h.Write([]byte(t.Word))
	t.ID = int32(h.Sum32() % 50_000)
	return t, nil
}
