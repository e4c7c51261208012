package shards

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/rowflow/rowflow/sources"
)

// Hive partition directories.
//
// A partition directory is the sequence of segments key=value, one per
// PartitionBy column. Keys and values are escaped so that every segment is
// one ordinary directory name, whatever the value: no value can name a
// parent, the root or another directory, and distinct values give
// distinct names. Readers unescape %XX (url.PathUnescape does), as Hive,
// Spark and Arrow do.

// hiveDefaultPartition is the directory value of an empty or null value.
const hiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// maxHiveValue is the most bytes an escaped value may take in a directory
// name; longer values are truncated and suffixed with a hash (see
// hiveValue). With a key of up to maxHiveKey bytes the segment stays well
// within the 255-byte name limit of common file systems.
const (
	maxHiveValue = 128
	maxHiveKey   = 64
)

// hiveEscapeByte reports whether the ASCII byte c is escaped in keys and
// values: Hive's set (control characters, DEL, and " # % ' * / : = ? [ \ ] ^ {),
// the other characters Windows forbids in names (< > |), '}', and '~',
// which marks a truncated value.
func hiveEscapeByte(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	return strings.IndexByte("\"#%'*/:=?\\{}[]^<>|~", c) >= 0
}

// hiveEscape escapes s as a key or value of a partition directory. Besides
// the bytes of hiveEscapeByte it escapes every byte that is not part of
// valid UTF-8, every '.' of a run of two or more dots (so "." and ".."
// never appear) and a value that is only ".". In a key, a leading '.' or
// '_' is escaped too, so that dataset discovery does not skip the
// directory as hidden.
func hiveEscape(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				escapeByte(&b, c)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		switch {
		case hiveEscapeByte(c),
			c == '.' && (s == "." || i > 0 && s[i-1] == '.' || i+1 < len(s) && s[i+1] == '.'),
			key && i == 0 && (c == '.' || c == '_'):
			escapeByte(&b, c)
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

func escapeByte(b *strings.Builder, c byte) {
	const hexUpper = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hexUpper[c>>4])
	b.WriteByte(hexUpper[c&15])
}

// hiveValue returns the directory form of a partition value: the escaped
// value; __HIVE_DEFAULT_PARTITION__ for the empty value; %5F_HIVE_DEFAULT_PARTITION__
// for a value that is that string, so it stays distinct. An escaped value
// longer than maxHiveValue bytes is cut, at an escape and UTF-8 boundary,
// and suffixed with "~" and 32 hex digits of the SHA-256 of the value; '~'
// is escaped everywhere else, so a cut value never equals an uncut one.
func hiveValue(v string) string {
	switch v {
	case "":
		return hiveDefaultPartition
	case hiveDefaultPartition:
		return "%5F" + hiveDefaultPartition[1:]
	}
	e := hiveEscape(v, false)
	if len(e) <= maxHiveValue {
		return e
	}
	sum := sha256.Sum256([]byte(v))
	suffix := "~" + hex.EncodeToString(sum[:16])
	cut := maxHiveValue - len(suffix)
	for cut > 0 && !hiveBoundary(e, cut) {
		cut--
	}
	return e[:cut] + suffix
}

// hiveBoundary reports whether e, an escaped string, may be cut before
// byte i: not inside a %XX escape or a UTF-8 sequence.
func hiveBoundary(e string, i int) bool {
	if !utf8.RuneStart(e[i]) {
		return false
	}
	return !(i >= 1 && e[i-1] == '%' || i >= 2 && e[i-2] == '%')
}

// hiveKey returns the directory form of a partition column name.
func hiveKey(name string) (string, error) {
	k := hiveEscape(name, true)
	if len(k) > maxHiveKey {
		return "", fmt.Errorf("shards: PartitionBy: column name %q is longer than %d bytes escaped", name, maxHiveKey)
	}
	return k, nil
}

// partColumn reads one PartitionBy column of a value of type T.
type partColumn struct {
	name   string // Parquet column name
	key    string // escaped name
	offset uintptr
	typ    reflect.Type
	ptr    bool // the field is a pointer to typ
	record bool // t is sources.Record: the value is the record's of that name
}

// partitionColumns finds the PartitionBy columns among the top-level
// fields of t, or, for records, names them: a record's value is found by
// its name in each record (see recordPartitionCheck).
func partitionColumns(t reflect.Type, names []string) ([]partColumn, error) {
	var cols []partColumn
	for _, name := range names {
		if t == reflect.TypeFor[sources.Record]() {
			key, err := hiveKey(name)
			if err != nil {
				return nil, err
			}
			cols = append(cols, partColumn{name: name, key: key, record: true})
			continue
		}
		f, ok := fieldByParquetName(t, name)
		if !ok {
			return nil, fmt.Errorf("shards: PartitionBy(%q): %v has no top-level column %q", names, t, name)
		}
		c := partColumn{name: name, offset: f.Offset, typ: f.Type}
		if c.typ.Kind() == reflect.Pointer {
			c.typ, c.ptr = c.typ.Elem(), true
		}
		if !partitionKind(c.typ) {
			return nil, fmt.Errorf("shards: PartitionBy(%q): column %q has type %v; want a string, []byte, bool, integer or float, or a pointer to one", names, name, f.Type)
		}
		key, err := hiveKey(name)
		if err != nil {
			return nil, err
		}
		c.key = key
		cols = append(cols, c)
	}
	return cols, nil
}

// fieldByParquetName returns the exported field of struct type t whose
// Parquet column name is name: its parquet tag's name, or its Go name.
// Fields of embedded structs count, as parquet-go flattens them; the
// returned field's Offset is from the start of t.
func fieldByParquetName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("parquet")
		col, _, _ := strings.Cut(tag, ",")
		if col == "-" && tag != "-," {
			continue
		}
		if f.Anonymous {
			if f.Type.Kind() == reflect.Struct {
				if g, ok := fieldByParquetName(f.Type, name); ok {
					g.Offset += f.Offset
					return g, true
				}
			}
			continue
		}
		if col == "" {
			col = f.Name
		}
		if f.IsExported() && col == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func partitionKind(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8
	}
	return false
}

