package sources

import (
	"fmt"
	"time"

	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/datasource"
)

// Expr is a filter expression on the columns of a dataset, which a
// source evaluates itself: on its Hive partition values with [Where], or
// on the values of its file columns, row by row, with
// [github.com/rowflow/rowflow/sources/parquet.RowFilter]. (A filter of Go
// values written as a Go function is a stage,
// [github.com/rowflow/rowflow/operators.Filter].) Make one with [Eq],
// [Ne], [Lt], [Le], [Gt], [Ge], [In], [Not], [And] and [Or], whose
// literals are typed Go values ([Literal]), or from text with
// [ParseExpr].
//
// Filters follow SQL's three-valued logic: a comparison with a null value
// is neither true nor false but unknown, and so is its [Not]; [And] is
// false if any operand is false, else unknown if any is; [Or] is true if
// any operand is true, else unknown if any is. What a filter makes true is
// kept.
//
// The zero Expr is not a filter: giving it (or a filter built from it)
// to an option is an error, as is a NaN literal.
type Expr struct{ e *filter.Expr }

func init() {
	linkage.FilterExpr = func(f any) *filter.Expr { return f.(Expr).e }
}

// Literal is the type of the values a filter compares columns with.
// Which literals compare with which columns is said by [Where] and
// parquet.RowFilter; a mismatch fails the run when the file (or, for Where, the
// dataset) is opened, naming the column and both types.
type Literal interface {
	int | int8 | int16 | int32 | int64 | uint | uint8 | uint16 | uint32 | uint64 |
		float32 | float64 | string | []byte | bool | time.Time
}

func compare[V Literal](op filter.Op, col string, v V) Expr {
	return Expr{filter.Compare(op, col, filter.Of(v))}
}

func exprs(fs []Expr) []*filter.Expr {
	es := make([]*filter.Expr, len(fs))
	for i, f := range fs {
		es[i] = f.e
	}
	return es
}

// String returns the filter in the text form that [ParseExpr] reads.
func (f Expr) String() string { return f.e.String() }

// ParseExpr reads a filter from text, such as a command line's:
//
//	score > 0.5 and lang = 'en'
//	not (id between 100 and 200) or name in ('a', 'b')
//	day >= date '2024-01-31' and ts < timestamp '2024-02-01T12:00:00Z'
//
// Comparisons are =, != (or <>), <, <=, > and >=, and "in" and "between";
// "and" binds tighter than "or", "not" tighter than both; keywords are
// case-insensitive. Literals: integers (int64, or uint64 beyond its
// range), numbers with a fraction or an exponent, +Inf and -Inf
// (float64), 'quoted strings' (a quote inside written twice), true and
// false, x'hex bytes', date 'YYYY-MM-DD' and timestamp 'RFC 3339'
// (time.Time). Column names are words of letters, digits, '_' and '.'
// that do not start with a digit or '.', or are "double-quoted". The
// literal "true" alone keeps everything, "false" nothing.
//
// f.String() of any filter parses back into an equal filter, except one
// holding a time outside the years 0 to 9999, which RFC 3339 cannot write.
func ParseExpr(text string) (Expr, error) {
	e, err := filter.Parse(text)
	if err != nil {
		return Expr{}, fmt.Errorf("sources: %w", err)
	}
	return Expr{e}, nil
}

// Eq keeps what has column col equal to v.
func Eq[V Literal](col string, v V) Expr { return compare(filter.Eq, col, v) }

// Ne keeps what has column col different from v.
func Ne[V Literal](col string, v V) Expr { return compare(filter.Ne, col, v) }

// Lt keeps what has column col less than v.
func Lt[V Literal](col string, v V) Expr { return compare(filter.Lt, col, v) }

// Le keeps what has column col at most v.
func Le[V Literal](col string, v V) Expr { return compare(filter.Le, col, v) }

// Gt keeps what has column col greater than v.
func Gt[V Literal](col string, v V) Expr { return compare(filter.Gt, col, v) }

// Ge keeps what has column col at least v.
func Ge[V Literal](col string, v V) Expr { return compare(filter.Ge, col, v) }

// In keeps what has column col equal to one of vs: it is Or of Eq with
// each. With no vs it keeps nothing and is false everywhere, even where
// col is null, so that Not(In(col)) keeps everything.
func In[V Literal](col string, vs ...V) Expr {
	vals := make([]filter.Value, len(vs))
	for i, v := range vs {
		vals[i] = filter.Of(v)
	}
	return Expr{filter.InList(col, vals)}
}

// Not keeps what f makes false (see the three-valued logic at [Expr]).
func Not(f Expr) Expr { return Expr{filter.Logic(filter.Not, f.e)} }

// And keeps what every filter keeps; with no filters, everything.
func And(fs ...Expr) Expr { return Expr{filter.Logic(filter.And, exprs(fs)...)} }

// Or keeps what some filter keeps; with no filters, nothing.
func Or(fs ...Expr) Expr { return Expr{filter.Logic(filter.Or, exprs(fs)...)} }

// Where reads only the files whose Hive partition values f makes true,
// and decides that before any file is opened. Partition values are text:
// each is read as the type of the literal it is compared with, so that
// Eq("month", 7) keeps month=07 (integers and floats compare as numbers,
// exactly), while Eq("month", "7") compares text and does not; a bool
// literal reads the value with strconv.ParseBool, a time.Time literal
// reads RFC 3339, "2006-01-02 15:04:05" or a date. The directory value
// __HIVE_DEFAULT_PARTITION__ is null; the string itself is written
// escaped, %5F_HIVE_DEFAULT_PARTITION__, and is that string. A filter
// that names a column the dataset's paths do not have, or a value that
// does not read as its literal's type, fails the run when it starts. In a
// Parquet source, Where names the Hive columns by their names after
// parquet.Rename, as parquet.RowFilter names file columns: a name that
// Rename gives a file column, or a Hive column's name in the paths that
// Rename changes, fails the run too. To filter on the values inside the
// files, use parquet.RowFilter. Given more than once, the filters are
// combined with [And].
func Where(f Expr) DatasetOption {
	return datasetOption(func(c *datasource.Settings) error {
		if err := f.e.Check(); err != nil {
			return fmt.Errorf("sources: Where(%v): %w", f, err)
		}
		c.Plan.Where = filter.Also(c.Plan.Where, f.e)
		return nil
	})
}
