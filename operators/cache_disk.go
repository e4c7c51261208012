package operators

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"os"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// The disk cache file:
//
//	"rowflow cache v4\n" id "\n" data "\n"
//	record*  end
//
// id is the cache's ID, data the data fingerprint of the pipeline's
// source when the cache was built (flow.Pipeline.DataFingerprint; empty
// for a source that reports none).
//
// A record is up to 1024 rows of one partition: a uvarint length, the
// partition number (8 bytes), a byte that is 1 for the partition's last
// record, the CRC-32C of these (4 bytes: zstd checks only its own data,
// and a damaged partition number or last-record byte would otherwise move
// rows to another partition unnoticed), then that many bytes of zstd
// holding the row count n (uvarint),
// n row IDs (Lo, Hi, 8 bytes each) and the codec's encoding of the values.
// A partition's records are consecutive; an empty partition has one
// record of no rows.
// The end is a zero length followed by the number of records (uvarint).
// All integers are little-endian.

const cacheMagic = "rowflow cache v4\n"

// recordHead is the fixed part of a record's head after its length: the
// partition number, the last-record byte and the CRC-32C.
const recordHead = 8 + 1 + 4

var crcTable = crc32.MakeTable(crc32.Castagnoli)

var (
	zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	zdec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
)

func (c *cacheSource[T]) diskPartitions(ctx context.Context) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		removeStaleTemps(c.stagePath())
		data, err := c.p.DataFingerprint(ctx)
		if err != nil {
			yield(flow.Partition[T]{}, fmt.Errorf("operators: cache %s: fingerprinting the data: %w", c.cfg.path, err))
			return
		}
		f, err := objstore.Open(ctx, c.cfg.path, objstore.Options{})
		switch {
		case errors.Is(err, os.ErrNotExist) && !objstore.IsURL(c.cfg.path),
			errors.Is(err, objstore.ErrNoObject):
			c.writeDisk(ctx, data, yield)
			return
		case err != nil:
			yield(flow.Partition[T]{}, fmt.Errorf("operators: cache: %w", err))
			return
		}
		defer f.Close()
		id, built, start, err := readHeader(bufio.NewReader(io.NewSectionReader(f, 0, f.Size())))
		if err == nil && id == c.id && built != data {
			// This pipeline's cache, of data that has changed since (or
			// of other data, swapped in under its name): stale.
			f.Close()
			c.writeDisk(ctx, data, yield)
			return
		}
		if errors.Is(err, errCacheVersion) || errors.Is(err, errCacheCut) || err == nil && id != c.id {
			if c.cfg.rebuild {
				f.Close()
				c.writeDisk(ctx, data, yield)
				return
			}
			if err == nil {
				err = fmt.Errorf("it was built by another pipeline, or for another value type or key (cache ID %s, this pipeline's is %s); remove it or use Rebuild", id, c.id)
			}
		}
		var planned cacheVersion
		if err == nil {
			planned, err = versionOf(f)
		}
		if err != nil {
			yield(flow.Partition[T]{}, fmt.Errorf("operators: cache %s: %w", c.cfg.path, err))
			return
		}
		c.readDisk(f, planned, start, yield)
	}
}

// cacheVersion tells which file, or which version of an object, a replay
// planned: a local file by its identity (os.SameFile), an object by its
// ETag and size.
type cacheVersion struct {
	file  os.FileInfo
	stamp objstore.Stamp
}

// versionOf returns the version of the open cache file or object f.
func versionOf(f objstore.Object) (cacheVersion, error) {
	if st, ok := f.(interface{ Stat() (os.FileInfo, error) }); ok {
		info, err := st.Stat()
		return cacheVersion{file: info}, err
	}
	stamp, err := f.Stamp()
	return cacheVersion{stamp: stamp}, err
}

// same reports whether v and w are the same file or object version.
func (v cacheVersion) same(w cacheVersion) bool {
	if v.file != nil || w.file != nil {
		return v.file != nil && w.file != nil && os.SameFile(v.file, w.file)
	}
	return v.stamp.ETag == w.stamp.ETag && v.stamp.Size == w.stamp.Size
}

// readHeader's errors for a file that Rebuild rebuilds: a cache file of
// another version, or one whose header is cut. A file too short to tell
// ("rowflow cache v"), or that is no cache file at all, is never
// overwritten.
var (
	errCacheVersion = fmt.Errorf("a rowflow cache file of another version, not %q; remove it or use Rebuild", strings.TrimSpace(cacheMagic))
	errCacheCut     = errors.New("a truncated rowflow cache file: its header is cut; remove it or use Rebuild")
)

// cacheMark is what a cache file of any version starts with.
const cacheMark = "rowflow cache v"

