package determinism

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// goldenHeader is the first line of a golden file.
const goldenHeader = "rowflow golden v1"

// golden is the content of a golden file.
type golden struct {
	stream Sum
	parts  []goldenPart
	rows   bool // the parts list their items
	legacy bool // a file of one line, the stream's Sum
}

// goldenPart is one partition: a run of items with the same partition number.
type goldenPart struct {
	batch, count int64
	hash         [sha256.Size]byte
	items        []goldenItem
}

// goldenItem is an item's row ID and the first 8 bytes of the SHA-256 of
// its encoding.
type goldenItem struct {
	id     rowid.ID
	digest uint64
}

func (p *goldenPart) same(q *goldenPart) bool {
	return p.batch == q.batch && p.count == q.count && p.hash == q.hash
}

// partitioner cuts a run's stream into partitions and digests them.
type partitioner[T any] struct {
	c            *codec
	s            state
	stream, part hash.Hash
	cur          goldenPart
	values       []T // the current partition's values, if keep
	keep, open   bool
	n            int64
}

func newPartitioner[T any](keep bool) *partitioner[T] {
	w := &partitioner[T]{c: mustCodec[T](), stream: sha256.New(), part: sha256.New(), keep: keep}
	w.stream.Write([]byte(header))
	return w
}

// add adds the items of ch. done is called with each partition that ends
// before them, and the values of its items if w keeps them.
func (w *partitioner[T]) add(ch *flow.Chunk[T], done func(*goldenPart, []T) error) error {
	for k := range ch.Values {
		if w.open && ch.Part != w.cur.batch {
			if err := w.finish(done); err != nil {
				return err
			}
		}
		if !w.open {
			w.open, w.cur = true, goldenPart{batch: ch.Part}
			w.part.Reset()
			w.part.Write([]byte(header))
			w.values = w.values[:0]
		}
		id := ch.IDs.At(k)
		err := catchEncoding(func() {
			w.s.b, w.s.depth = le.AppendUint64(le.AppendUint64(w.s.b[:0], id.Lo), id.Hi), 0
			w.c.enc(&w.s, unsafe.Pointer(&ch.Values[k]))
		})
		if err != nil {
			return err
		}
		w.stream.Write(w.s.b)
		w.part.Write(w.s.b)
		sum := sha256.Sum256(w.s.b)
		w.cur.items = append(w.cur.items, goldenItem{id: id, digest: binary.BigEndian.Uint64(sum[:])})
		w.cur.count++
		w.n++
		if w.keep {
			w.values = append(w.values, ch.Values[k])
		}
	}
	return nil
}

// finish ends the current partition, if any, and passes it to done.
func (w *partitioner[T]) finish(done func(*goldenPart, []T) error) error {
	if !w.open {
		return nil
	}
	w.open = false
	w.part.Sum(w.cur.hash[:0])
	return done(&w.cur, w.values)
}

func (w *partitioner[T]) sum() Sum {
	s := Sum{Count: w.n}
	w.stream.Sum(s.Hash[:0])
	return s
}

// run runs p through w, calling done with each partition.
func (w *partitioner[T]) run(ctx context.Context, p *flow.Pipeline, done func(*goldenPart, []T) error) error {
	for ch, err := range flow.Chunks[T](ctx, p) {
		if err != nil {
			return err
		}
		err := w.add(&ch, done)
		ch.Release()
		if err != nil {
			return err
		}
	}
	return w.finish(done)
}

// record runs p and returns its golden file.
func record[T any](ctx context.Context, p *flow.Pipeline) (*golden, error) {
	if err := encodable[T](); err != nil {
		return nil, err
	}
	g := &golden{rows: true}
	w := newPartitioner[T](false)
	err := w.run(ctx, p, func(gp *goldenPart, _ []T) error {
		part := *gp
		if g.rows = g.rows && w.n <= maxGoldenRows; !g.rows {
			part.items = nil
			for i := range g.parts {
				g.parts[i].items = nil
			}
		}
		g.parts = append(g.parts, part)
		gp.items = nil // part owns them now
		return nil
	})
	if err != nil {
		return nil, err
	}
	g.stream = w.sum()
	return g, nil
}

// appendText appends g in the format that CheckGolden documents.
func (g *golden) appendText(b []byte) []byte {
	b = fmt.Appendf(b, "%s\nstream %v %d\n", goldenHeader, g.stream, g.stream.Count)
	for _, p := range g.parts {
		b = fmt.Appendf(b, "partition %d %d %x\n", p.batch, p.count, p.hash)
		for _, it := range p.items {
			b = fmt.Appendf(b, "  %v %016x\n", it.id, it.digest)
		}
	}
	return b
}

