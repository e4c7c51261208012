// Package lineage writes row IDs in a form that compresses to almost
// nothing and gives every ID back exactly: the form of the row-ID columns
// of package shards (shards.RowIDColumn).
//
// # The form
//
// Every source gives row i the ID rowid.Ordinal(i).Combine(scope), scope
// naming the file or source (rule 1 of package rowid). One round of
// Combine absorbs a block (k1, k2) derived from scope:
//
//	h1 = rotl(i^k1, 27)*5 + 0x52dce729
//	h2 = (rotl(k2, 31) + h1)*5 + 0x38495ab5
//
// and the ID is {Lo: h1, Hi: h2}. Both steps invert, so any ID, whatever
// made it, gives back k2 and x = i^k1 exactly ([Split]). k2 is the same for
// every row of one scope; x differs from row to row only in the low bits
// that the ordinal changes. The row is written as three unsigned 64-bit
// words (a [Triple]): Key1, a constant chosen for the scope, Key2 = k2, and
// Ord = x^Key1. [Join] gives the ID back from any triple: the ID is a
// function of Key2 and Ord^Key1 alone, so the triple decodes to the
// original ID whatever Key1 is, and no ID can be lost or changed by a bad
// choice of Key1: a choice only changes how well Ord compresses.
//
// # Choosing Key1
//
// The sink does not know the scopes (the files the rows came from); it
// learns them from the IDs. Rows with the same k2 are taken to share a
// scope. Two rows of a scope whose ordinals are consecutive, i and i+1,
// have x values that differ in a run of t+1 low bits, 2^(t+1)-1, which
// says that the low t+1 bits of i were 0 then t ones, and so gives those
// bits of k1. Within a batch of rows (the writer's batches of up to 1024
// rows), the [Encoder] gives a new k2 with two or more rows a Key1 made of
// the bits of k1 so found and, above them, the bits of its first row's x,
// so that the first row's Ord is its ordinal's low bits; later rows of the
// file that show a wider run of k1's bits correct Key1 in those bits. Ord
// then counts up by one from row to row of a scope read in order, jumping
// only where the ordinal sequence does or where a carry first reaches a
// bit of k1 not yet known, so that Key1 and Key2 are runs of one value
// and Ord a run of steps of 1: DELTA_BINARY_PACKED stores them in a few
// bits per 128 rows. An Encoder learns up to [maxKeys] scopes per file.
// A row whose k2 is alone in its batch and not learned before gets
// Key1 = 0: a row derived by a flat map, a mix or a reduction, whose k2
// differs from every other row's, costs two random 64-bit words, as the
// ID itself would.
//
// With the true k1 of a scope (a source row read in order from ordinal
// 0 of its scope), Ord is the row's ordinal; in general it is the ordinal
// with some high bits flipped, and only the ID that [Join] returns is
// meaningful.
package lineage

