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
// learns them from the IDs, a batch of rows at a time (the writer's
// batches of up to 1024 rows, which do not depend on how the stream was
// cut into chunks). Rows with the same k2 are taken to share a scope. The
// [Encoder] gives each new k2 with two or more rows in a batch a key,
// whose Key1 starts as the first row's x (that row's Ord is 0), and keeps
// it for the rest of the file (up to [maxKeys] keys a file). Whenever a
// key's rows in a batch would get Ords that decrease, it corrects Key1
// from them: a source's rows read in order have increasing ordinals, so
// for each bit that varies among their x, from the highest down, the
// value that keeps the Ords (shifted down to that bit) increasing is k1's
// (see refine). Ord then counts up along a scope's rows by the ordinals'
// own steps: by 1 for a Parquet source's rows, numbered by row, and for a
// text source's, numbered by line within blocks of 64 KiB (with a jump
// at each block). Key1 and Key2 are runs of one value and Ord a run of
// even steps, which DELTA_BINARY_PACKED stores in a few bits per 128
// rows; ordinals that stepped by uneven amounts, such as byte offsets,
// would cost about the bits of the steps' spread per row.
//
// A row whose k2 is alone in its batch and not learned before gets
// Key1 = 0: a row derived by a flat map, a mix or a reduction, whose k2
// differs from every other row's, costs two random 64-bit words, as the
// ID itself would.
//
// With the true k1 of a scope, Ord is the row's ordinal; in general it is
// the ordinal with some bits flipped that the rows never showed, and only
// the ID that [Join] returns is meaningful. The triple of an ID depends on
// the rows written before it to the same file: the same ID can have
// another triple in another file.
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
	last  int32 // the key of the last row looked up
	batch int   // batches encoded, to tell which scope.group are current
	// Per batch: the rows' k2, x and key (an index in keys, or -1).
	k2, x []uint64
	row   []int32
	pidx  map[uint64]int32 // k2 without a key -> index in pend
	pend  []pending
	// groups[g] are the rows of the g-th key the batch holds, touched[g].
	groups  [][]int32
	touched []int32
}

// scope is a k2 that has a Key1.
type scope struct {
	k2, key1 uint64
	batch    int   // the last batch with rows of the scope
	group    int32 // the index in groups of its rows, in that batch
	fresh    bool  // learned in this batch, Key1 not set yet
}

// pending is a k2 of a batch that has no Key1 yet.
type pending struct {
	k2   uint64
	rows int
	key  int32 // its index in keys once learned, or -1
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
		if r >= 0 {
			k1 = e.keys[r].key1
		}
		dst = append(dst, Triple{Key1: k1, Key2: e.k2[k], Ord: e.x[k] ^ k1})
	}
	return dst
}

// learn finds the key of each row of the batch, learning one for each
// new k2 with two or more rows, then makes each key's Key1 fit the batch's
// rows (see refine).
func (e *Encoder) learn() {
	e.batch++
	e.row = e.row[:0]
	clear(e.pidx)
	e.pend = e.pend[:0]
	for _, k2 := range e.k2 {
		r := e.last
		if r < 0 || int(r) >= len(e.keys) || e.keys[r].k2 != k2 {
			var ok bool
			if r, ok = e.index[k2]; !ok {
				p, ok := e.pidx[k2]
				if !ok {
					p = int32(len(e.pend))
					e.pidx[k2] = p
					e.pend = append(e.pend, pending{k2: k2, key: -1})
				}
				e.pend[p].rows++
				e.row = append(e.row, -2-p)
				continue
			}
			e.last = r
		}
		e.row = append(e.row, r)
	}
	for i := range e.pend {
		p := &e.pend[i]
		if p.rows < 2 || len(e.keys) >= maxKeys {
			continue
		}
		p.key = int32(len(e.keys))
		e.index[p.k2] = p.key
		e.keys = append(e.keys, scope{k2: p.k2, fresh: true})
	}
	e.touched = e.touched[:0]
	for k, r := range e.row {
		if r < -1 {
			r = e.pend[-2-r].key
			e.row[k] = r
		}
		if r < 0 {
			continue
		}
		s := &e.keys[r]
		if s.fresh {
			// A new key's Key1 starts as its first row's x, so that the
			// bits refine cannot tell are those that give that row Ord 0.
			s.key1, s.fresh = e.x[k], false
		}
		if s.batch != e.batch {
			s.batch, s.group = e.batch, int32(len(e.touched))
			e.touched = append(e.touched, r)
			if len(e.groups) < len(e.touched) {
				e.groups = append(e.groups, nil)
			}
			e.groups[s.group] = e.groups[s.group][:0]
		}
		e.groups[s.group] = append(e.groups[s.group], int32(k))
	}
	for g, r := range e.touched {
		e.keys[r].key1 = refine(e.keys[r].key1, e.x, e.groups[g])
	}
}

// refine returns key1, changed so that the scope's rows of the batch
// (rows of x, in order) get non-decreasing Ords with steps as even as it
// can make them.
//
// The ordinals i of a scope's rows read in order increase, and x = i^k1.
// If the rows' x^key1 do not increase, refine works out the bits that
// vary among the rows' x, from the highest down: for the bits above b
// settled, a wrong bit b of Key1 makes (x^key1)>>b decrease where i's bit
// b turns from 0 to 1 while the bits above stay, so the bit for which
// (x^key1)>>b does not decrease is k1's. Where both do (the bit changes
// only with the bits above it, or the ordinals step by more than 2^(b+1),
// as they do across a text file's blocks), the bit that makes
// the steps of (x^key1)>>b the more even is taken: a wrong bit adds ±1 to
// them. Where neither does, the ordinals do not increase (the rows were
// shuffled) and refine stops.
func refine(key1 uint64, x []uint64, rows []int32) uint64 {
	if len(rows) < 2 || increasing(key1, 0, x, rows) {
		return key1
	}
	var vary uint64
	x0 := x[rows[0]]
	for _, k := range rows[1:] {
		vary |= x[k] ^ x0
	}
	for b := 63; b >= 0; b-- {
		if vary>>b&1 == 0 {
			continue
		}
		other := key1 ^ 1<<b
		keep, flip := increasing(key1, b, x, rows), increasing(other, b, x, rows)
		switch {
		case keep && flip:
			if unevenness(other, b, x, rows) < unevenness(key1, b, x, rows) {
				key1 = other
			}
		case flip:
			key1 = other
		case !keep:
			return key1
		}
	}
	return key1
}

// unevenness returns the sum of the changes from one step of
// (x^key1)>>b along rows to the next.
func unevenness(key1 uint64, b int, x []uint64, rows []int32) uint64 {
	var sum, step uint64
	prev := (x[rows[0]] ^ key1) >> b
	for j, k := range rows[1:] {
		v := (x[k] ^ key1) >> b
		d := v - prev
		if j > 0 {
			sum += max(d, step) - min(d, step)
		}
		prev, step = v, d
	}
	return sum
}

// increasing reports whether (x^key1)>>b does not decrease along rows.
func increasing(key1 uint64, b int, x []uint64, rows []int32) bool {
	prev := (x[rows[0]] ^ key1) >> b
	for _, k := range rows[1:] {
		v := (x[k] ^ key1) >> b
		if v < prev {
			return false
		}
		prev = v
	}
	return true
}