// checkGolden runs p and compares its partitions with want's.
func checkGolden[T any](ctx context.Context, p *flow.Pipeline, path string, want *golden) error {
	w := newPartitioner[T](want.rows)
	k, start := 0, int64(0)
	err := w.run(ctx, p, func(got *goldenPart, values []T) error {
		defer func() { k, start, got.items = k+1, start+got.count, got.items[:0] }()
		if k >= len(want.parts) {
			return fmt.Errorf("%w: %s: the run has partition %d (part %d, %d items, from item %d) after the %d partitions the file records",
				ErrMismatch, path, k, got.batch, got.count, start, len(want.parts))
		}
		if wp := &want.parts[k]; !wp.same(got) {
			return partMismatch(path, k, start, wp, got, values, want.rows)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if k < len(want.parts) {
		wp := &want.parts[k]
		return fmt.Errorf("%w: %s: the run ended after %d partitions (%d items); the file records partition %d: part %d, %d items, digest %s",
			ErrMismatch, path, k, start, k, wp.batch, wp.count, short(wp.hash))
	}
	if got := w.sum(); got != want.stream {
		return fmt.Errorf("%w: %s: the partitions agree but the stream has %v (%d items), the file records %v (%d items)",
			ErrMismatch, path, got, got.Count, want.stream, want.stream.Count)
	}
	return nil
}

// partMismatch describes partition k, from item start of the stream,
// which differs from the file's.
func partMismatch[T any](path string, k int, start int64, want, got *goldenPart, values []T, rows bool) error {
	msg := fmt.Sprintf("%s: partition %d differs: the file records part %d, %d items, digest %s; the run has part %d, %d items, digest %s",
		path, k, want.batch, want.count, short(want.hash), got.batch, got.count, short(got.hash))
	if !rows {
		return fmt.Errorf("%w: %s; the file lists no rows (the stream had more than %d items)", ErrMismatch, msg, maxGoldenRows)
	}
	value := func(i int) string { return render(reflect.TypeFor[T](), unsafe.Pointer(&values[i])) }
	for i := range max(len(want.items), len(got.items)) {
		switch {
		case i >= len(got.items):
			msg += fmt.Sprintf("; the run's partition ends after %d items, where the file records item %d: row %v",
				i, start+int64(i), want.items[i].id)
		case i >= len(want.items):
			msg += fmt.Sprintf("; the run has an extra item %d (%d of the partition): row %v, value %s",
				start+int64(i), i, got.items[i].id, value(i))
		case want.items[i] != got.items[i]:
			w, g := want.items[i], got.items[i]
			msg += fmt.Sprintf("; item %d (%d of the partition) differs: the file records row %v, item digest %016x; the run has row %v, item digest %016x, value %s",
				start+int64(i), i, w.id, w.digest, g.id, g.digest, value(i))
		default:
			continue
		}
		break
	}
	return fmt.Errorf("%w: %s", ErrMismatch, msg)
}

// short is the first 16 hexadecimal digits of a digest.
func short(h [sha256.Size]byte) string { return hex.EncodeToString(h[:8]) }

// readGolden reads a file CheckGolden wrote, or earlier versions did.
func readGolden(path string) (*golden, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("determinism: %w", err)
	}
	text := string(data)
	if !strings.HasPrefix(text, goldenHeader+"\n") {
		s, ok := parseSum(strings.TrimSuffix(text, "\n"))
		if !ok {
			return nil, fmt.Errorf("determinism: %s: not a golden file (want a first line %q, or 64 hex digits, a space and a count)", path, goldenHeader)
		}
		return &golden{stream: s, legacy: true}, nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	g := &golden{}
	bad := func(n int, what string) (*golden, error) {
		return nil, fmt.Errorf("determinism: %s:%d: %s in %q", path, n+1, what, lines[n])
	}
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "stream ") {
		return nil, fmt.Errorf("determinism: %s:2: want a line \"stream <digest> <items>\"", path)
	}
	var ok bool
	if g.stream, ok = parseSum(strings.TrimPrefix(lines[1], "stream ")); !ok {
		return bad(1, "bad stream digest")
	}
	var items int64
	for n := 2; n < len(lines); n++ {
		f := strings.Fields(lines[n])
		if strings.HasPrefix(lines[n], "  ") {
			if len(g.parts) == 0 || len(f) != 2 {
				return bad(n, "bad row line")
			}
			id, err1 := rowid.Parse(f[0])
			d, err2 := strconv.ParseUint(f[1], 16, 64)
			if err1 != nil || err2 != nil || len(f[1]) != 16 {
				return bad(n, "bad row line")
			}
			last := &g.parts[len(g.parts)-1]
			last.items = append(last.items, goldenItem{id: id, digest: d})
			continue
		}
		var p goldenPart
		var err1, err2 error
		if len(f) != 4 || f[0] != "partition" || len(f[3]) != 2*sha256.Size {
			return bad(n, "want a line \"partition <batch> <items> <digest>\"")
		}
		p.batch, err1 = strconv.ParseInt(f[1], 10, 64)
		p.count, err2 = strconv.ParseInt(f[2], 10, 64)
		if _, err := hex.Decode(p.hash[:], []byte(f[3])); err != nil || err1 != nil || err2 != nil || p.count < 1 {
			return bad(n, "bad partition line")
		}
		g.parts = append(g.parts, p)
		items += p.count
	}
	if items != g.stream.Count {
		return nil, fmt.Errorf("determinism: %s: the partitions hold %d items, the stream line %d", path, items, g.stream.Count)
	}
	g.rows = true
	for _, p := range g.parts {
		if int64(len(p.items)) != p.count {
			g.rows = false
		}
	}
	if !g.rows && g.stream.Count <= maxGoldenRows {
		return nil, fmt.Errorf("determinism: %s: a partition lists a number of rows other than its item count", path)
	}
	return g, nil
}

// parseSum parses "<64 hex digits> <count>".
func parseSum(line string) (Sum, bool) {
	var s Sum
	h, count, ok := strings.Cut(line, " ")
	if !ok || len(h) != 2*len(s.Hash) {
		return Sum{}, false
	}
	if _, err := hex.Decode(s.Hash[:], []byte(h)); err != nil {
		return Sum{}, false
	}
	n, err := strconv.ParseInt(count, 10, 64)
	if err != nil || n < 0 {
		return Sum{}, false
	}
	s.Count = n
	return s, true
}