import (
	"math/bits"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// The round constants of rowid's Combine, and the inverse of 5 modulo 2^64.
const (
	add1 = 0x52dce729
	add2 = 0x38495ab5
	inv5 = 0xcccccccccccccccd
)

// Suffixes of the three columns of a row-ID column name: name+Key1 and so on.
const (
	Key1 = "_key1"
	Key2 = "_key2"
	Ord  = "_ord"
)

// Legacy suffixes: the ID's halves, as text files and Parquet files
// written before the three-column form hold them.
const (
	Hi = "_hi"
	Lo = "_lo"
)

// Triple is a row ID in the lineage form.
type Triple struct{ Key1, Key2, Ord uint64 }

// Split returns the k2 and x = i^k1 for which id is one round of Combine
// over {Lo: i, Hi: 0} with the block (k1, k2).
func Split(id rowid.ID) (k2, x uint64) {
	x = bits.RotateLeft64((id.Lo-add1)*inv5, -27)
	k2 = bits.RotateLeft64((id.Hi-add2)*inv5-id.Lo, -31)
	return k2, x
}

// Join returns the ID that t stands for: Join(Encode(id)) == id.
func Join(t Triple) rowid.ID {
	h1 := bits.RotateLeft64(t.Ord^t.Key1, 27)*5 + add1
	h2 := (bits.RotateLeft64(t.Key2, 31)+h1)*5 + add2
	return rowid.ID{Lo: h1, Hi: h2}
}

// maxKeys bounds the scopes an Encoder learns per file.
const maxKeys = 1 << 16

// Encoder turns the IDs of one file into triples, learning each scope's
// Key1 as the package documentation says. The zero value is ready to use.
type Encoder struct {
	index map[uint64]int32 // k2 -> index in keys
	keys  []scope
	last  int32
	// Per batch: the rows' k2, x and scope (>= 0: keys[i]; < 0: pend[-1-i]).
	k2, x []uint64
	row   []int32
	pidx  map[uint64]int32
	pend  []scope
}

// scope is what an Encoder knows of one k2: the Key1 it gives the rows,
// the low bits of k1 seen (mask), and, in a batch, the previous row's x.
type scope struct {
	k2, key1, mask, lastX uint64
	rows                  int
	learned               int32 // for a pending scope: its index in keys, or -1
}

// see takes the next row of the scope, whose x is x. If the ordinals of the
// scope's previous row and this one are consecutive, i and i+1, their x
// differ in the run of t+1 low bits d = 2^(t+1)-1 that the increment
// flipped, and i's low t+1 bits were d>>1 (0, then t ones), which gives
// k1's low t+1 bits: (lastX ^ d>>1) & d. A pending scope's key1 starts as
// its first x, so its bits above the widest run stay that row's.
func (s *scope) see(x uint64) {
	if s.rows > 0 {
		d := x ^ s.lastX
		if d != 0 && d&(d+1) == 0 && d > s.mask {
			s.mask = d
			s.key1 = s.key1&^d | (s.lastX^d>>1)&d
		}
	}
	s.lastX = x
	s.rows++
}

// Reset forgets what e learned, for the next file.
func (e *Encoder) Reset() {
	clear(e.index)
	e.keys = e.keys[:0]
}

// Encode returns the triples of ids, in dst[:0].
func (e *Encoder) Encode(ids flow.IDs, dst []Triple) []Triple {
	if e.index == nil {
		e.index, e.pidx = map[uint64]int32{}, map[uint64]int32{}
	}
	n := ids.Len()
	e.k2, e.x = e.k2[:0], e.x[:0]
	for k := range n {
		k2, x := Split(ids.At(k))
		e.k2, e.x = append(e.k2, k2), append(e.x, x)
	}
	e.learn()
	dst = dst[:0]
	for k, r := range e.row {
		var k1 uint64
		if r < 0 {
			r = e.pend[-1-r].learned
		}
		if r >= 0 {
			k1 = e.keys[r].key1
		}
		dst = append(dst, Triple{Key1: k1, Key2: e.k2[k], Ord: e.x[k] ^ k1})
	}
	return dst
}

// learn finds the scope of each row of the batch, refines the Key1 of
// known scopes with the carries the batch shows, and learns a Key1 for
// each new k2 that has two or more rows.
func (e *Encoder) learn() {
	e.row = e.row[:0]
	clear(e.pidx)
	e.pend = e.pend[:0]
	for k, k2 := range e.k2 {
		x := e.x[k]
		r, ok := e.last, false
		if r >= 0 && int(r) < len(e.keys) && e.keys[r].k2 == k2 {
			ok = true
		} else if r, ok = e.index[k2]; ok {
			e.last = r
		}
		if ok {
			e.keys[r].see(x)
			e.row = append(e.row, r)
			continue
		}
		p, ok := e.pidx[k2]
		if !ok {
			p = int32(len(e.pend))
			e.pidx[k2] = p
			e.pend = append(e.pend, scope{k2: k2, key1: x, learned: -1})
		}
		e.pend[p].see(x)
		e.row = append(e.row, -1-p)
	}
	for i := range e.pend {
		p := &e.pend[i]
		if p.rows < 2 || len(e.keys) >= maxKeys {
			continue
		}
		p.learned = int32(len(e.keys))
		e.index[p.k2] = p.learned
		e.keys = append(e.keys, *p)
	}
}
