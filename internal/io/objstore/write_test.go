package objstore

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// TestS3PutIfAbsent: a conditional put of an object that exists fails
// with ErrExists and leaves it as it was; an unconditional one replaces
// it; Delete removes it, and deleting it again is not an error.
func TestS3PutIfAbsent(t *testing.T) {
	shortRetries(t)
	s3 := testutil.StartS3(t)
	s3.Upload(t, t.TempDir(), "bkt", "")
	ctx := context.Background()
	name := "s3://bkt/d/m.json"
	if err := Put(ctx, name, strings.NewReader("one"), 3, true); err != nil {
		t.Fatal(err)
	}
	err := Put(ctx, name, strings.NewReader("two!"), 4, true)
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), `key "d/m.json"`) {
		t.Fatalf("conditional put over an object: %v, want ErrExists naming the key", err)
	}
	if b, err := ReadAll(ctx, name, 100); err != nil || string(b) != "one" {
		t.Fatalf("after a refused put: %q, %v", b, err)
	}
	if err := Put(ctx, name, strings.NewReader("two!"), 4, false); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadAll(ctx, name, 100); err != nil || string(b) != "two!" {
		t.Fatalf("after a put: %q, %v", b, err)
	}
	if err := Delete(ctx, name); err != nil {
		t.Fatal(err)
	}
	if err := Delete(ctx, name); err != nil {
		t.Fatalf("deleting a missing object: %v", err)
	}
	if _, err := ReadAll(ctx, name, 100); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("reading a deleted object: %v", err)
	}
}

// TestS3PutMultipart: an object larger than a part is uploaded in parts
// and reads back whole.
func TestS3PutMultipart(t *testing.T) {
	shortRetries(t)
	s3 := testutil.StartS3(t)
	s3.Upload(t, t.TempDir(), "bkt", "")
	data := make([]byte, 17<<20)
	for i := range data {
		data[i] = byte(i * 13 / 7)
	}
	ctx := context.Background()
	if err := Put(ctx, "s3://bkt/big", bytes.NewReader(data), int64(len(data)), false); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadAll(ctx, "s3://bkt/big", 1<<30); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("read back %d bytes, %v; want the %d put", len(b), err, len(data))
	}
}

// TestS3PutErrors: a missing bucket and wrong credentials are clear
// errors naming the bucket and key.
func TestS3PutErrors(t *testing.T) {
	shortRetries(t)
	s3 := testutil.StartS3(t)
	s3.Upload(t, t.TempDir(), "bkt", "")
	ctx := context.Background()
	err := Put(ctx, "s3://nobucket/k", strings.NewReader("x"), 1, false)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), `bucket "nobucket" does not exist`) {
		t.Fatalf("missing bucket: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	err = Put(ctx, "s3://bkt/k", strings.NewReader("x"), 1, false)
	if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), `key "k"`) {
		t.Fatalf("wrong credentials: %v", err)
	}
}
