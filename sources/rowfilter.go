package sources

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	pqformat "github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/dataset"
	"github.com/rowflow/rowflow/internal/pqcol"
)

// RowFilter makes a Parquet source pass on only the rows that f keeps,
// comparing the values of file columns with f's literals. Row groups, and
// pages where the file has a page index, whose statistics show that no
// row can match are skipped without being read; the remaining rows are
// tested one by one. Given more than once, the filters are combined with
// [And].
//
// # Columns and literals
//
// A filter names file columns by their user names: dotted leaf paths,
// after [Rename]. The columns need not be among those the source returns:
// they are read for the filter, and not returned. A literal is parsed by
// the type of the column it compares with:
//
//   - INT32 and INT64 (signed or unsigned, by their logical type): an
//     integer, or a decimal number with a fraction or an exponent ("2.5",
//     "1e9"), compared exactly with the integers;
//   - FLOAT and DOUBLE: a decimal number, rounded to the column's
//     precision (so Eq("x", "0.1") matches a FLOAT 0.1);
//   - BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY: the literal's bytes, compared
//     byte-wise as unsigned (for UTF-8 strings, the order of code points);
//   - BOOLEAN: anything [strconv.ParseBool] takes; false < true.
//
// Other logical types compare as their physical values: a DATE as its
// INT32 day number, a TIMESTAMP as its INT64 count of units. Each file is
// checked when it is opened: a column the file lacks (or that is one of
// its Hive partition columns, which [Where] filters), a repeated column, a
// column of a type that cannot be compared this way (INT96, DECIMAL,
// FLOAT16, INTERVAL) or a literal that does not parse fails the run with
// an error naming the file and the column. (With [SkipBadFragments] such a
// file is skipped and reported, like a file whose footer fails.)
//
// # Nulls
//
// A filter follows SQL's three-valued logic. A comparison with a null
// value, or with a floating-point NaN, is neither true nor false but
// unknown, and so is its [Not]; [And] is false if any operand is false,
// else unknown if any is unknown; [Or] is true if any operand is true,
// else unknown if any is. A row is kept only when the filter is true:
// both Eq("x", "1") and Not(Eq("x", "1")) drop the rows where x is null,
// and Or(Eq("x", "1"), Not(Eq("x", "1"))) keeps exactly the rows where x
// is not null.
//
// # Pruning
//
// Before a fragment is read, the filter is evaluated on the statistics in
// the file's footer of each row group it covers: the bounds (min_value,
// max_value) and null count of each column chunk the filter names, giving
// for each comparison whether some row may make it true and whether some
// row may make it false. A row group where the filter cannot be true is
// not read at all. Bounds are used as the file states them, in the order
// its column_orders field declares (none declared means the type's order);
// the deprecated min and max fields of older writers are used only for
// signed numeric columns, since they were computed with signed byte
// comparisons; bounds that are NaN, or a minimum above the maximum, are
// ignored.
//
// In the row groups that remain, the page index narrows the rows further
// where the file has one (a column index and an offset index for a
// filter column, as most writers produce). The fragment's rows are cut at
// the page boundaries of every filter column, and the filter is evaluated
// on each piece in the same way, with the statistics of the pages that
// hold it: their bounds, by the rules above, and whether they hold only
// nulls. A filter column without a page index gives each piece its column
// chunk's statistics. Only the pieces where the filter may be true are
// read, in every column: the pages of the others are not read, nor
// decompressed, in the columns that have an offset index (a column
// without one skips the pages before each piece by reading them, as when
// a fragment starts inside a row group). A maximum of only 0xff bytes in a column index is ignored, since
// a writer that truncates long bounds cannot round it up. A page index
// that cannot be read, lies outside the file or disagrees with itself or
// its column chunk fails the fragment, as other corrupt data does.
//
// # What is returned
//
// [Parquet] and [ParquetRecords] drop the rows that do not match and keep
// the IDs of the others (still their ordinals in their file), filling
// chunks of up to [ChunkSize] kept rows. [ParquetColumns] keeps the rows
// in its batches and marks those that match in [ColumnBatch.Keep]; it
// returns no batch for a span of rows none of which match. A chunk or a
// batch holds rows of one row group, and of one piece where the page
// index cuts it, so a partition may have several chunks shorter than
// ChunkSize. A partition none of whose rows match still ends, so the
// ordered merge never waits for it. What is returned is the same at every
// parallelism.
//
// # Costs
//
// The filter's columns are read first; the other columns of a span of
// rows are read only if some of its rows match, and then whole. The page
// index of a filter column's chunk is read when a fragment of its row
// group is first read, and kept while the file is open; cutting a
// fragment into pieces costs a pass over its filter columns' pages, and
// reading a piece starts with the dictionary page of each column that has
// one. [Parquet] decodes the rows that do not match too (up to the last
// that does) and leaves them out of its chunks; [ParquetRecords] skips
// them before building any value. Testing a row costs a few nanoseconds
// per comparison.
func RowFilter(f Filter) Option {
	return Option{"RowFilter", func(c *config) error {
		if err := f.check(); err != nil {
			return fmt.Errorf("sources: RowFilter(%v): %w", f, err)
		}
		if c.rowFilter.n != nil {
			f = And(c.rowFilter, f)
		}
		c.rowFilter = f
		return nil
	}}
}

