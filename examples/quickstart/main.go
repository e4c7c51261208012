// Command quickstart runs rowflow's main job on built-in sample data: a
// parallel pipeline that cleans, tokenises and measures a corpus of
// sentences, then checks that the parallel run reproduces the serial one
// exactly by comparing the digests of both streams.
//
//	go run ./examples/quickstart
//	go run ./examples/quickstart -n 200000 -workers 4
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"unicode"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// Token is one word of a sentence, as a training job would see it.
type Token struct {
	Word string
	ID   uint32 // a hashed vocabulary ID
	Pos  int    // position in its sentence
}

func main() {
	n := flag.Int("n", 100_000, "sentences of sample data")
	workers := flag.Int("workers", 4, "workers for the parallel run")
	flag.Parse()
	if err := run(context.Background(), *n, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n, workers int) error {
	corpus := sampleCorpus(n)
	pipeline := func(par int) *flow.Pipeline {
		return flow.From(sources.Slice(corpus, sources.Named("corpus"), sources.PartitionSize(2048))).
			Via(operators.Filter(keepSentence)).Parallel(par).
			Via(operators.FlatMap(tokenize)).Parallel(par).
			Via(operators.Map(vocab)).Parallel(par)
	}

	var tokens, sentences int
	lengths := map[int]int{}
	var first []flow.Item[Token]
	for it, err := range flow.Items[Token](ctx, pipeline(workers)) {
		if err != nil {
			return err
		}
		tokens++
		if it.Value.Pos == 0 {
			sentences++
		}
		lengths[len(it.Value.Word)]++
		if len(first) < 3 {
			first = append(first, it)
		}
	}
	fmt.Printf("sample corpus: %d sentences; kept %d; %d tokens\n", len(corpus), sentences, tokens)
	fmt.Println("first tokens (batch, row ID, value):")
	for _, it := range first {
		fmt.Printf("  %d  %s  %+v\n", it.Batch, it.ID, it.Value)
	}
	fmt.Print("word lengths:")
	for l := 1; l <= 8; l++ {
		fmt.Printf(" %d:%d", l, lengths[l])
	}
	fmt.Println()

	serial, err := determinism.SumOf[Token](ctx, pipeline(1))
	if err != nil {
		return err
	}
	parallel, err := determinism.SumOf[Token](ctx, pipeline(workers))
	if err != nil {
		return err
	}
	fmt.Printf("digest, 1 worker:  %s (%d items)\n", serial, serial.Count)
	fmt.Printf("digest, %d workers: %s (%d items)\n", workers, parallel, parallel.Count)
	if serial != parallel {
		return fmt.Errorf("the parallel run differs from the serial run")
	}
	if err := determinism.Verify[Token](ctx, pipeline); err != nil {
		return err
	}
	fmt.Println("serial and parallel runs are identical: values, row IDs and order")
	return nil
}

// sampleCorpus makes n sentences from a small vocabulary with a fixed
// linear congruential sequence, so every run sees the same data.
func sampleCorpus(n int) []string {
	words := strings.Fields("the a data row pipeline parallel serial order merge batch shard epoch " +
		"seed stream parquet column token model train replay test exact fast worker")
	x := uint64(42)
	next := func(m int) int {
		x = x*6364136223846793005 + 1442695040888963407
		return int(x>>33) % m
	}
	corpus := make([]string, n)
	for i := range corpus {
		k := next(12)
		parts := make([]string, k)
		for j := range parts {
			parts[j] = words[next(len(words))]
		}
		corpus[i] = strings.Join(parts, " ") + strings.Repeat(" ", next(3))
	}
	return corpus
}

// keepSentence drops sentences of fewer than three words.
func keepSentence(s string) bool { return len(strings.Fields(s)) >= 3 }

// tokenize splits a sentence into lower-case words.
func tokenize(s string) ([]Token, error) {
	words := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	out := make([]Token, len(words))
	for i, w := range words {
		out[i] = Token{Word: strings.ToLower(w), Pos: i}
	}
	return out, nil
}

// vocab gives a token its hashed vocabulary ID.
func vocab(t Token) (Token, error) {
	h := fnv.New32a()
	h.Write([]byte(t.Word))
	t.ID = h.Sum32() % 50_000
	return t, nil
}
