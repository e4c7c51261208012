package shards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"os"
	"slices"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/rowid"
)

// writeBatchRows is the number of rows of one call to parquet-go's writer.
// parquet-go decides where a page ends at points counted from the start
// of each call, so calls that started wherever a chunk starts would make
// the bytes depend on how the stream was cut into chunks. Calls here start
// at multiples of writeBatchRows from the start of the row group, whatever
// the chunks: rows of a chunk that fill whole batches are written from the
// chunk itself, the others are copied into a carry buffer until a batch,
// or the row group, is complete.
const writeBatchRows = 1024

// pqRun is what the writers of one run share: the plan, the run's Env and
// the output directory.
type pqRun[T any] struct {
	plan *pqPlan[T]
	env  flow.Env
	out  *outputDir
}

// writer writes the partitions routed to one writer. It is used by
// one goroutine at a time.
type writer[T any] struct {
	run   *pqRun[T]
	index int                          // the writer's number, from 0
	flat  *rollingWriter[T]            // without PartitionBy
	parts map[string]*rollingWriter[T] // with PartitionBy: by partition key
	dirs  map[string]string            // partition directory → key
	key   []byte
	next  []byte
	done  []doneFile
	// sealed lists the offsets in the chunk of the last consume after
	// which files ended, without PartitionBy (see continuation).
	sealed []int
}

func makeWriter[T any](run *pqRun[T], index int) *writer[T] {
	s := &writer[T]{run: run, index: index}
	if len(run.plan.parts) == 0 {
		s.flat = &rollingWriter[T]{s: s}
	} else {
		s.parts, s.dirs = map[string]*rollingWriter[T]{}, map[string]string{}
	}
	return s
}

// consume writes the values of c. With PartitionBy, each run of
// consecutive values of one partition is written with one call.
func (s *writer[T]) consume(c *flow.Chunk[T]) error {
	s.sealed = s.sealed[:0]
	vals := c.Values
	if len(vals) == 0 {
		return nil
	}
	if check := s.run.plan.check; check != nil {
		if k, err := check(vals); err != nil {
			return flow.ErrorAt(c, k, fmt.Errorf("shards: %s: %w", s.run.plan.what, err))
		}
	}
	if s.flat != nil {
		return s.flat.write(c.Part, vals, c.IDs)
	}
	cols := s.run.plan.parts
	s.key = partitionKey(s.key[:0], cols, unsafe.Pointer(&vals[0]))
	start := 0
	for i := 1; i <= len(vals); i++ {
		if i < len(vals) {
			s.next = partitionKey(s.next[:0], cols, unsafe.Pointer(&vals[i]))
			if bytes.Equal(s.key, s.next) {
				continue
			}
		}
		w, err := s.partition(c, start)
		if err != nil {
			return err
		}
		if err := w.write(c.Part, vals[start:i], c.IDs.Slice(start, i)); err != nil {
			return err
		}
		start = i
		s.key, s.next = s.next, s.key
	}
	return nil
}

// partition returns the writer of the partition whose key is s.key, the
// partition of the k-th value of c.
func (s *writer[T]) partition(c *flow.Chunk[T], k int) (*rollingWriter[T], error) {
	if w, ok := s.parts[string(s.key)]; ok {
		return w, nil
	}
	plan := s.run.plan
	key := string(s.key)
	vals := splitPartitionKey(key, plan.parts)
	if len(s.parts) >= plan.cfg.maxOpenParts {
		return nil, flow.ErrorAt(c, k, fmt.Errorf("shards: %s: partition %s would be number %d of writer %d; MaxOpenPartitions(%d) caps the partitions a writer writes in one run",
			plan.what, fmtPartition(vals), len(s.parts)+1, s.index, plan.cfg.maxOpenParts))
	}
	dir := hiveDir(plan.parts, vals)
	if other, ok := s.dirs[dir]; ok {
		return nil, flow.ErrorAt(c, k, fmt.Errorf("shards: %s: partitions %s and %s have the same directory %q",
			plan.what, fmtPartition(splitPartitionKey(other, plan.parts)), fmtPartition(vals), dir))
	}
	w := &rollingWriter[T]{s: s, dir: dir, part: vals}
	s.parts[key], s.dirs[dir] = w, key
	return w, nil
}

