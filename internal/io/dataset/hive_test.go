package dataset

import (
	"slices"
	"strings"
	"testing"
)

func TestHiveColumns(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	if got := ds.Columns(); !slices.Equal(got, []string{"year", "lang"}) {
		t.Fatalf("columns %q", got)
	}
	f := ds.Files()[7] // year=2023/lang=de/part-1.parquet
	want := Partition{{Name: "year", Value: "2023"}, {Name: "lang", Value: "de"}}
	if f.RelPath != "year=2023/lang=de/part-1.parquet" || !slices.Equal(f.Partition, want) {
		t.Errorf("file %q partition %v, want %v", f.RelPath, f.Partition, want)
	}
	if v, ok := f.Partition.Get("lang"); !ok || v != "de" {
		t.Errorf("Get(lang) = %q, %v", v, ok)
	}
	if _, ok := f.Partition.Get("month"); ok {
		t.Error("Get(month) found a value")
	}
}

func TestParsePartition(t *testing.T) {
	tests := []struct {
		rel  string
		want Partition
	}{
		{"x.parquet", nil},
		{"plain/dirs/x.parquet", nil},
		{"k=v/x.parquet", Partition{{Name: "k", Value: "v"}}},
		{"a=1/mid/b=2/x.parquet", Partition{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}}},
		{"city=New%20York/x.parquet", Partition{{Name: "city", Value: "New York"}}},
		{"path=a%2Fb/x.parquet", Partition{{Name: "path", Value: "a/b"}}},
		{"sum=1+1/x.parquet", Partition{{Name: "sum", Value: "1+1"}}},
		{"eq=a=b/x.parquet", Partition{{Name: "eq", Value: "a=b"}}},
		{"empty=/x.parquet", Partition{{Name: "empty", Value: ""}}},
		{"k%3Dx=v/x.parquet", Partition{{Name: "k=x", Value: "v"}}},
		{"a=1/b=2.parquet", Partition{{Name: "a", Value: "1"}}}, // the file name is not a directory
		{"k=__HIVE_DEFAULT_PARTITION__/x.parquet", Partition{{Name: "k", Null: true}}},
		{"k=%5F_HIVE_DEFAULT_PARTITION__/x.parquet", Partition{{Name: "k", Value: "__HIVE_DEFAULT_PARTITION__"}}},
		{"k=x%7E~0123456789abcdef0123456789abcdef/x.parquet",
			Partition{{Name: "k", Value: "x~~0123456789abcdef0123456789abcdef", Hash: "0123456789abcdef0123456789abcdef"}}},
		{"k=x%7E0123456789abcdef0123456789abcdef/x.parquet", Partition{{Name: "k", Value: "x~0123456789abcdef0123456789abcdef"}}},
	}
	for _, tt := range tests {
		got, err := parsePartition(tt.rel)
		if err != nil {
			t.Errorf("%s: %v", tt.rel, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestHiveErrors(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"duplicate key", []string{"a=1/a=2/x.parquet"}, []string{"a=1/a=2/x.parquet", `"a" appears twice`}},
		{"bad escape", []string{"a=%zz/x.parquet"}, []string{"a=%zz/x.parquet", "bad escape"}},
		{"empty key", []string{"=1/x.parquet"}, []string{"=1/x.parquet", "empty partition column name"}},
		{"missing key", []string{"a=1/b=1/x.parquet", "a=2/y.parquet"},
			[]string{"inconsistent", "a=1/b=1/x.parquet", "a=2/y.parquet", `["a" "b"]`, `["a"]`}},
		{"other key", []string{"a=1/x.parquet", "b=1/x.parquet"}, []string{"inconsistent", "a=1/x.parquet", "b=1/x.parquet"}},
		{"key order", []string{"a=1/b=1/x.parquet", "b=2/a=2/x.parquet"}, []string{"inconsistent"}},
		{"unpartitioned file", []string{"a=1/x.parquet", "z.parquet"}, []string{"inconsistent", "z.parquet"}},
	}
	for _, tt := range tests {
		root := t.TempDir()
		for _, rel := range tt.files {
			writeParquet(t, root, rel, 1)
		}
		_, err := Discover(root)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tt.name, err, w)
			}
		}
	}
}
