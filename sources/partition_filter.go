package sources

import (
	"errors"
	"fmt"

	"github.com/rowflow/rowflow/internal/dataset"
)

// Filter is a predicate on the columns of a dataset: on its Hive
// partition values with [Where], or on the values of its file columns,
// row by row, with [RowFilter]. Make one with [Eq], [Ne], [Lt], [Le],
// [Gt], [Ge], [Between], [In], [Not], [And] and [Or]; literals are
// strings, which each use parses for the column it compares with.
//
// The zero Filter is not a filter: giving it (or a filter built from it)
// to an option is an error.
type Filter struct{ n *filterNode }

type filterOp uint8

const (
	opEq filterOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	opIn
	opNot
	opAnd
	opOr
)

// filterNode is a comparison of col with vals (one value, or In's list),
// or Not, And or Or of subs.
type filterNode struct {
	op   filterOp
	col  string
	vals []string
	subs []Filter
}

func compare(op filterOp, col, value string) Filter {
	return Filter{&filterNode{op: op, col: col, vals: []string{value}}}
}

func logic(op filterOp, fs []Filter) Filter {
	return Filter{&filterNode{op: op, subs: append([]Filter(nil), fs...)}}
}

// String returns the filter in a readable form.
func (f Filter) String() string {
	if f.n == nil {
		return "<none>"
	}
	return f.partitionExpr().String()
}

// Eq keeps what has column col equal to value.
func Eq(col, value string) Filter { return compare(opEq, col, value) }

// Ne keeps what has column col different from value.
func Ne(col, value string) Filter { return compare(opNe, col, value) }

// Lt keeps what has column col less than value.
func Lt(col, value string) Filter { return compare(opLt, col, value) }

// Le keeps what has column col at most value.
func Le(col, value string) Filter { return compare(opLe, col, value) }

// Gt keeps what has column col greater than value.
func Gt(col, value string) Filter { return compare(opGt, col, value) }

// Ge keeps what has column col at least value.
func Ge(col, value string) Filter { return compare(opGe, col, value) }

// Between keeps what has column col in [lo, hi], both ends included: it
// is And(Ge(col, lo), Le(col, hi)).
func Between(col, lo, hi string) Filter { return And(Ge(col, lo), Le(col, hi)) }

// In keeps what has column col equal to one of values; with no values,
// nothing.
func In(col string, values ...string) Filter {
	return Filter{&filterNode{op: opIn, col: col, vals: append([]string(nil), values...)}}
}

// Not keeps what f drops. (With [RowFilter], a row whose column is null
// matches neither f nor Not(f): see "Nulls" there.)
func Not(f Filter) Filter { return logic(opNot, []Filter{f}) }

// And keeps what every filter keeps; with no filters, everything.
func And(fs ...Filter) Filter { return logic(opAnd, fs) }

// Or keeps what some filter keeps; with no filters, nothing.
func Or(fs ...Filter) Filter { return logic(opOr, fs) }

// partitionExpr returns f as a partition filter; a zero filter becomes a
// nil expression, which the dataset planner reports.
func (f Filter) partitionExpr() dataset.Expr {
	n := f.n
	if n == nil {
		return nil
	}
	subs := make([]dataset.Expr, len(n.subs))
	for i, s := range n.subs {
		subs[i] = s.partitionExpr()
	}
	switch n.op {
	case opEq:
		return dataset.Eq(n.col, n.vals[0])
	case opNe:
		return dataset.Ne(n.col, n.vals[0])
	case opLt:
		return dataset.Lt(n.col, n.vals[0])
	case opLe:
		return dataset.Le(n.col, n.vals[0])
	case opGt:
		return dataset.Gt(n.col, n.vals[0])
	case opGe:
		return dataset.Ge(n.col, n.vals[0])
	case opIn:
		return dataset.In(n.col, n.vals...)
	case opNot:
		return dataset.Not(subs[0])
	case opAnd:
		return dataset.And(subs...)
	default:
		return dataset.Or(subs...)
	}
}

var errZeroFilter = errors.New("a zero Filter")

// check reports a zero filter anywhere in f.
func (f Filter) check() error {
	if f.n == nil {
		return errZeroFilter
	}
	for _, s := range f.n.subs {
		if err := s.check(); err != nil {
			return err
		}
	}
	return nil
}

// Where reads only the files whose Hive partition values f keeps, and
// decides that before any file is opened. Two values compare as numbers
// when both are decimal numbers, else as strings: month "07" equals "7"
// and is less than "10", while lang "de" is less than "en". A filter that
// names a column the dataset's paths do not have fails the run when it
// starts. To filter on the values inside the files, use [RowFilter].
func Where(f Filter) Option {
	return Option{"Where", func(c *config) error {
		if err := f.check(); err != nil {
			return fmt.Errorf("sources: Where(%v): %w", f, err)
		}
		c.where = f.partitionExpr()
		return nil
	}}
}
