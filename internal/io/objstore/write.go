package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"

	"github.com/minio/minio-go/v7"
)

// Writing objects. An object store has no rename: an object is put under
// its final key, whole (minio-go uploads one of more than 16 MiB in
// parts, and only the completed upload is visible), and the sinks make it
// part of a dataset by writing, last, a manifest that lists it.

// ErrExists is what [Put] with ifAbsent fails with when the object
// already exists.
var ErrExists = errors.New("already exists")

// Put puts the size bytes of body as the object name (an s3:// URL),
// retrying as reads are (every attempt reads body from its start). With
// ifAbsent, it fails with [ErrExists] if the object exists: the PUT is
// conditional (If-None-Match: *), and, since some servers ignore that
// header (versitygw 1.0.14 does), a HEAD request checks first that the
// object is absent. On such a server, a put by another client between
// the HEAD and the PUT is overwritten.
func Put(ctx context.Context, name string, body io.ReaderAt, size int64, ifAbsent bool) error {
	bucket, key, err := ParseURL(name)
	if err != nil {
		return err
	}
	if key == "" {
		return fmt.Errorf("%s: not an object key", name)
	}
	c, err := client()
	if err != nil {
		return err
	}
	if ifAbsent {
		_, err := statS3(ctx, name)
		if err == nil {
			return fmt.Errorf("%s (bucket %q, key %q): %w", name, bucket, key, ErrExists)
		}
		if !errors.Is(err, ErrNoObject) {
			return err
		}
	}
	err = do(ctx, nil, func(ctx context.Context) error {
		opts := minio.PutObjectOptions{ContentType: "application/octet-stream", DisableContentSha256: true}
		if ifAbsent {
			opts.SetMatchETagExcept("*")
		}
		_, err := c.PutObject(ctx, bucket, key, io.NewSectionReader(body, 0, size), size, opts)
		return err
	})
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && (resp.StatusCode == http.StatusPreconditionFailed || resp.Code == "PreconditionFailed") {
		return fmt.Errorf("%s (bucket %q, key %q): %w", name, bucket, key, ErrExists)
	}
	if err != nil {
		return describe(fmt.Sprintf("%s (bucket %q, key %q)", name, bucket, key), bucket, fmt.Sprintf("writing %d bytes", size), err)
	}
	return nil
}

// Delete removes the object name (an s3:// URL). A missing object is not
// an error.
func Delete(ctx context.Context, name string) error {
	bucket, key, err := ParseURL(name)
	if err != nil {
		return err
	}
	c, err := client()
	if err != nil {
		return err
	}
	err = do(ctx, nil, func(ctx context.Context) error {
		return c.RemoveObject(ctx, bucket, key, minio.RemoveObjectOptions{})
	})
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && (resp.Code == "NoSuchKey" || resp.Code == "NotFound") {
		return nil
	}
	if err != nil {
		return describe(fmt.Sprintf("%s (bucket %q, key %q)", name, bucket, key), bucket, "removing", err)
	}
	return nil
}

// ReadAll reads the whole object or file name, of at most limit bytes.
func ReadAll(ctx context.Context, name string, limit int64) ([]byte, error) {
	ob, err := Open(ctx, name, Options{})
	if err != nil {
		return nil, err
	}
	defer ob.Close()
	if ob.Size() > limit {
		return nil, fmt.Errorf("%s: more than %d bytes", name, limit)
	}
	b := make([]byte, ob.Size())
	if _, err := ob.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b, nil
}

// CheckBucket returns an error naming the bucket of name (an s3:// URL)
// if it does not exist or cannot be reached: for writers that would
// otherwise learn it only when they put their first object.
func CheckBucket(ctx context.Context, name string) error {
	bucket, _, err := ParseURL(name)
	if err != nil {
		return err
	}
	c, err := client()
	if err != nil {
		return err
	}
	var ok bool
	err = do(ctx, nil, func(ctx context.Context) error {
		ok, err = c.BucketExists(ctx, bucket)
		return err
	})
	if err != nil {
		return describe(name, bucket, "checking the bucket", err)
	}
	if !ok {
		return fmt.Errorf("%s: bucket %q does not exist: %w", name, bucket, fs.ErrNotExist)
	}
	return nil
}

// AbortUploads aborts the incomplete multipart uploads of the keys that
// start with prefix (an s3:// URL): the parts a writer killed in the
// middle of an upload left on the server, which no listing of objects
// shows but which take room until aborted. It must not run while another
// writer uploads under prefix.
func AbortUploads(ctx context.Context, prefix string) error {
	bucket, key, err := ParseURL(prefix)
	if err != nil {
		return err
	}
	c, err := client()
	if err != nil {
		return err
	}
	type upload struct{ key, id string }
	var ups []upload
	err = do(ctx, nil, func(ctx context.Context) error {
		ups = ups[:0]
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // stops the listing goroutine
		for u := range c.ListIncompleteUploads(ctx, bucket, key, true) {
			if u.Err != nil {
				return u.Err
			}
			ups = append(ups, upload{u.Key, u.UploadID})
		}
		return nil
	})
	if err != nil {
		return describe(prefix, bucket, "listing incomplete uploads", err)
	}
	for _, u := range ups {
		err := do(ctx, nil, func(ctx context.Context) error {
			return minio.Core{Client: c}.AbortMultipartUpload(ctx, bucket, u.key, u.id)
		})
		var resp minio.ErrorResponse
		if errors.As(err, &resp) && resp.Code == "NoSuchUpload" {
			continue // completed or aborted since
		}
		if err != nil {
			return describe(Scheme+bucket+"/"+u.key, bucket, "aborting an incomplete upload", err)
		}
	}
	return nil
}
