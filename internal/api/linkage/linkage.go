// Package linkage holds what one rowflow package tells another without
// making it part of either's public API. Each variable is set once, by the
// package named in its doc, when that package is initialised.
package linkage

import (
	"fmt"
	"reflect"

	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/rowid"
)

// StartOf returns a text that names the position a *flow.Pipeline's runs
// start from (flow.Pipeline.Resume), or "" if they start at the beginning.
// Set by flow; operators.Cache keys what it keeps with it, since a run
// that starts later gives another stream.
var StartOf func(p any) string

// FilterExpr returns the expression of a sources.Expr, given as f. Set
// by sources; the format packages (sources/parquet), which import
// sources, call it.
var FilterExpr func(f any) *filter.Expr

// Pass returns the *flow.Pipeline p as the k-th of runs that follow one
// another over fresh epochs (see flow's withPass). Set by flow;
// operators' combinations restart an input that ran out with it.
var Pass func(p any, k int64) any

// OutType returns the type of the values a *flow.Pipeline's last stage
// produces. Set by flow; operators' Cache and combinations check their
// inputs with it.
var OutType func(p any) reflect.Type

// ReleaseWith makes the *sources/parquet.ColumnBatch b call f when it is
// released (ColumnBatch.Release), for a batch that another source made
// with NewColumnBatch from buffers it reuses. Set by sources/parquet;
// sources/text's CSV and JSONL call it for their column batches.
var ReleaseWith func(b any, f func())

// JSONColumn returns what a column of a batch of
// sources/text.JSONL[*parquet.ColumnBatch] (c, a *sources/parquet.Column)
// knows beyond its text, for the column's source to fill and
// shards.Parquet (of column batches) to read. Set by sources/parquet.
var JSONColumn func(c any) *JSONInfo

// JSONInfo is what a column of JSON Lines knows beyond its text; the
// zero value is that of a column of another source.
type JSONInfo struct {
	// JSON marks a column of a JSON Lines batch.
	JSON bool
	// Kinds holds the JSON kind of each of the column's values; it is
	// empty if every value is a string.
	Kinds []byte
	// First is the first row whose line has the column's key, and Nulls
	// the rows, in order, whose line has it with a null: a null and a
	// missing key are both null in the column.
	First int
	Nulls []int
}

// The JSON kinds of JSONInfo.Kinds: what a value of a JSON Lines record was,
// which its text in the column does not tell.
const (
	JSONString byte = iota // a string, its text the string itself
	JSONNumber             // a number, its text as written
	JSONBool               // true or false
	JSONNested             // an array or an object, its text the JSON
)

// RowError is err, which happened at the row ID of partition Part: how a
// source, stage or sink of rowflow's own packages that knows a row's
// position without a chunk names the failing row. flow.ErrorAt makes one
// from a chunk, and flow takes the position out of it into the run's
// StageError, keeping only Err, so users never see it.
type RowError struct {
	Part int64
	ID   rowid.ID
	Err  error
}

func (e *RowError) Error() string {
	return fmt.Sprintf("partition %d, row %s: %v", e.Part, e.ID, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }
