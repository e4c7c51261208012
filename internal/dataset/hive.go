package dataset

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Field is one Hive partition value: the directory segment "name=value".
type Field struct {
	Name, Value string
}

// Partition is the list of Hive partition values of a file, in path order.
type Partition []Field

// Get returns the value of the named column and whether the partition has
// it.
func (p Partition) Get(name string) (string, bool) {
	for _, f := range p {
		if f.Name == name {
			return f.Value, true
		}
	}
	return "", false
}

// parseHive fills in the Partition of every file and returns the column
// names, which must be the same, in the same order, for every file.
func parseHive(files []File) ([]string, error) {
	var columns []string
	for i := range files {
		p, err := parsePartition(files[i].RelPath)
		if err != nil {
			return nil, err
		}
		files[i].Partition = p
		names := p.names()
		if i == 0 {
			columns = names
			continue
		}
		if !slices.Equal(names, columns) {
			return nil, fmt.Errorf("dataset: inconsistent partition columns: %s has %q, %s has %q",
				files[0].RelPath, columns, files[i].RelPath, names)
		}
	}
	return columns, nil
}

// parsePartition parses the "key=value" directory segments of a
// slash-separated relative path. Segments without "=" are ignored. Keys and
// values are unescaped as Hive escapes them (%XX).
func parsePartition(rel string) (Partition, error) {
	dir := path.Dir(rel)
	if dir == "." {
		return nil, nil
	}
	var p Partition
	for seg := range strings.SplitSeq(dir, "/") {
		k, v, ok := strings.Cut(seg, "=")
		if !ok {
			continue
		}
		name, err1 := url.PathUnescape(k)
		value, err2 := url.PathUnescape(v)
		switch {
		case err1 != nil || err2 != nil:
			return nil, fmt.Errorf("dataset: %s: bad escape in partition directory %q", rel, seg)
		case name == "":
			return nil, fmt.Errorf("dataset: %s: empty partition column name in %q", rel, seg)
		}
		if _, dup := p.Get(name); dup {
			return nil, fmt.Errorf("dataset: %s: partition column %q appears twice", rel, name)
		}
		p = append(p, Field{Name: name, Value: value})
	}
	return p, nil
}

func (p Partition) names() []string {
	if len(p) == 0 {
		return nil
	}
	names := make([]string, len(p))
	for i, f := range p {
		names[i] = f.Name
	}
	return names
}
