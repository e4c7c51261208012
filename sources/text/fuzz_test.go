package text_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// damagedText makes a CSV (or JSON Lines) file from seed: records whose
// fields hold what splits text badly (quotes, delimiters, \n, \r\n), then
// damage at random places (bare and missing quotes, stray \r, \n,
// delimiters and braces), with extra spliced in somewhere.
func damagedText(seed uint64, jsonl bool, extra []byte) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	field := func() string {
		const alphabet = "ab ,\"\n\r{}:"
		b := make([]byte, r.IntN(8))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if !jsonl {
		w.Write([]string{"a", "b", "c"})
	}
	for i := range r.IntN(40) {
		if jsonl {
			fmt.Fprintf(&b, "{\"a\":%d,\"b\":%q}\n", i, field())
			if r.IntN(6) == 0 {
				b.WriteString("\r\n")
			}
			continue
		}
		w.Write([]string{strconv.Itoa(i), field(), field()})
		w.Flush()
	}
	w.Flush()
	data := b.Bytes()
	damage := []string{`"`, `""`, "\n", "\r", ",", "{", "}", "\r\n", `",`, `,"`}
	for range r.IntN(5) {
		at := r.IntN(len(data) + 1)
		switch d := damage[r.IntN(len(damage))]; r.IntN(3) {
		case 0: // insert
			data = append(data[:at:at], append([]byte(d), data[at:]...)...)
		case 1: // delete a byte
			if at < len(data) {
				data = append(data[:at:at], data[at+1:]...)
			}
		default: // overwrite
			copy(data[at:], d)
		}
	}
	at := r.IntN(len(data) + 1)
	return append(data[:at:at], append(slicesClone(extra), data[at:]...)...)
}

func slicesClone(b []byte) []byte { return append([]byte(nil), b...) }

// FuzzTextSplitSkipBadLines: a damaged CSV or JSON Lines file read with
// sources.SkipBad, split into ranges of a random size and read in parallel,
// gives what the whole file read serially gives: the same rows, IDs and
// bad-line report, or the same error; and resumed from a checkpoint after
// a row, the rows after it (checkResumeDamaged).
func FuzzTextSplitSkipBadLines(f *testing.F) {
	for seed := range uint64(testutil.FuzzSeeds(24)) {
		f.Add(seed, seed%2 == 1, uint16(seed*7+1), uint8(seed), []byte(nil))
	}
	f.Add(uint64(99), false, uint16(3), uint8(2), []byte("2,b\"ad\n3,\"multi\n4,y\n5,z\"\n"))
	f.Add(uint64(7), false, uint16(5), uint8(3), []byte("\"q\"x,\"\r\"\n\xef\xbb\xbf\""))
	f.Add(uint64(8), true, uint16(2), uint8(3), []byte("{\"a\":1}\r\n\n\nnot json\n"))
	f.Fuzz(func(t *testing.T, seed uint64, jsonl bool, size uint16, par uint8, extra []byte) {
		if len(extra) > 4096 {
			return
		}
		data := damagedText(seed, jsonl, extra)
		name := "f.csv"
		if jsonl {
			name = "f.jsonl"
		}
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		serial := skipTranscript(t.Context(), path, 1<<40, 1)
		split := int64(size)%int64(len(data)+1) + 1
		if got := skipTranscript(t.Context(), path, split, int(par%4)+1); got != serial {
			t.Fatalf("%q\nPartitionBytes(%d) Parallel(%d) reads\n%s\nthe whole file reads\n%s", data, split, par%4+1, got, serial)
		}
		checkResumeDamaged(t, path, split, int(par%4)+1, seed)
	})
}