// readHeader reads a cache file's header and returns its cache ID, the
// data fingerprint it was built for, and its length.
func readHeader(r *bufio.Reader) (id, data string, n int64, err error) {
	magic := make([]byte, len(cacheMagic))
	k, err := io.ReadFull(r, magic)
	switch {
	case err == nil && string(magic) == cacheMagic:
	case k >= len(cacheMark) && err != nil && strings.HasPrefix(cacheMagic, string(magic[:k])):
		return "", "", 0, errCacheCut
	case strings.HasPrefix(string(magic[:k]), cacheMark):
		return "", "", 0, errCacheVersion
	default:
		return "", "", 0, fmt.Errorf("not a rowflow cache file")
	}
	id, err = r.ReadString('\n')
	if err == nil {
		data, err = r.ReadString('\n')
	}
	switch {
	case err == io.EOF:
		return "", "", 0, errCacheCut
	case err != nil || len(id) > 64 || len(data) > 64:
		return "", "", 0, fmt.Errorf("truncated or damaged header")
	}
	return id[:len(id)-1], data[:len(data)-1], int64(len(cacheMagic) + len(id) + len(data)), nil
}

// record is where one record's compressed part lies in the file.
type recordAt struct{ off, n int64 }

// readDisk yields the partitions of the cache file f, whose records begin
// at offset start. It reads only the records' heads: a partition's records
// are read and decoded by its reader, one chunk at a time, so that the
// partitions in flight hold nothing, and a run that starts at a later
// partition (a resumed run) reads nothing of those before it.
func (c *cacheSource[T]) readDisk(f objstore.Object, planned cacheVersion, start int64, yield func(flow.Partition[T], error) bool) {
	fail := func(k int, err error) {
		yield(flow.Partition[T]{}, fmt.Errorf("operators: cache %s: record %d: %w", c.cfg.path, k, err))
	}
	size := f.Size()
	var recs []recordAt // the records of the partition being read
	var head [binary.MaxVarintLen64 + recordHead]byte
	for k, off := 0, start; ; k++ {
		m, err := f.ReadAt(head[:], off)
		if err != nil && err != io.EOF {
			fail(k, err)
			return
		}
		n, w := binary.Uvarint(head[:m])
		if w <= 0 {
			fail(k, fmt.Errorf("truncated: no record length"))
			return
		}
		if n == 0 {
			if count, w2 := binary.Uvarint(head[w:m]); w2 <= 0 || count != uint64(k) || recs != nil {
				fail(k, fmt.Errorf("the end says %d records, or a partition has no last record, or the end is truncated", count))
			}
			return
		}
		if m < w+recordHead {
			fail(k, fmt.Errorf("truncated: %d of %d bytes of the record's head", m-w, recordHead))
			return
		}
		if crc32.Checksum(head[:w+9], crcTable) != binary.LittleEndian.Uint32(head[w+9:]) {
			fail(k, fmt.Errorf("the record's head is damaged: its checksum does not match"))
			return
		}
		body := off + int64(w) + recordHead
		if n > uint64(size-body) {
			fail(k, fmt.Errorf("truncated: a record of %d bytes, %d left in the file", n, size-body))
			return
		}
		recs = append(recs, recordAt{body, int64(n)})
		off = body + int64(n)
		if head[w+8] == 0 {
			continue
		}
		part, first, chunks := int64(binary.LittleEndian.Uint64(head[w:])), k+1-len(recs), recs
		recs = nil
		p := flow.Partition[T]{Part: part, Read: func(ctx context.Context, out flow.Emitter[T]) error {
			return c.readPart(ctx, planned, part, first, chunks, out)
		}}
		if !yield(p, nil) {
			return
		}
	}
}

// readPart reads and pushes the records of one partition, opening the
// cache file or object again: the version that was planned, not one
// written since.
func (c *cacheSource[T]) readPart(ctx context.Context, planned cacheVersion, part int64, first int, recs []recordAt, out flow.Emitter[T]) error {
	f, err := objstore.Open(ctx, c.cfg.path, objstore.Options{})
	if err == nil {
		defer f.Close()
		var now cacheVersion
		if now, err = versionOf(f); err == nil && !now.same(planned) {
			err = fmt.Errorf("the file was replaced while it was read")
		}
	}
	if errors.Is(err, objstore.ErrNoObject) {
		err = fmt.Errorf("the object was replaced while it was read: %w", err)
	}
	if err != nil {
		return fmt.Errorf("operators: cache %s: partition %d: %w", c.cfg.path, part, err)
	}
	var buf, raw []byte
	for i, r := range recs {
		buf = slices.Grow(buf[:0], int(r.n))[:r.n]
		var cp cachedPart[T]
		if _, err = f.ReadAt(buf, r.off); err == nil {
			cp, raw, err = c.decode(part, buf, raw)
		}
		if err != nil {
			return fmt.Errorf("operators: cache %s: record %d (partition %d): %w", c.cfg.path, first+i, part, err)
		}
		ch := flow.Chunk[T]{Part: part, IDs: flow.ListIDs(cp.ids), Values: cp.vals, End: i == len(recs)-1}
		if err := out.Push(ctx, ch); err != nil {
			return err
		}
	}
	return nil
}

