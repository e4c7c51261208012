package parquet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// sameItemsExactly fails unless a and b have the same partition numbers,
// IDs and values, in the same order.
func sameItemsExactly[T any](t *testing.T, what string, got, want []flow.Item[T]) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].Part != want[i].Part || got[i].ID != want[i].ID || !reflect.DeepEqual(got[i].Value, want[i].Value) {
			t.Fatalf("%s: item %d is %d %v %+v, want %d %v %+v", what, i,
				got[i].Part, got[i].ID, got[i].Value, want[i].Part, want[i].ID, want[i].Value)
		}
	}
}

// TwoColumns is a projection of Row onto two of its columns.
type TwoColumns struct {
	ID    int64   `parquet:"id"`
	Score float64 `parquet:"score"`
}

// TestParquetInBucketSameAsOnDisk: the Hive dataset uploaded to a bucket
// reads as it does from disk, at every parallelism: the same partition
// numbers, IDs and values, with a Where filter on its partitions, a
// 2-column projection, row-group splits and Files.
func TestParquetInBucketSameAsOnDisk(t *testing.T) {
	s3 := testutil.StartS3(t)
	root, _ := hiveDataset(t)
	url := s3.Upload(t, root, "data", "tables/hive")
	where := sources.Where(sources.And(sources.In("lang", "en", "fr"), sources.Ge("day", 1)))
	compare := func(name string, run func(root string, par int) any) {
		t.Helper()
		disk := run(root, 1)
		for _, par := range []int{1, 4} {
			got := run(url, par)
			if !reflect.DeepEqual(got, disk) {
				t.Fatalf("%s Parallel(%d): the bucket's items differ from the disk's", name, par)
			}
		}
	}
	for _, tc := range []struct {
		name string
		opts []parquet.Option
	}{
		{"everything", nil},
		{"Where", []parquet.Option{where}},
		{"MaxRows", []parquet.Option{parquet.MaxRows(50)}},
		{"Files", []parquet.Option{sources.Files("lang=en/day=2/part-5.parquet", "lang=de")}},
		{"shuffled", []parquet.Option{sources.ShuffleWindow(3)}},
	} {
		compare(tc.name, func(root string, par int) any {
			items := testutil.Items[Row](t, flow.From(parquet.Read[Row](root, tc.opts...)).Parallel(par).WithSeed(7))
			if len(items) == 0 {
				t.Fatalf("%s: no items", tc.name)
			}
			return items
		})
	}
	compare("Where and two columns", func(root string, par int) any {
		return testutil.Items[TwoColumns](t, flow.From(parquet.Read[TwoColumns](root, where)).Parallel(par))
	})
	compare("Hive columns", func(root string, par int) any {
		return testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root, where)).Parallel(par))
	})
	// The same comparison through the helper that names the first
	// difference, for one case.
	disk := testutil.Items[Row](t, flow.From(parquet.Read[Row](root)))
	sameItemsExactly(t, "bucket", testutil.Items[Row](t, flow.From(parquet.Read[Row](url)).Parallel(3)), disk)
}

// bigFile writes one Parquet file of 4 row groups of 50000 rows.
func bigFile(t *testing.T) (dir, rel string) {
	dir, rel = t.TempDir(), "big/part-0.parquet"
	testutil.WriteParquet(t, filepath.Join(dir, rel), makeRows(0, 200000), 50000)
	return dir, rel
}

// TestParquetInBucketProjectionBytes: a 2-column projection asks the
// server for at most 1.2 times the bytes of those columns' chunks, footer
// included.
func TestParquetInBucketProjectionBytes(t *testing.T) {
	s3 := testutil.StartS3(t)
	dir, rel := bigFile(t)
	url := s3.Upload(t, dir, "data", "")
	chunks, all := columnChunkBytes(t, filepath.Join(dir, rel), "id", "score")
	before := objstore.Requested()
	got := testutil.Items[TwoColumns](t, flow.From(parquet.Read[TwoColumns](url)).Parallel(4))
	asked := objstore.Requested() - before
	if len(got) != 200000 || got[12345].Value.ID != 12345 {
		t.Fatalf("%d rows, row 12345 is %+v", len(got), got[min(12345, len(got)-1)])
	}
	t.Logf("2 of 7 columns: %d bytes asked for, %d in their chunks (%.3fx), %d in the file", asked, chunks, float64(asked)/float64(chunks), all)
	if float64(asked) > 1.2*float64(chunks) {
		t.Fatalf("%d bytes asked for, more than 1.2 times the %d bytes of the two columns' chunks", asked, chunks)
	}
}

