package assemble

import (
	"bytes"
	"fmt"
	"unsafe"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// loader prepares values [v0, v1) of a column and returns a function that
// gives value v, for v in that range, as a D.
type loader[D any] func(c *pqcol.Column, v0, v1 int) func(v int) D

// numGetter reads a numeric physical type S into fields of type D, with a
// direct loop for required columns.
type numGetter[S, D number] func(*pqcol.Column) []S

func (g numGetter[S, D]) load(c *pqcol.Column, _, _ int) func(int) D {
	s := g(c)
	return func(v int) D { return D(s[v]) }
}

func (g numGetter[S, D]) scalar(off uintptr, maxDef int, ptr bool) fillFunc {
	if maxDef > 0 || ptr {
		return loader[D](g.load).scalar(off, maxDef, ptr)
	}
	return func(c *pqcol.Column, cur *cursor, base unsafe.Pointer, stride uintptr, n int, _ *Pos) error {
		src := g(c)
		if cur.val+n > len(src) {
			return errShort(c, cur.val+n, len(src))
		}
		for i, v := range src[cur.val : cur.val+n] {
			*at[D](base, i, stride, off) = D(v)
		}
		cur.val += n
		return nil
	}
}

// list fills []D fields; when no element of the rows is null, the values
// go into the rows' shared arena with one conversion loop, and each row's
// slice is cut from it.
func (g numGetter[S, D]) list(off uintptr, maxDef, repDef int) fillFunc {
	slow := loader[D](g.load).list(off, maxDef, repDef)
	return func(c *pqcol.Column, cur *cursor, base unsafe.Pointer, stride uintptr, n int, pos *Pos) error {
		end, elems, vals, err := listExtent(c, cur, n, maxDef, repDef)
		if err != nil {
			return err
		}
		if elems != vals {
			return slow(c, cur, base, stride, n, pos)
		}
		src := g(c)
		if cur.val+vals > len(src) {
			return errShort(c, cur.val+vals, len(src))
		}
		arena := convert[S, D](src[cur.val : cur.val+vals])
		// With no null element, a row's entries are all elements, but for
		// an empty or null list's one entry; rows start at repetition
		// level 0.
		reps, defs := c.RepLevels[:end], c.DefLevels
		l, k := cur.lvl, 0
		for r := range n {
			next := end
			if i := bytes.IndexByte(reps[l+1:], 0); i >= 0 {
				next = l + 1 + i
			}
			m := next - l
			if m == 1 && int(defs[l]) < repDef {
				m = 0
			}
			var s []D
			if m > 0 {
				s = arena[k : k+m : k+m]
			}
			*at[[]D](base, r, stride, off) = s
			k += m
			l = next
		}
		cur.lvl, cur.val = end, cur.val+vals
		return nil
	}
}

// convert returns the values of src as a new []D. Where D is S it copies
// them, which, unlike make and a loop, does not clear the memory first.
func convert[S, D number](src []S) []D {
	if same, ok := any(src).([]D); ok {
		return append([]D(nil), same...)
	}
	out := make([]D, len(src))
	for i, v := range src {
		out[i] = D(v)
	}
	return out
}

// listExtent finds where n rows of a repeated column end, starting at
// cur, and counts their elements and non-null values. Row r starts at the
// r-th repetition level 0 from cur (found a block at a time, see
// pqcol.NthLevel); the counts are of definition levels, by value.
func listExtent(c *pqcol.Column, cur *cursor, n, maxDef, repDef int) (end, elems, vals int, err error) {
	reps, defs := c.RepLevels, c.DefLevels
	if len(defs) != len(reps) {
		return 0, 0, 0, fmt.Errorf("%d definition levels but %d repetition levels", len(defs), len(reps))
	}
	if n == 0 {
		return cur.lvl, 0, 0, nil
	}
	if cur.lvl >= len(reps) || reps[cur.lvl] != 0 {
		return 0, 0, 0, fmt.Errorf("row %d does not start at level entry %d", c.FirstRow, cur.lvl)
	}
	rest := reps[cur.lvl:]
	if end = pqcol.NthLevel(rest, 0, n); end < 0 {
		if rows := bytes.Count(rest, []byte{0}); rows < n {
			return 0, 0, 0, fmt.Errorf("row %d does not start at level entry %d", c.FirstRow+int64(rows), len(reps))
		}
		end = len(rest)
	}
	end += cur.lvl
	d := defs[cur.lvl:end]
	vals = bytes.Count(d, []byte{byte(maxDef)})
	elems = vals
	for k := repDef; k < maxDef; k++ {
		elems += bytes.Count(d, []byte{byte(k)})
	}
	return end, elems, vals, nil
}

func errShort(c *pqcol.Column, want, have int) error {
	return fmt.Errorf("the column holds %d values or levels, rows need %d", have, want)
}

// scalar fills a field of type D (or *D) from a column that is not
// repeated.
func (load loader[D]) scalar(off uintptr, maxDef int, ptr bool) fillFunc {
	return func(c *pqcol.Column, cur *cursor, base unsafe.Pointer, stride uintptr, n int, _ *Pos) error {
		present := n
		var defs []byte
		if maxDef > 0 {
			if cur.lvl+n > len(c.DefLevels) {
				return errShort(c, cur.lvl+n, len(c.DefLevels))
			}
			defs = c.DefLevels[cur.lvl : cur.lvl+n]
			present = 0
			for _, d := range defs {
				if int(d) == maxDef {
					present++
				}
			}
		}
		if cur.val+present > c.Len() {
			return errShort(c, cur.val+present, c.Len())
		}
		get := load(c, cur.val, cur.val+present)
		var arena []D
		if ptr {
			arena = make([]D, present)
		}
		v, k := cur.val, 0
		for i := range n {
			if defs != nil && int(defs[i]) != maxDef {
				if ptr {
					*at[*D](base, i, stride, off) = nil
				} else {
					var zero D
					*at[D](base, i, stride, off) = zero
				}
				continue
			}
			x := get(v)
			v++
			if ptr {
				arena[k] = x
				*at[*D](base, i, stride, off) = &arena[k]
				k++
			} else {
				*at[D](base, i, stride, off) = x
			}
		}
		cur.val = v
		if maxDef > 0 {
			cur.lvl += n
		}
		return nil
	}
}

// list fills a []D field from a column with one level of repetition: a
// row's entries run from one repetition level 0 to the next; an entry
// whose definition level reaches repDef is an element (null elements read
// as zero), and a row with no element gets a nil slice.
func (load loader[D]) list(off uintptr, maxDef, repDef int) fillFunc {
	return func(c *pqcol.Column, cur *cursor, base unsafe.Pointer, stride uintptr, n int, _ *Pos) error {
		reps, defs := c.RepLevels, c.DefLevels
		end, elems, vals, err := listExtent(c, cur, n, maxDef, repDef)
		if err != nil {
			return err
		}
		if cur.val+vals > c.Len() {
			return errShort(c, cur.val+vals, c.Len())
		}
		get := load(c, cur.val, cur.val+vals)
		arena := make([]D, elems)
		l, v, k := cur.lvl, cur.val, 0
		for r := range n {
			start := k
			for first := true; l < end && (first || reps[l] != 0); first = false {
				d := int(defs[l])
				l++
				if d < repDef {
					continue
				}
				if d == maxDef {
					arena[k] = get(v)
					v++
				}
				k++
			}
			var s []D
			if k > start {
				s = arena[start:k:k]
			}
			*at[[]D](base, r, stride, off) = s
		}
		cur.lvl, cur.val = end, v
		return nil
	}
}

// loadStrings copies the bytes of values [v0, v1) into one string and
// returns substrings of it: one allocation per chunk, not per value.
func loadStrings(c *pqcol.Column, v0, v1 int) func(int) string {
	if w := c.Leaf.TypeLength; len(c.Offsets) == 0 && w > 0 {
		arena := string(c.Bytes[v0*w : v1*w])
		return func(v int) string { return arena[(v-v0)*w : (v-v0+1)*w] }
	}
	if v1 == v0 {
		return func(int) string { return "" }
	}
	base := c.Offsets[v0]
	arena := string(c.Bytes[base:c.Offsets[v1]])
	offs := c.Offsets
	return func(v int) string { return arena[offs[v]-base : offs[v+1]-base] }
}

// loadBytes is loadStrings for []byte: capped slices of one copy.
func loadBytes(c *pqcol.Column, v0, v1 int) func(int) []byte {
	if w := c.Leaf.TypeLength; len(c.Offsets) == 0 && w > 0 {
		arena := append([]byte(nil), c.Bytes[v0*w:v1*w]...)
		return func(v int) []byte { i := (v - v0) * w; return arena[i : i+w : i+w] }
	}
	if v1 == v0 {
		return func(int) []byte { return []byte{} }
	}
	base := c.Offsets[v0]
	arena := append([]byte{}, c.Bytes[base:c.Offsets[v1]]...) // not nil: an empty value reads as []byte{} in every chunk
	offs := c.Offsets
	return func(v int) []byte {
		i, j := offs[v]-base, offs[v+1]-base
		return arena[i:j:j]
	}
}
