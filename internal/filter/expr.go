// Package filter is rowflow's one model of a filter: a tree of
// comparisons of named columns with typed literals, combined with Not, And
// and Or. Package sources builds it (sources.Expr wraps an [*Expr]);
// package dataset evaluates it on Hive partition values; package pqfilter
// compiles it against the columns of a Parquet file.
//
// Every evaluation follows SQL's three-valued logic ([Tri]): a comparison
// with a null value is unknown, and so is its Not; And is false if any
// operand is false, else unknown if any is; Or is true if any operand is
// true, else unknown if any is. A row or file is kept only when the filter
// is true.
//
// An expression has a text form ([Expr.String], [Parse]) for the command
// line: `score > 0.5 and lang = 'en'`.
package filter

import (
	"errors"
	"fmt"
)

// Op is the operation of an [Expr] node.
type Op uint8

const (
	Eq Op = iota
	Ne
	Lt
	Le
	Gt
	Ge
	In
	Not
	And
	Or
)

var opText = [...]string{Eq: "=", Ne: "!=", Lt: "<", Le: "<=", Gt: ">", Ge: ">="}

// Expr is a node of a filter: a comparison of the column Col with Vals
// (one literal, or the list of In), or Not, And or Or of Subs. Values of
// this type are immutable once built.
type Expr struct {
	Op   Op
	Col  string
	Vals []Value
	Subs []*Expr
	// err is a construction error (a bad literal) carried to Check.
	err error
}

// Compare returns the comparison (op one of Eq … Ge) of col with v.
func Compare(op Op, col string, v Value) *Expr {
	return &Expr{Op: op, Col: col, Vals: []Value{v}, err: v.err}
}

// InList returns the node keeping what has col equal to one of vs.
func InList(col string, vs []Value) *Expr {
	e := &Expr{Op: In, Col: col, Vals: vs}
	for _, v := range vs {
		e.err = cmpOr(e.err, v.err)
	}
	return e
}

// Logic returns Not (one sub), And or Or of subs.
func Logic(op Op, subs ...*Expr) *Expr {
	return &Expr{Op: op, Subs: subs}
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

var errNil = errors.New("a zero Expr")

// Check reports a nil node or a bad literal anywhere in e.
func (e *Expr) Check() error {
	if e == nil {
		return errNil
	}
	if e.err != nil {
		return e.err
	}
	if e.Op == Not && len(e.Subs) != 1 {
		return fmt.Errorf("not takes one operand, has %d", len(e.Subs))
	}
	for _, s := range e.Subs {
		if err := s.Check(); err != nil {
			return err
		}
	}
	return nil
}

// IsLogic reports whether e is Not, And or Or.
func (e *Expr) IsLogic() bool { return e.Op >= Not }

// Columns appends the columns e names to dst, each once, in order of
// first appearance.
func (e *Expr) Columns(dst []string) []string {
	if e == nil {
		return dst
	}
	if !e.IsLogic() {
		for _, c := range dst {
			if c == e.Col {
				return dst
			}
		}
		return append(dst, e.Col)
	}
	for _, s := range e.Subs {
		dst = s.Columns(dst)
	}
	return dst
}

// Holds reports whether op (Eq … Ge) holds for a value whose comparison
// with the literal has sign s.
func Holds(op Op, s int) bool {
	switch op {
	case Eq:
		return s == 0
	case Ne:
		return s != 0
	case Lt:
		return s < 0
	case Le:
		return s <= 0
	case Gt:
		return s > 0
	default:
		return s >= 0
	}
}

// Tri is a value of three-valued logic, ordered so that And is the
// minimum, Or the maximum and Not the reflection (TriTrue - t).
type Tri uint8

const (
	TriFalse Tri = 0
	TriNull  Tri = 1 // unknown: a comparison with null
	TriTrue  Tri = 2
)

// TriOf returns TriTrue or TriFalse.
func TriOf(b bool) Tri {
	if b {
		return TriTrue
	}
	return TriFalse
}

// Eval evaluates e with leaf giving the value of each comparison (and In)
// node.
func (e *Expr) Eval(leaf func(*Expr) (Tri, error)) (Tri, error) {
	switch e.Op {
	case Not:
		t, err := e.Subs[0].Eval(leaf)
		return TriTrue - t, err
	case And, Or:
		acc := TriOf(e.Op == And)
		for _, s := range e.Subs {
			t, err := s.Eval(leaf)
			if err != nil {
				return 0, err
			}
			if e.Op == And {
				acc = min(acc, t)
			} else {
				acc = max(acc, t)
			}
		}
		return acc, nil
	}
	return leaf(e)
}

// Also returns e, or Logic(And, prev, e) if prev is not nil: the filter
// of an option given again after prev.
func Also(prev, e *Expr) *Expr {
	if prev == nil {
		return e
	}
	return Logic(And, prev, e)
}