// TestParquetInBucketReadAhead: a full read of a file in a bucket, one
// partition at a time, asks for every column chunk ahead, while the chunk
// before it is decoded: besides the footer's tail and the first read
// (the magic number), no byte is fetched by a read that waited for its
// own request, and none twice.
func TestParquetInBucketReadAhead(t *testing.T) {
	s3 := testutil.StartS3(t)
	dir, rel := bigFile(t)
	url := s3.Upload(t, dir, "data", "")
	chunks, all := columnChunkBytes(t, filepath.Join(dir, rel), "id", "small", "score", "text", "tags.list.element", "opt", "label")
	for _, par := range []int{1, 4} {
		before, ahead := objstore.Requested(), objstore.AheadRequested()
		got := testutil.Items[Row](t, flow.From(parquet.Read[Row](url)).Parallel(par))
		asked, askedAhead := objstore.Requested()-before, objstore.AheadRequested()-ahead
		if len(got) != 200000 {
			t.Fatalf("%d rows", len(got))
		}
		t.Logf("Parallel(%d): %d bytes asked for, %d of them ahead; %d in the column chunks, %d in the file", par, asked, askedAhead, chunks, all)
		if own := asked - askedAhead; own > objstore.FooterTail+8<<10 {
			t.Errorf("Parallel(%d): %d bytes fetched by reads that were not read ahead, more than the footer's tail and the first read", par, own)
		}
		if asked > all {
			t.Errorf("Parallel(%d): %d bytes asked for, more than the file's %d", par, asked, all)
		}
	}
}

// columnChunkBytes returns the bytes of the chunks of the named columns,
// from the footer, and the file's size.
func columnChunkBytes(t *testing.T, path string, names ...string) (int64, int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			for _, name := range names {
				if strings.Join(c.MetaData.PathInSchema, ".") == name {
					n += c.MetaData.TotalCompressedSize
				}
			}
		}
	}
	return n, st.Size()
}

// TestParquetInBucketObjectChanged: an object overwritten while a run
// reads it, by a shorter one or by one of about its size, fails the run
// with an error that says so; no row of the new version is passed on.
func TestParquetInBucketObjectChanged(t *testing.T) {
	s3 := testutil.StartS3(t)
	dir, rel := bigFile(t)
	for _, tc := range []struct {
		name string
		rows []Row
	}{{"shorter", makeRows(1, 1000)}, {"same length", makeRows(1, 200000)}} {
		t.Run(tc.name, func(t *testing.T) {
			url := s3.Upload(t, dir, "data", "")
			other := filepath.Join(t.TempDir(), "other.parquet")
			testutil.WriteParquet(t, other, tc.rows, 50000)
			data, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var runErr error
			for it, err := range flow.Items[TwoColumns](context.Background(), flow.From(parquet.Read[TwoColumns](url))) {
				if err != nil {
					runErr = err
					break
				}
				if it.Value.ID >= 100000 {
					t.Fatalf("row %d of the object that replaced the one read", it.Value.ID)
				}
				if n == 0 {
					s3.Put(t, "data", rel, data)
				}
				n++
			}
			if runErr == nil {
				t.Fatalf("the run read %d rows of an object replaced while it read, without an error", n)
			}
			if !strings.Contains(runErr.Error(), "changed during the run") || !strings.Contains(runErr.Error(), rel) {
				t.Fatalf("error %q does not say that %s changed", runErr, rel)
			}
			if n >= 200000 {
				t.Fatalf("all %d rows read before the error", n)
			}
			t.Logf("%d rows, then: %v", n, runErr)
		})
	}
}

// TestParquetInBucketErrors: wrong credentials, a missing bucket and a
// missing prefix each fail with an error that says which.
func TestParquetInBucketErrors(t *testing.T) {
	s3 := testutil.StartS3(t)
	dir, _ := bigFile(t)
	url := s3.Upload(t, dir, "data", "")
	firstErr := func(root string) error {
		for _, err := range flow.Items[TwoColumns](context.Background(), flow.From(parquet.Read[TwoColumns](root))) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, tc := range []struct {
		name, root, secret, want string
	}{
		{"missing bucket", "s3://nosuchbucket/x", s3.Secret, `bucket "nosuchbucket" does not exist`},
		{"missing prefix", "s3://data/nothing/here", s3.Secret, "no Parquet files found for s3://data/nothing/here"},
		{"missing object", "s3://data/big/nothing.parquet", s3.Secret, "no Parquet files found"},
		{"wrong credentials", url, "not-the-secret", "access denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("AWS_SECRET_ACCESS_KEY", tc.secret)
			err := firstErr(tc.root)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			t.Log(err)
		})
	}
	if err := firstErr(url); err != nil {
		t.Fatalf("with the right credentials again: %v", err)
	}
}

// TestParquetInBucketWherePrunesListing: the Hive directories that Where
// rules out are not listed, and the rows are those of the same read from
// disk.
func TestParquetInBucketWherePrunesListing(t *testing.T) {
	s3 := testutil.StartS3(t)
	root, _ := hiveDataset(t)
	url := s3.Upload(t, root, "data", "hive")
	for _, tc := range []struct {
		name   string
		where  sources.Expr
		listed int64
	}{
		{"one language", sources.Eq("lang", "en"), 3},
		{"one language, two days", sources.And(sources.Eq("lang", "en"), sources.Ge("day", 1)), 2},
		{"by the inner column", sources.Eq("day", 2), 3},
		{"Not", sources.Not(sources.In("lang", "de", "fr")), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := objstore.Listed()
			got := testutil.Items[Hive](t, flow.From(parquet.Read[Hive](url, sources.Where(tc.where))).Parallel(2))
			if n := objstore.Listed() - before; n != tc.listed {
				t.Errorf("%d objects listed, want %d", n, tc.listed)
			}
			want := testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root, sources.Where(tc.where))))
			if len(got) == 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("%d items from the bucket, %d from disk, or they differ", len(got), len(want))
			}
		})
	}
	// Renamed Hive columns prune by their raw names.
	before := objstore.Listed()
	type renamed struct {
		ID       int64  `parquet:"id"`
		Language string `parquet:"language"`
	}
	got := testutil.Items[renamed](t, flow.From(parquet.Read[renamed](url, parquet.Rename("lang", "language"),
		sources.Where(sources.Eq("language", "fr")))))
	if n := objstore.Listed() - before; n != 3 || len(got) == 0 || got[0].Value.Language != "fr" {
		t.Fatalf("Rename: %d objects listed, want 3; %d rows", n, len(got))
	}
}

// BenchmarkParquetBucketVersusDisk reads the same 5.4 MB file in full
// from disk and from the local S3 server, at Parallel(4) and Parallel(1).
func BenchmarkParquetBucketVersusDisk(b *testing.B) {
	s3 := testutil.StartS3(b)
	dir, rel := b.TempDir(), "big/part-0.parquet"
	testutil.WriteParquet(b, filepath.Join(dir, rel), makeRows(0, 200000), 50000)
	url := s3.Upload(b, dir, "data", "")
	st, err := os.Stat(filepath.Join(dir, rel))
	if err != nil {
		b.Fatal(err)
	}
	for _, par := range []int{4, 1} {
		for _, where := range []struct{ name, root string }{{"disk", dir}, {"bucket", url}} {
			b.Run(fmt.Sprintf("%s-p%d", where.name, par), func(b *testing.B) {
				b.SetBytes(st.Size())
				for b.Loop() {
					n := 0
					for _, err := range flow.Items[Row](context.Background(), flow.From(parquet.Read[Row](where.root)).Parallel(par)) {
						if err != nil {
							b.Fatal(err)
						}
						n++
					}
					if n != 200000 {
						b.Fatalf("%d rows", n)
					}
				}
			})
		}
	}
}

// TestParquetFilesURLsDescribedRelative: a Files entry given as a URL
// under the root is described relative to it, as an absolute path under
// a local root is, so that where the dataset lies changes no fingerprint.
func TestParquetFilesURLsDescribedRelative(t *testing.T) {
	root := t.TempDir()
	disk := parquet.Read[Row](root, sources.Files(filepath.Join(root, "lang=en", "a.parquet"), "b.parquet")).Info().Settings
	bucket := parquet.Read[Row]("s3://data/x/", sources.Files("s3://data/x/lang=en/a.parquet", "b.parquet")).Info().Settings
	if bucket != disk {
		t.Fatalf("described as\n%s\nin a bucket, and as\n%s\non disk", bucket, disk)
	}
}