// writeDisk runs the first pass, writing records to a temporary file that
// is renamed to the cache's path once the stream has ended, or, for a
// cache in a bucket, staged locally and uploaded under its key then. data is the
// data fingerprint the pass reads, which the file records.
func (c *cacheSource[T]) writeDisk(ctx context.Context, data string, yield func(flow.Partition[T], error) bool) {
	if objstore.IsURL(c.cfg.path) {
		if err := objstore.CheckBucket(ctx, c.cfg.path); err != nil {
			yield(flow.Partition[T]{}, fmt.Errorf("operators: cache: %w", err))
			return
		}
	}
	tmp, err := createTemp(c.stagePath())
	if err != nil {
		yield(flow.Partition[T]{}, fmt.Errorf("operators: cache: %w", err))
		return
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriter(tmp)
	w.WriteString(cacheMagic + c.id + "\n" + data + "\n")
	records := 0
	var buf, raw []byte // the record, and its encoding before compression
	writeRec := func(cp cachedPart[T]) error {
		for lo := 0; lo == 0 || lo < len(cp.vals); lo += cacheChunk {
			hi := min(lo+cacheChunk, len(cp.vals))
			var err error
			if buf, raw, err = c.encode(buf[:0], raw, cp.ids[lo:hi], cp.vals[lo:hi]); err != nil {
				return fmt.Errorf("operators: cache %s: partition %d: %w", c.cfg.path, cp.batch, err)
			}
			records++
			head := binary.LittleEndian.AppendUint64(binary.AppendUvarint(nil, uint64(len(buf))), uint64(cp.batch))
			if hi == len(cp.vals) {
				head = append(head, 1)
			} else {
				head = append(head, 0)
			}
			head = binary.LittleEndian.AppendUint32(head, crc32.Checksum(head, crcTable))
			w.Write(head)
			if _, err = w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}
	ended := true
	for part, err := range c.build(ctx, data, writeRec) {
		if err != nil {
			yield(part, err)
			return
		}
		if !yield(part, nil) {
			ended = false
			break
		}
	}
	if !ended {
		return
	}
	w.Write(binary.AppendUvarint([]byte{0}, uint64(records)))
	if objstore.IsURL(c.cfg.path) {
		err = w.Flush()
		var info os.FileInfo
		if err == nil {
			info, err = tmp.Stat()
		}
		if err == nil {
			// Uploaded whole (in parts if large: only a completed upload
			// is visible), so that the key never holds a partial cache.
			err = objstore.Put(ctx, c.cfg.path, tmp, info.Size(), false)
		}
		if err != nil {
			yield(flow.Partition[T]{}, fmt.Errorf("operators: cache: %w", err))
		}
		return // the deferred function removes the staged file
	}
	err = errors.Join(w.Flush(), tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), c.cfg.path)
	}
	if err != nil {
		yield(flow.Partition[T]{}, fmt.Errorf("operators: cache: %w", err))
		return
	}
	done = true
}

// cacheChunk is the most rows one record of a disk cache holds.
const cacheChunk = 1024

// encode appends the compressed part of a record of ids and vals to dst.
// It encodes the record into scratch first, and returns scratch for the
// next record: a fresh buffer per record, grown by appends, was most of
// what a cache build allocated.
func (c *cacheSource[T]) encode(dst, scratch []byte, ids []rowid.ID, vals []T) ([]byte, []byte, error) {
	raw := binary.AppendUvarint(scratch[:0], uint64(len(vals)))
	for _, id := range ids {
		raw = binary.LittleEndian.AppendUint64(raw, id.Lo)
		raw = binary.LittleEndian.AppendUint64(raw, id.Hi)
	}
	raw, err := c.codec.Append(raw, vals)
	if err != nil {
		return dst, raw, err
	}
	return zenc.EncodeAll(raw, dst), raw, nil
}

// decode decodes the compressed part of one record, decompressing it
// into scratch, which it returns for the next record: the chunk keeps
// copies of the IDs and values, not the decompressed bytes.
func (c *cacheSource[T]) decode(batch int64, rec, scratch []byte) (cachedPart[T], []byte, error) {
	whole, err := zdec.DecodeAll(rec, scratch[:0])
	if err != nil {
		return cachedPart[T]{}, scratch, err
	}
	raw := whole
	cp := cachedPart[T]{batch: batch}
	n, k := binary.Uvarint(raw)
	if k <= 0 || n > uint64(len(raw)) {
		return cachedPart[T]{}, whole, fmt.Errorf("bad row count")
	}
	raw = raw[k:]
	if uint64(len(raw)) < 16*n {
		return cachedPart[T]{}, whole, fmt.Errorf("short record: %d rows need %d bytes of IDs", n, 16*n)
	}
	cp.ids = slicepool.Alloc[rowid.ID](int(n))[:n]
	for i := range cp.ids {
		cp.ids[i] = rowid.ID{Lo: binary.LittleEndian.Uint64(raw[16*i:]), Hi: binary.LittleEndian.Uint64(raw[16*i+8:])}
	}
	if cp.vals, err = c.codec.Decode(raw[16*n:], int(n)); err != nil {
		slicepool.Recycle(cp.ids)
		return cachedPart[T]{}, whole, err
	}
	return cp, whole, nil
}