func fmtPartition(vals []PartitionValue) string {
	var b bytes.Buffer
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%q", v.Column, v.Value)
	}
	return b.String()
}

// finish completes the writer's open files.
func (s *writer[T]) finish() error {
	err := error(nil)
	if s.flat != nil {
		err = s.flat.finish()
	}
	for _, k := range slices.Sorted(maps.Keys(s.parts)) {
		if err = s.parts[k].finish(); err != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("shards: %s: %w", s.run.plan.what, err)
	}
	return nil
}

// abort closes the writer's open files; the output directory removes them.
func (s *writer[T]) abort() {
	if s.flat != nil {
		s.flat.abort()
	}
	for _, w := range s.parts {
		w.abort()
	}
}

// rollingWriter writes the files of one writer in one directory, one after
// the other.
type rollingWriter[T any] struct {
	s        *writer[T]
	dir      string // partition directory, slash-separated; "" for the root
	part     []PartitionValue
	files    int // files begun
	cur      *pqFile[T]
	rgRows   int64 // rows in the current row group
	carry    []T
	carryIDs []rowid.ID
}

// pqFile is a file being written under its temporary name.
type pqFile[T any] struct {
	doneFile
	f   *os.File
	out *hashingFile
	w   batchWriter[T]
}

// hashingFile counts and hashes what it writes to a file.
type hashingFile struct {
	f *os.File
	h hash.Hash
	n int64
}

func (h *hashingFile) Write(b []byte) (int, error) {
	n, err := h.f.Write(b)
	h.h.Write(b[:n])
	h.n += int64(n)
	return n, err
}

// write writes vals, rows of one partition of the stream with the row IDs
// ids, ending row groups and files where the options say.
func (r *rollingWriter[T]) write(batch int64, vals []T, ids flow.IDs) error {
	cfg := &r.s.run.plan.cfg
	written := 0
	for len(vals) > 0 {
		if r.cur == nil {
			if err := r.open(); err != nil {
				return r.fail(batch, ids.At(0), err)
			}
		}
		f := r.cur
		n := min(int64(len(vals)), cfg.rowGroupRows-r.rgRows)
		if cfg.rowsPerFile > 0 {
			n = min(n, cfg.rowsPerFile-f.Rows)
		}
		if f.Rows == 0 {
			f.FirstID = ids.At(0)
		}
		f.LastID = ids.At(int(n) - 1)
		if err := r.add(vals[:n], ids.Slice(0, int(n))); err != nil {
			at := 0
			if rf := (*rowFailed)(nil); errors.As(err, &rf) {
				at = rf.k
			}
			return r.fail(batch, ids.At(at), fmt.Errorf("%s: %w", f.Path, err))
		}
		f.Rows += n
		r.rgRows += n
		if r.rgRows == cfg.rowGroupRows || f.Rows == cfg.rowsPerFile {
			if err := r.endRowGroup(); err != nil {
				return r.fail(batch, ids.At(int(n)-1), err)
			}
			if r.cur == nil {
				r.s.sealed = append(r.s.sealed, written+int(n))
			}
		}
		written += int(n)
		vals, ids = vals[n:], ids.Slice(int(n), ids.Len())
	}
	return nil
}

// fail attaches the sink and the row to err.
func (r *rollingWriter[T]) fail(batch int64, id rowid.ID, err error) error {
	return &linkage.RowError{Part: batch, ID: id, Err: fmt.Errorf("shards: %s: %w", r.s.run.plan.what, err)}
}

