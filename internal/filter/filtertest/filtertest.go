// Package filtertest builds filters with untyped literals, for the tests
// of the packages that evaluate them.
package filtertest

import "github.com/rowflow/rowflow/internal/filter"

func cmp(op filter.Op) func(string, any) *filter.Expr {
	return func(col string, v any) *filter.Expr { return filter.Compare(op, col, filter.Of(v)) }
}

// The comparisons of col with the literal v (see [filter.Of]).
var Eq, Ne, Lt, Le, Gt, Ge = cmp(filter.Eq), cmp(filter.Ne), cmp(filter.Lt), cmp(filter.Le), cmp(filter.Gt), cmp(filter.Ge)

// In is col in (vs...).
func In(col string, vs ...any) *filter.Expr {
	var vals []filter.Value
	for _, v := range vs {
		vals = append(vals, filter.Of(v))
	}
	return filter.InList(col, vals)
}

// Not, And and Or combine filters.
func Not(e *filter.Expr) *filter.Expr     { return filter.Logic(filter.Not, e) }
func And(es ...*filter.Expr) *filter.Expr { return filter.Logic(filter.And, es...) }
func Or(es ...*filter.Expr) *filter.Expr  { return filter.Logic(filter.Or, es...) }

// Between is col >= lo and col <= hi.
func Between(col string, lo, hi any) *filter.Expr { return And(Ge(col, lo), Le(col, hi)) }
