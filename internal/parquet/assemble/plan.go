package assemble

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// Const names a value that is not read from a column but is the same for a
// whole fragment (a Hive-partition value) or comes from a row's position
// (a trace value). Fields whose column name is a Const's name take it.
type Const struct {
	Name string
	// Kind says what the value is.
	Kind ConstKind
	// Value is the string for ConstString.
	Value string
	// Null says a ConstString is null (Hive's default partition): a
	// pointer field is nil, another field takes Value ("").
	Null bool
}

// ConstKind is the kind of a [Const].
type ConstKind int

const (
	ConstString   ConstKind = iota // Value, parsed into numeric fields
	ConstFile                      // the fragment's file path, into a string field
	ConstRowGroup                  // the row group index, into an integer field
	ConstRow                       // the row's index in its file, into an integer field
)

// Plan maps the fields of T to the leaf columns of one file.
type Plan[T any] struct {
	fields  []field
	leaves  []int // leaf indexes to read; field.col indexes this slice
	partial bool  // some fields of T are not filled, so rows are zeroed first
}

// Leaves returns the indexes of the leaf columns a Decoder reads, in the
// order its columns must be given.
func (p *Plan[T]) Leaves() []int { return p.leaves }

// NewPlan maps the fields of T to the leaves of a file.
//
// rename maps a field's column name to the column's name in the file
// (leaf paths joined with "."); columns absent from rename keep their
// name. If keep is not nil, only fields whose column name it holds are
// filled; the others stay zero. consts are the values that do not come
// from the file. file names the file in errors.
func NewPlan[T any](file string, leaves []pqcol.Leaf, root *parquet.Column, rename map[string]string, keep map[string]bool, consts []Const) (*Plan[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("assemble: rows of %v: not a struct type", t)
	}
	p := &Plan[T]{}
	byPath := map[string]int{}
	for i := range leaves {
		byPath[leaves[i].PathString()] = i
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, ok := columnName(sf)
		if !ok || (keep != nil && !keep[name]) {
			p.partial = true
			continue
		}
		if c, ok := findConst(consts, name); ok {
			f, err := constField(sf, c)
			if err != nil {
				return nil, fmt.Errorf("assemble: %s: field %s: %w", file, sf.Name, err)
			}
			p.fields = append(p.fields, f)
			continue
		}
		raw := name
		if r, ok := rename[name]; ok {
			raw = r
		}
		li, ok := byPath[raw]
		if !ok {
			li, ok = byPath[raw+".list.element"] // a LIST's leaf
		}
		if !ok {
			li, ok = byPath[raw+".list.item"]
		}
		if !ok && groupOf(leaves, raw) {
			return nil, fmt.Errorf("assemble: %s: field %s of %v is for %q, a group of columns: a field reads one leaf column (or a list of one), so give each leaf a field of its own, named by its dotted path (columns: %s)",
				file, sf.Name, t, raw, columnList(leaves))
		}
		if !ok {
			return nil, fmt.Errorf("assemble: %s has no column %q for field %s of %v (columns: %s)",
				file, raw, sf.Name, t, columnList(leaves))
		}
		leaf := &leaves[li]
		repDef, err := repeatedDef(root, leaf.Path)
		if err != nil {
			return nil, fmt.Errorf("assemble: %s: column %q: %w", file, raw, err)
		}
		f, err := columnField(sf, leaf, repDef)
		if err != nil {
			return nil, fmt.Errorf("assemble: %s: column %q (%s) into field %s (%v): %w", file, raw, TypeName(leaf), sf.Name, sf.Type, err)
		}
		f.col = len(p.leaves)
		f.name = raw
		p.leaves = append(p.leaves, li)
		p.fields = append(p.fields, f)
	}
	return p, nil
}

// ColumnNames returns the names of the columns that the fields of T read
// (before any rename), in field order; nil if T is not a struct.
func ColumnNames[T any]() []string {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		if name, ok := columnName(t.Field(i)); ok {
			names = append(names, name)
		}
	}
	return names
}

// columnName returns the column a field reads, or false if it reads none.
func columnName(sf reflect.StructField) (string, bool) {
	if !sf.IsExported() {
		return "", false
	}
	tag := sf.Tag.Get("parquet")
	name, _, _ := strings.Cut(tag, ",")
	switch name {
	case "-":
		return "", false
	case "":
		return sf.Name, true
	}
	return name, true
}

func findConst(consts []Const, name string) (Const, bool) {
	for _, c := range consts {
		if c.Name == name {
			return c, true
		}
	}
	return Const{}, false
}

func columnList(leaves []pqcol.Leaf) string {
	names := make([]string, len(leaves))
	for i := range leaves {
		names[i] = leaves[i].PathString()
	}
	return strings.Join(names, ", ")
}

// repeatedDef returns the definition level at which the repeated ancestor
// of the leaf at path is present (0 if none), and an error if there is
// more than one level of repetition.
func repeatedDef(root *parquet.Column, path []string) (int, error) {
	def, reps, repDef := 0, 0, 0
	c := root
	for _, name := range path {
		c = c.Column(name)
		if c == nil {
			return 0, fmt.Errorf("no schema node on path %q", strings.Join(path, "."))
		}
		switch {
		case c.Repeated():
			def++
			reps++
			repDef = def
		case c.Optional():
			def++
		}
	}
	if reps > 1 {
		return 0, fmt.Errorf("%d levels of repetition; struct fields take one (read nested lists as records)", reps)
	}
	return repDef, nil
}

// groupOf reports whether name is the dotted path of a group of the
// leaves: a prefix of some leaf's path.
func groupOf(leaves []pqcol.Leaf, name string) bool {
	for i := range leaves {
		if strings.HasPrefix(leaves[i].PathString(), name+".") {
			return true
		}
	}
	return false
}