// predicate is a row filter compiled for one file.
type predicate struct {
	root   pnode
	leaves []int      // the leaf columns the filter reads, each once
	infos  []statInfo // per entry of leaves: how to read its statistics
	slots  []int      // per entry of leaves: the plan's column buffer that receives it, or -1
	inPlan []bool     // per plan column buffer: the filter reads it
	prune  []bool     // per row group: no row can match
}

// pnode is a node of a compiled filter: a comparison (term) or a logical
// operation on subs.
type pnode struct {
	op   filterOp
	col  int  // comparisons: the column, an index into predicate.leaves
	term term // comparisons
	subs []pnode
}

// compileRowFilter compiles the source's row filter for a file whose
// format reads planLeaves, and evaluates it on the row groups' statistics.
func compileRowFilter(file dataset.File, r *pqcol.Reader, cfg *config, planLeaves []int) (*predicate, error) {
	p := &predicate{inPlan: make([]bool, len(planLeaves))}
	root, err := p.compile(cfg.rowFilter, file, r, cfg.rename)
	if err != nil {
		return nil, fmt.Errorf("sources: RowFilter: %w", err)
	}
	p.root = root
	for _, leaf := range p.leaves {
		slot := slices.Index(planLeaves, leaf)
		p.slots = append(p.slots, slot)
		if slot >= 0 {
			p.inPlan[slot] = true
		}
	}
	p.prune = p.prunedRowGroups(r.File().Metadata(), len(r.Leaves()))
	return p, nil
}

func (p *predicate) compile(f Filter, file dataset.File, r *pqcol.Reader, rename map[string]string) (pnode, error) {
	n := f.n
	switch n.op {
	case opNot, opAnd, opOr:
		node := pnode{op: n.op}
		for _, s := range n.subs {
			sub, err := p.compile(s, file, r, rename)
			if err != nil {
				return pnode{}, err
			}
			node.subs = append(node.subs, sub)
		}
		return node, nil
	}
	leaf, err := filterLeaf(file, r, n.col, rename)
	if err != nil {
		return pnode{}, err
	}
	t, err := newTerm(leaf, n.op, n.vals)
	if err != nil {
		return pnode{}, fmt.Errorf("%s: column %q (%s): %w", file.Path, n.col, typeName(leaf), err)
	}
	col := slices.Index(p.leaves, leaf.Index)
	if col < 0 {
		col = len(p.leaves)
		p.leaves = append(p.leaves, leaf.Index)
		p.infos = append(p.infos, statInfoOf(leaf))
	}
	return pnode{op: n.op, col: col, term: t}, nil
}

// filterLeaf finds the leaf column a filter names, and checks that a
// filter can compare it.
func filterLeaf(file dataset.File, r *pqcol.Reader, name string, rename map[string]string) (*pqcol.Leaf, error) {
	raw := name
	if rr, ok := rename[name]; ok {
		raw = rr
	}
	leaves := r.Leaves()
	for _, suffix := range []string{"", ".list.element", ".list.item"} {
		for i := range leaves {
			if leaves[i].PathString() != raw+suffix {
				continue
			}
			leaf := &leaves[i]
			if leaf.MaxRepetitionLevel > 0 {
				return nil, fmt.Errorf("%s: column %q is repeated; a row filter compares columns of one value per row", file.Path, name)
			}
			return leaf, nil
		}
	}
	for _, f := range file.Partition {
		if f.Name == name {
			return nil, fmt.Errorf("%s has no column %q: it is a Hive partition column, which Where filters", file.Path, name)
		}
	}
	names := make([]string, len(leaves))
	for i := range leaves {
		names[i] = leaves[i].PathString()
	}
	return nil, fmt.Errorf("%s has no column %q (columns: %s)", file.Path, name, strings.Join(names, ", "))
}

// typeName describes a leaf's type in errors: its physical type, and its
// logical type if it has one.
func typeName(leaf *pqcol.Leaf) string {
	s := leaf.Kind.String()
	if lt := leaf.Node.Type().LogicalType(); lt != nil && lt.Value != nil {
		s += " " + lt.String()
	}
	return s
}

// unsigned reports whether an integer leaf holds unsigned integers.
func unsigned(leaf *pqcol.Leaf) bool {
	t := leaf.Node.Type()
	if lt := t.LogicalType(); lt != nil {
		if it, ok := lt.Value.(*pqformat.IntType); ok {
			return !it.IsSigned
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			return true
		}
	}
	return false
}

// uncomparable returns why a leaf's values cannot be compared as their
// physical values, or "".
func uncomparable(leaf *pqcol.Leaf) string {
	t := leaf.Node.Type()
	if lt := t.LogicalType(); lt != nil {
		switch lt.Value.(type) {
		case *pqformat.DecimalType, *pqformat.Float16Type:
			return "its logical type does not compare as its physical values"
		}
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Decimal, deprecated.Interval:
			return "its converted type does not compare as its physical values"
		}
	}
	if leaf.Kind == parquet.Int96 || leaf.Kind < 0 {
		return "the type cannot be filtered"
	}
	return ""
}