// appendValue appends the text of the column's value in the struct at p:
// the string or bytes as they are, numbers in Go's shortest decimal form,
// bools as true or false, and nothing for a nil pointer.
func (c *partColumn) appendValue(dst []byte, p unsafe.Pointer) []byte {
	if c.record {
		v, _ := (*sources.Record)(p).Get(c.name)
		return appendScalar(dst, v)
	}
	p = unsafe.Add(p, c.offset)
	if c.ptr {
		p = *(*unsafe.Pointer)(p)
		if p == nil {
			return dst
		}
	}
	switch c.typ.Kind() {
	case reflect.String:
		return append(dst, *(*string)(p)...)
	case reflect.Slice:
		return append(dst, *(*[]byte)(p)...)
	case reflect.Bool:
		return strconv.AppendBool(dst, *(*bool)(p))
	case reflect.Int:
		return strconv.AppendInt(dst, int64(*(*int)(p)), 10)
	case reflect.Int8:
		return strconv.AppendInt(dst, int64(*(*int8)(p)), 10)
	case reflect.Int16:
		return strconv.AppendInt(dst, int64(*(*int16)(p)), 10)
	case reflect.Int32:
		return strconv.AppendInt(dst, int64(*(*int32)(p)), 10)
	case reflect.Int64:
		return strconv.AppendInt(dst, *(*int64)(p), 10)
	case reflect.Uint:
		return strconv.AppendUint(dst, uint64(*(*uint)(p)), 10)
	case reflect.Uint8:
		return strconv.AppendUint(dst, uint64(*(*uint8)(p)), 10)
	case reflect.Uint16:
		return strconv.AppendUint(dst, uint64(*(*uint16)(p)), 10)
	case reflect.Uint32:
		return strconv.AppendUint(dst, uint64(*(*uint32)(p)), 10)
	case reflect.Uint64:
		return strconv.AppendUint(dst, *(*uint64)(p), 10)
	case reflect.Float32:
		return strconv.AppendFloat(dst, float64(*(*float32)(p)), 'g', -1, 32)
	case reflect.Float64:
		return strconv.AppendFloat(dst, *(*float64)(p), 'g', -1, 64)
	}
	return dst
}

// appendScalar appends the text of a record's value as appendValue does
// for a field of its type; nothing for nil (the default partition) and
// for values that are not scalars, which recordPartitionCheck refuses.
func appendScalar(dst []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return append(dst, v...)
	case []byte:
		return append(dst, v...)
	case bool:
		return strconv.AppendBool(dst, v)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case uint32:
		return strconv.AppendUint(dst, uint64(v), 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case float32:
		return strconv.AppendFloat(dst, float64(v), 'g', -1, 32)
	case float64:
		return strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	return dst
}

// recordPartitionCheck returns the check of records written with
// PartitionBy(cols): a value of a partition column must be null or a
// scalar (a string, bytes, a bool or a number), so that every row has
// the directory of its value.
func recordPartitionCheck(cols []partColumn) func([]sources.Record) (int, error) {
	return func(recs []sources.Record) (int, error) {
		for i, r := range recs {
			for _, c := range cols {
				v, _ := r.Get(c.name)
				switch v.(type) {
				case nil, string, []byte, bool, int32, int64, uint32, uint64, float32, float64:
				default:
					return i, fmt.Errorf("PartitionBy(%q): the record's value %v (%T) is not a string, bytes, a bool or a number", c.name, v, v)
				}
			}
		}
		return 0, nil
	}
}

// alsoCheck returns a check that runs a, then b; either may be nil.
func alsoCheck[T any](a, b func([]T) (int, error)) func([]T) (int, error) {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return func(vals []T) (int, error) {
		if k, err := a(vals); err != nil {
			return k, err
		}
		return b(vals)
	}
}

// partitionKey appends to dst the key of the partition of the struct at
// p: every column's value text, each preceded by its length, so that
// distinct tuples of values give distinct keys.
func partitionKey(dst []byte, cols []partColumn, p unsafe.Pointer) []byte {
	for i := range cols {
		at := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = cols[i].appendValue(dst, p)
		n := len(dst) - at - 4
		binary.LittleEndian.PutUint32(dst[at:], uint32(min(n, math.MaxUint32)))
	}
	return dst
}

// splitPartitionKey returns the column values of a key made by
// partitionKey.
func splitPartitionKey(key string, cols []partColumn) []PartitionValue {
	vals := make([]PartitionValue, len(cols))
	for i := range cols {
		n := int(binary.LittleEndian.Uint32([]byte(key[:4])))
		vals[i] = PartitionValue{Column: cols[i].name, Value: key[4 : 4+n]}
		key = key[4+n:]
	}
	return vals
}

// hiveDir returns the slash-separated partition directory of vals.
func hiveDir(cols []partColumn, vals []PartitionValue) string {
	segs := make([]string, len(cols))
	for i := range cols {
		segs[i] = cols[i].key + "=" + hiveValue(vals[i].Value)
	}
	return strings.Join(segs, "/")
}
