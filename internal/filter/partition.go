package filter

import "fmt"

// MatchText evaluates e on columns whose values are text, such as Hive
// partition values: get returns the text of a column, whether it is null,
// and false if there is no such column, which is an error. A value is
// read as the kind of the literal it is compared with (see
// [Value.ComparePartition]).
func (e *Expr) MatchText(get func(col string) (s string, null, ok bool)) (Tri, error) {
	return e.Eval(func(n *Expr) (Tri, error) {
		s, null, ok := get(n.Col)
		if !ok {
			return 0, fmt.Errorf("no column %q", n.Col)
		}
		switch {
		case n.Op == In && len(n.Vals) == 0:
			return TriFalse, nil // in () holds for no value, null included
		case null:
			return TriNull, nil
		}
		if n.Op == In {
			for _, v := range n.Vals {
				c, err := v.ComparePartition(n.Col, s)
				switch {
				case err != nil:
					return 0, err
				case c == 0:
					return TriTrue, nil
				}
			}
			return TriFalse, nil
		}
		c, err := n.Vals[0].ComparePartition(n.Col, s)
		if err != nil {
			return TriNull, err
		}
		return TriOf(Holds(n.Op, c)), nil
	})
}