// add writes vals to the current row group in batches aligned on
// writeBatchRows (see there). The bytes of a text writer and of a
// record writer (which aligns its own batches) do not depend on how their
// rows are cut into calls: they are given vals as they are, so that a row
// they cannot encode is one of vals (see rowFailed).
func (r *rollingWriter[T]) add(vals []T, ids flow.IDs) error {
	if p := r.s.run.plan; p.text != nil || p.rec != nil || p.fields != nil {
		return r.cur.w.write(vals, ids)
	}
	needIDs := r.s.run.plan.cfg.rowIDColumn != ""
	for len(vals) > 0 {
		if len(r.carry) == 0 && len(vals) >= writeBatchRows {
			if err := r.cur.w.write(vals[:writeBatchRows], ids.Slice(0, writeBatchRows)); err != nil {
				return err
			}
			vals, ids = vals[writeBatchRows:], ids.Slice(writeBatchRows, ids.Len())
			continue
		}
		k := min(writeBatchRows-len(r.carry), len(vals))
		r.carry = append(r.carry, vals[:k]...)
		if needIDs {
			r.carryIDs = ids.Slice(0, k).AppendTo(r.carryIDs)
		}
		vals, ids = vals[k:], ids.Slice(k, ids.Len())
		if len(r.carry) == writeBatchRows {
			if err := r.flushCarry(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushCarry writes the rows of the carry buffer.
func (r *rollingWriter[T]) flushCarry() error {
	if len(r.carry) == 0 {
		return nil
	}
	err := r.cur.w.write(r.carry, flow.ListIDs(r.carryIDs))
	clear(r.carry) // drop references to the values' memory
	r.carry, r.carryIDs = r.carry[:0], r.carryIDs[:0]
	return err
}

// endRowGroup ends the current row group, and the file if it is full by
// rows or by bytes.
func (r *rollingWriter[T]) endRowGroup() error {
	cfg := &r.s.run.plan.cfg
	if cfg.rowsPerFile > 0 && r.cur.Rows == cfg.rowsPerFile {
		return r.finish()
	}
	if err := r.flushCarry(); err != nil {
		return fmt.Errorf("%s: %w", r.cur.Path, err)
	}
	r.rgRows = 0
	if err := r.cur.w.flush(); err != nil {
		return fmt.Errorf("%s: %w", r.cur.Path, err)
	}
	if cfg.bytesPerFile > 0 && r.cur.w.size() >= cfg.bytesPerFile {
		return r.finish()
	}
	return nil
}

// open begins the writer's next file.
func (r *rollingWriter[T]) open() error {
	run := r.s.run
	seq := r.files*run.plan.cfg.writers + r.s.index
	name := fmt.Sprintf("part-%05d-%05d%s", run.env.Rank, seq, run.plan.ext)
	dir, err := run.out.ensureDir(r.dir)
	if err != nil {
		return err
	}
	tf, err := run.out.createTemp(dir, name)
	if err != nil {
		return err
	}
	out := &hashingFile{f: tf, h: sha256.New()}
	r.cur = &pqFile[T]{
		doneFile: doneFile{
			ManifestFile: ManifestFile{Path: slashJoin(r.dir, name), Writer: r.s.index, Seq: seq, Partition: r.part},
			temp:         tf.Name(),
		},
		f: tf, out: out, w: run.plan.newWriter(out, run.env.Fingerprint, r.part),
	}
	r.files++
	r.rgRows = 0
	return nil
}

// finish completes the current file, if any: the last row group, the
// footer, fsync. The file keeps its temporary name until the commit.
func (r *rollingWriter[T]) finish() error {
	f := r.cur
	if f == nil {
		return nil
	}
	err := r.flushCarry()
	r.cur, r.rgRows = nil, 0
	if err == nil {
		err = f.w.close()
	}
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	f.Bytes = f.out.n
	f.SHA256 = hex.EncodeToString(f.out.h.Sum(nil))
	if err := r.s.run.out.upload(&f.doneFile); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	r.s.done = append(r.s.done, f.doneFile)
	return nil
}

// abort closes the current file, if any.
func (r *rollingWriter[T]) abort() {
	if r.cur != nil {
		r.cur.f.Close()
		r.cur = nil
	}
	clear(r.carry)
	r.carry, r.carryIDs = r.carry[:0], r.carryIDs[:0]
}
