package dataset

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Expr is a predicate on the Hive partition values of a file. It is built
// with [Eq], [Ne], [In], [Lt], [Le], [Gt], [Ge], [Between], [Not], [And]
// and [Or]; see "Partition filters" in the package documentation for how
// values compare.
type Expr interface {
	// Match reports whether a file with partition values p satisfies the
	// expression. It returns an error if the expression names a column
	// that p lacks, or contains a nil sub-expression.
	Match(p Partition) (bool, error)
	// String returns the expression in a readable form.
	String() string

	// columns appends the columns the expression names to dst.
	columns(dst []string) []string
}

type op int

const (
	opEq op = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var opNames = [...]string{"=", "!=", "<", "<=", ">", ">="}

type cmpExpr struct {
	col, val string
	op       op
}

type inExpr struct {
	col  string
	vals []string
}

type notExpr struct{ e Expr }

type logicExpr struct {
	and bool
	es  []Expr
}

// Eq matches files whose column col equals v.
func Eq(col, v string) Expr { return cmpExpr{col: col, val: v, op: opEq} }

// Ne matches files whose column col differs from v.
func Ne(col, v string) Expr { return cmpExpr{col: col, val: v, op: opNe} }

// Lt matches files whose column col is less than v.
func Lt(col, v string) Expr { return cmpExpr{col: col, val: v, op: opLt} }

// Le matches files whose column col is less than or equal to v.
func Le(col, v string) Expr { return cmpExpr{col: col, val: v, op: opLe} }

// Gt matches files whose column col is greater than v.
func Gt(col, v string) Expr { return cmpExpr{col: col, val: v, op: opGt} }

// Ge matches files whose column col is greater than or equal to v.
func Ge(col, v string) Expr { return cmpExpr{col: col, val: v, op: opGe} }

// Between matches files whose column col lies in [lo, hi], both ends
// included.
func Between(col, lo, hi string) Expr { return And(Ge(col, lo), Le(col, hi)) }

// In matches files whose column col equals one of vals. With no vals it
// matches nothing.
func In(col string, vals ...string) Expr {
	return inExpr{col: col, vals: append([]string(nil), vals...)}
}

// Not matches files that e does not match.
func Not(e Expr) Expr { return notExpr{e} }

// And matches files that every one of es matches; with no es, every file.
func And(es ...Expr) Expr { return logicExpr{and: true, es: append([]Expr(nil), es...)} }

// Or matches files that at least one of es matches; with no es, none.
func Or(es ...Expr) Expr { return logicExpr{and: false, es: append([]Expr(nil), es...)} }

func lookup(p Partition, col string) (string, error) {
	v, ok := p.Get(col)
	if !ok {
		return "", fmt.Errorf("dataset: filter names unknown partition column %q", col)
	}
	return v, nil
}

func (e cmpExpr) Match(p Partition) (bool, error) {
	v, err := lookup(p, e.col)
	if err != nil {
		return false, err
	}
	c := compareValues(v, e.val)
	switch e.op {
	case opEq:
		return c == 0, nil
	case opNe:
		return c != 0, nil
	case opLt:
		return c < 0, nil
	case opLe:
		return c <= 0, nil
	case opGt:
		return c > 0, nil
	default:
		return c >= 0, nil
	}
}

func (e cmpExpr) String() string {
	return e.col + " " + opNames[e.op] + " " + strconv.Quote(e.val)
}

func (e cmpExpr) columns(dst []string) []string { return append(dst, e.col) }

func (e inExpr) Match(p Partition) (bool, error) {
	v, err := lookup(p, e.col)
	if err != nil {
		return false, err
	}
	for _, w := range e.vals {
		if compareValues(v, w) == 0 {
			return true, nil
		}
	}
	return false, nil
}

func (e inExpr) String() string {
	q := make([]string, len(e.vals))
	for i, v := range e.vals {
		q[i] = strconv.Quote(v)
	}
	return e.col + " in (" + strings.Join(q, ", ") + ")"
}

func (e inExpr) columns(dst []string) []string { return append(dst, e.col) }

var errNilExpr = errors.New("dataset: nil filter expression")

func (e notExpr) Match(p Partition) (bool, error) {
	if e.e == nil {
		return false, errNilExpr
	}
	ok, err := e.e.Match(p)
	return !ok, err
}

func (e notExpr) String() string { return "not (" + exprString(e.e) + ")" }

func (e notExpr) columns(dst []string) []string {
	if e.e == nil {
		return dst
	}
	return e.e.columns(dst)
}

// Match evaluates the operands in order and stops at the first one that
// decides the result; validation of all operands happens when a [Plan] is
// built.
func (e logicExpr) Match(p Partition) (bool, error) {
	for _, x := range e.es {
		if x == nil {
			return false, errNilExpr
		}
		ok, err := x.Match(p)
		if err != nil || ok != e.and {
			return ok, err
		}
	}
	return e.and, nil
}

func (e logicExpr) String() string {
	if len(e.es) == 0 {
		return strconv.FormatBool(e.and)
	}
	sep := " or "
	if e.and {
		sep = " and "
	}
	parts := make([]string, len(e.es))
	for i, x := range e.es {
		parts[i] = exprString(x)
	}
	return "(" + strings.Join(parts, sep) + ")"
}

func (e logicExpr) columns(dst []string) []string {
	for _, x := range e.es {
		if x != nil {
			dst = x.columns(dst)
		}
	}
	return dst
}

func exprString(e Expr) string {
	if e == nil {
		return "<nil>"
	}
	return e.String()
}

// hasNil reports whether e or one of its sub-expressions is nil.
func hasNil(e Expr) bool {
	switch x := e.(type) {
	case nil:
		return true
	case notExpr:
		return hasNil(x.e)
	case logicExpr:
		for _, y := range x.es {
			if hasNil(y) {
				return true
			}
		}
	}
	return false
}

// compareValues compares two partition values: as numbers when both are
// decimal numbers, else as strings.
func compareValues(a, b string) int {
	if x, ok := parseInt(a); ok {
		if y, ok := parseInt(b); ok {
			return cmp3(x, y)
		}
	}
	if x, ok := parseNumber(a); ok {
		if y, ok := parseNumber(b); ok {
			return cmp3(x, y)
		}
	}
	return strings.Compare(a, b)
}

func cmp3[T int64 | float64](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseNumber accepts decimal numbers such as "-1.5" or "2e3", but not
// "NaN", "Inf", hexadecimal or underscores.
func parseNumber(s string) (float64, bool) {
	if s == "" || strings.Trim(s, "0123456789+-.eE") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}
