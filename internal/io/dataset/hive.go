package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Field is one Hive partition value: the directory segment "name=value".
type Field struct {
	Name, Value string
	// Null reports a null (or empty) value, whose directory value is
	// __HIVE_DEFAULT_PARTITION__; Value is then "". The string
	// "__HIVE_DEFAULT_PARTITION__" itself is written escaped
	// (%5F_HIVE_DEFAULT_PARTITION__) and reads back as that string.
	Null bool
	// Hash is set when the directory holds only a truncated form of the
	// value, as rowflow's Parquet sink writes values too long for a
	// directory name: the prefix, "~" and 32 hex digits of the value's
	// SHA-256 (a '~' is escaped anywhere else). Value is then that
	// truncated form, until [Partition.Resolve] finds the whole value.
	Hash string
}

// HiveNull is the directory value of a null or empty partition value.
const HiveNull = "__HIVE_DEFAULT_PARTITION__"

// PartitionMeta is the prefix of the key-value metadata entries in which
// rowflow's Parquet sink stores each file's exact partition values:
// PartitionMeta + column name.
const PartitionMeta = "rowflow.partition."

// Partition is the list of Hive partition values of a file, in path order.
type Partition []Field

// RecordValue returns the value of f in a record: nil for the default
// partition (null), else its text.
func (f Field) RecordValue() any {
	if f.Null {
		return nil
	}
	return f.Value
}

// Values returns the values of p by column name, the null ones left out,
// as column batches hold them; nil if p has no column.
func (p Partition) Values() map[string]string {
	if len(p) == 0 {
		return nil
	}
	m := make(map[string]string, len(p))
	for _, f := range p {
		if !f.Null {
			m[f.Name] = f.Value
		}
	}
	return m
}

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
		f := Field{Name: name, Value: value}
		switch {
		case v == HiveNull:
			f.Value, f.Null = "", true
		case truncated(v):
			f.Hash = v[len(v)-32:]
		}
		switch {
		case err1 != nil || err2 != nil:
			return nil, fmt.Errorf("dataset: %s: bad escape in partition directory %q", rel, seg)
		case name == "":
			return nil, fmt.Errorf("dataset: %s: empty partition column name in %q", rel, seg)
		}
		if _, dup := p.Get(name); dup {
			return nil, fmt.Errorf("dataset: %s: partition column %q appears twice", rel, name)
		}
		p = append(p, f)
	}
	return p, nil
}

// truncated reports whether the escaped directory value v ends with the
// mark of a truncated value: "~" and 32 lower-case hex digits.
func truncated(v string) bool {
	if len(v) < 33 || v[len(v)-33] != '~' {
		return false
	}
	for _, c := range v[len(v)-32:] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Resolve returns p with the whole value of every truncated field whose
// file stores it: meta returns a key-value metadata entry of the file
// (see [PartitionMeta]), and the value is taken only if its SHA-256
// matches the directory's hash. Other fields are returned as they are.
func (p Partition) Resolve(meta func(key string) (string, bool)) Partition {
	var out Partition
	for i, f := range p {
		if f.Hash == "" {
			continue
		}
		v, ok := meta(PartitionMeta + f.Name)
		if sum := sha256.Sum256([]byte(v)); !ok || hex.EncodeToString(sum[:16]) != f.Hash {
			continue
		}
		if out == nil {
			out = slices.Clone(p)
		}
		out[i].Value, out[i].Hash = v, ""
	}
	if out == nil {
		return p
	}
	return out
}

// filterText returns the text of the named column for a partition filter,
// whether it is null, and whether p has the column.
func (p Partition) filterText(name string) (value string, null, ok bool) {
	for _, f := range p {
		if f.Name == name {
			return f.Value, f.Null, true
		}
	}
	return "", false, false
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
