package filter

import "fmt"

// MatchText evaluates e on columns whose values are text, such as Hive
// partition values: get returns the text of a column, and false if there
// is no such column, which is an error. A value is read as the kind of the
// literal it is compared with (see [Value.ComparePartition]); [HiveNull]
// is null.
func (e *Expr) MatchText(get func(col string) (string, bool)) (Tri, error) {
	return e.Eval(func(n *Expr) (Tri, error) {
		s, ok := get(n.Col)
		if !ok {
			return 0, fmt.Errorf("no column %q", n.Col)
		}
		if n.Op == In {
			acc := TriFalse
			for _, v := range n.Vals {
				c, known, err := v.ComparePartition(n.Col, s)
				switch {
				case err != nil:
					return 0, err
				case !known:
					return TriNull, nil
				case c == 0:
					return TriTrue, nil
				}
			}
			return acc, nil
		}
		c, known, err := n.Vals[0].ComparePartition(n.Col, s)
		if err != nil || !known {
			return TriNull, err
		}
		return TriOf(Holds(n.Op, c)), nil
	})
}
