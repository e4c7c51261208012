package dataset

import (
	"iter"

	"github.com/rowflow/rowflow/internal/run/shares"
)

// EpochStride is the distance between the partition numbers of two consecutive
// epochs: the fragment at index i of epoch e has batch e*EpochStride + i.
// An epoch holds at most EpochStride fragments.
const EpochStride = 1 << 32

// maxEpoch bounds epoch numbers so that partition numbers fit in an int64.
const maxEpoch = 1<<31 - 1

// Position addresses one fragment of a plan: the Index-th fragment, counted
// from 0 before the split between ranks, of epoch Epoch, counted from 0.
type Position struct {
	Epoch int64
	Index int64
}

// Batch returns the partition number of the fragment at p.
func (p Position) Batch() int64 { return p.Epoch*EpochStride + p.Index }

// BatchPosition returns the position of the fragment with partition number b;
// it is the inverse of [Position.Batch] for non-negative b.
func BatchPosition(b int64) Position {
	return Position{Epoch: b / EpochStride, Index: b % EpochStride}
}

// Fragment is one partition of a plan: a range of rows of one file, read
// as a unit.
type Fragment struct {
	// Epoch is the epoch the fragment belongs to, counted from 0.
	Epoch int64
	// Index is the fragment's position in the epoch's order before
	// the split between ranks, counted from 0.
	Index int64
	// Part is Position{Epoch, Index}.Part(): it increases along the plan
	// and no two fragments of a plan share it, whatever the rank.
	Part int64
	// File is the index of the file in [Dataset.Files].
	File int
	// Path is the file's [File.RelPath].
	Path string
	// RowGroup is the index of the row group in the file, or -1 when the
	// fragment is the whole file (see [Config.WholeFiles]).
	RowGroup int
	// From and To delimit the rows [From, To) of the fragment, counted
	// within the row group, or within the file when RowGroup is -1.
	From, To int64
	// FirstRow is the ordinal within the file of row From: row From+i of
	// the fragment is row FirstRow+i of the file, whatever the shuffle.
	FirstRow int64
}

// Rows returns the number of rows of the fragment, To - From.
func (f Fragment) Rows() int64 { return f.To - f.From }

// Position returns the fragment's position in the plan.
func (f Fragment) Position() Position { return Position{Epoch: f.Epoch, Index: f.Index} }

// unresolved marks the To of a whole-file fragment whose row count is not
// known yet: ordering whole files needs no footer.
const unresolved = -1

// rowGroupFragments returns the fragments of one file, in file order: one
// per row group, or several of at most maxRows rows each for a row group
// that is larger (maxRows 0 means no limit). A row group of n rows split
// in k parts has parts [i*n/k, (i+1)*n/k), which differ in size by at
// most one. The fragments are made as they are asked for: a footer that
// declares 2^62 rows costs nothing until its fragments are used.
func rowGroupFragments(file int, rel string, rows []int64, maxRows int64) iter.Seq[Fragment] {
	return func(yield func(Fragment) bool) {
		var first int64
		for rg, n := range rows {
			parts := int64(1)
			if maxRows > 0 && n > maxRows {
				parts = (n-1)/maxRows + 1
			}
			for i := range parts {
				from, to := shares.Point(i, n, parts), shares.Point(i+1, n, parts)
				if !yield(Fragment{File: file, Path: rel, RowGroup: rg, From: from, To: to, FirstRow: first + from}) {
					return
				}
			}
			first += n
		}
	}
}
