package text

import (
	"context"
	"io"

	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/objstore"
)

// rangesPerRank is how many byte ranges of uncompressed text the plan
// aims to give each rank, so that dealing whole ranges out by size leaves
// the ranks' shares within a few percent of each other.
const rangesPerRank = 64

// minRankSplit is the smallest byte range made for the sake of ranks.
const minRankSplit = 4 << 10

// rankSplitBytes returns the size of the byte ranges that a run of world
// ranks splits uncompressed files into: PartitionBytes, or less when the
// uncompressed files are too small to give every rank rangesPerRank
// ranges of that size (but not below minRankSplit). Ranks take whole
// ranges (see internal/io/dataset), so smaller ranges make their shares even.
// A file that cannot be read here is left to the planning that follows,
// which reports it.
func (c *textConfig) rankSplitBytes(ds *dataset.Dataset, world int) int64 {
	if world <= 1 || c.Plan.WholeFiles {
		return c.splitBytes
	}
	var total int64
	for _, f := range ds.Files() {
		if c.codecOf(f) != codec.None {
			continue
		}
		if st, err := objstore.Stat(context.Background(), f.Path); err == nil {
			total += st.Size
		}
	}
	return min(c.splitBytes, max(total/int64(world*rangesPerRank), minRankSplit))
}

// sizeSampleBytes is how much of a compressed file decompressedSize
// decompresses.
const sizeSampleBytes = 1 << 20

// decompressedSize estimates the decompressed size of a compressed file
// of size bytes, for dividing whole files among ranks by what they hold
// rather than by their compressed size: it decompresses up to sizeSampleBytes
// and scales the size by the ratio seen, or returns the exact size of a
// stream that ends sooner. The estimate is the same on every rank. A
// stream that cannot be read here counts at its compressed size; reading
// it reports the error.
func decompressedSize(f io.ReaderAt, size int64, c codec.Codec) int64 {
	in := &countingReader{r: io.NewSectionReader(f, 0, size)}
	d, err := c.NewReader(in)
	if err != nil {
		return size
	}
	defer d.Close()
	out, err := io.Copy(io.Discard, io.LimitReader(d, sizeSampleBytes))
	switch {
	case err != nil || in.n == 0:
		return size
	case out < sizeSampleBytes:
		return out // the whole stream
	}
	return int64(float64(size) * float64(out) / float64(in.n))
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
