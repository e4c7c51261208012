package parquet

import (
	"context"
	"fmt"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/sources"
)

// RecordSchema returns the Parquet schema of the records that
// Read[sources.Record](root, opts...) reads from the dataset's first file: one
// top-level column per record value, named and ordered as the records'
// Names, so that shards.Parquet[sources.Record] writes the records back
// as they were read. It reads the first file's footer and no pages.
//
// A leaf column keeps its type (physical and logical); it is required
// if it and every group above it are, and optional otherwise. A leaf
// under k repeated fields becomes k nested optional LISTs of optional
// elements, as records hold it ([]any). Such a column
// is named by the record's name less its k trailing ".list.element", when
// it has them (the standard LIST layout, which parquet-go, Arrow and
// Spark write): the records of the files written read back with the same
// names. Other names are kept whole, and read back with the suffix added:
// a MAP m gives the lists m.key_value.key.list.element and
// m.key_value.value.list.element, a legacy list l.list.item gives
// l.list.item.list.element, and a struct field a.b a top-level column
// named "a.b". Hive partition
// columns are optional strings, and the [Trace] columns an optional
// string (__file) and two optional int64s. Files whose schemas differ
// from the first's give records that the schema may not hold: the sink
// then fails on the first such row, naming it.
func RecordSchema(root string, opts ...Option) (*pq.Schema, error) {
	src := newParquet[sources.Record](root, recordsFormat{}, opts).(*parquetSource[sources.Record])
	if src.err != nil {
		return nil, src.err
	}
	ds, err := src.cfg.Discover(root, dataset.Parquet)
	if err != nil {
		return nil, err
	}
	if len(ds.Files()) == 0 {
		return nil, fmt.Errorf("sources: %s: no Parquet files", root)
	}
	run := &parquetRun[sources.Record]{src: src}
	of := &openFile[sources.Record]{}
	err = run.load(context.Background(), of, ds.Files()[0])
	if of.f != nil {
		of.f.Close()
	}
	if err != nil {
		return nil, err
	}
	p := of.plan.(*recordsPlan)
	names := map[string]bool{} // the records' names
	for _, name := range p.names {
		names[name] = true
	}
	var cols []pqschema.Column
	used := map[string]bool{}
	add := func(name string, node pq.Node) {
		if !used[name] { // a name that comes twice keeps its first value
			used[name] = true
			cols = append(cols, pqschema.Column{Name: name, Node: node})
		}
	}
	// Columns in the records' order: cols.pos places the file columns,
	// then the Hive columns.
	order := make([]int, len(p.cols.pos))
	for x, at := range p.cols.pos {
		order[at] = x
	}
	str := pq.Optional(pq.String())
	for _, j := range order {
		if j >= len(p.cols.info) {
			add(p.cols.hive[j-len(p.cols.info)].Name, str)
			continue
		}
		leaf := p.cols.info[j]
		node := pq.Leaf(leaf.Node.Type())
		if leaf.MaxDefinitionLevel > 0 { // a required column stays required
			node = pq.Optional(node)
		}
		k := len(p.repDef[j])
		for range k {
			node = pq.Optional(pq.List(node))
		}
		// A list written the standard way (a.list.element) is named by
		// its group (a), so that it reads back under the same name.
		name := p.cols.names[j]
		if base, ok := strings.CutSuffix(name, strings.Repeat(".list.element", k)); ok && k > 0 && base != "" && !names[base] && !used[base] {
			names[base] = true
			name = base
		}
		add(name, node)
	}
	if p.trace {
		i64 := pq.Optional(pq.Int(64))
		add("__file", str)
		add("__row_group", i64)
		add("__row_index", i64)
	}
	return pqschema.New("record", cols...), nil
}
