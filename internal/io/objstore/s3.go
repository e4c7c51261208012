package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The S3 client is minio-go's: one module made for S3-compatible servers,
// with ranged and conditional GETs and the AWS credential providers. Its
// own retries are off: requests are retried here (see do), so that a
// body cut off mid-read is retried too, and the last error names the
// bucket, key and byte range.

// ParseURL splits s3://bucket/key into the bucket and the key (which may
// be empty, or end in "/").
func ParseURL(name string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(name, Scheme)
	if !ok {
		return "", "", fmt.Errorf("%s: not an %s URL", name, Scheme)
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("%s: no bucket", name)
	}
	return bucket, key, nil
}

// config is where a client's settings come from: the AWS environment
// variables and shared files, as the AWS tools read them.
type config struct {
	endpoint, region          string
	access, secret, token     string
	credFile, profile, config string
}

func configFromEnv() config {
	ep := os.Getenv("AWS_ENDPOINT_URL_S3")
	if ep == "" {
		ep = os.Getenv("AWS_ENDPOINT_URL")
	}
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	return config{endpoint: ep, region: region,
		access: os.Getenv("AWS_ACCESS_KEY_ID"), secret: os.Getenv("AWS_SECRET_ACCESS_KEY"), token: os.Getenv("AWS_SESSION_TOKEN"),
		credFile: os.Getenv("AWS_SHARED_CREDENTIALS_FILE"), profile: os.Getenv("AWS_PROFILE"), config: os.Getenv("AWS_CONFIG_FILE")}
}

var (
	clientsMu sync.Mutex
	clients   = map[config]*minio.Client{}
)

// client returns the client of the environment's settings, made once per
// distinct settings.
func client() (*minio.Client, error) {
	cfg := configFromEnv()
	clientsMu.Lock()
	defer clientsMu.Unlock()
	if c, ok := clients[cfg]; ok {
		return c, nil
	}
	host, secure, lookup := "s3.amazonaws.com", true, minio.BucketLookupAuto
	if cfg.endpoint != "" {
		u, err := url.Parse(cfg.endpoint)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("objstore: AWS_ENDPOINT_URL %q: want http(s)://host[:port]", cfg.endpoint)
		}
		// S3-compatible servers take the bucket in the path.
		host, secure, lookup = u.Host, u.Scheme == "https", minio.BucketLookupPath
	}
	tr, err := minio.DefaultTransport(secure)
	if err != nil {
		return nil, err
	}
	tr.ResponseHeaderTimeout = requestTimeout
	creds := credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{}, // AWS_SHARED_CREDENTIALS_FILE, AWS_PROFILE
	})
	c, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: cfg.region,
		BucketLookup: lookup, Transport: tr, MaxRetries: 1})
	if err != nil {
		return nil, fmt.Errorf("objstore: S3 client for %s: %w", host, err)
	}
	clients[cfg] = c
	return c, nil
}

// Retries: attempts in all, and the backoff before retry i, which is a
// random duration up to min(maxBackoff, baseBackoff<<i) (full jitter).
// Variables, so that tests can make them short.
var (
	attempts       = 5
	baseBackoff    = 50 * time.Millisecond
	maxBackoff     = 2 * time.Second
	requestTimeout = 2 * time.Minute
)

// retryHook, if set, is called before retry i (from 1) after err: tests
// stop and start the server there.
var retryHook func(i int, err error)

// requested counts the bytes the S3 reads asked for, for tests.
var requested atomic.Int64

// Requested returns the bytes the ranged GETs of the process have asked
// for so far.
func Requested() int64 { return requested.Load() }

// retryable reports whether a failed request may succeed if repeated:
// throttling, server errors, connections reset or refused, timeouts and
// bodies cut short.
func retryable(err error) bool {
	var resp minio.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
			http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
		return resp.Code == "SlowDown" || resp.Code == "InternalError" || resp.Code == "RequestTimeout"
	}
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "EOF")
}

// do runs req until it succeeds, fails for good, ctx is done or the
// attempts run out, waiting a jittered backoff between attempts.
func do(ctx context.Context, lim *Limit, req func(ctx context.Context) error) error {
	var err error
	for i := range attempts {
		if i > 0 {
			if retryHook != nil {
				retryHook(i, err)
			}
			d := time.Duration(rand.Int64N(int64(min(maxBackoff, baseBackoff<<(i-1))) + 1))
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return errors.Join(err, ctx.Err())
			case <-t.C:
			}
		}
		if cerr := lim.acquire(ctx); cerr != nil {
			return errors.Join(err, cerr)
		}
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		err = req(rctx)
		cancel()
		lim.release()
		if err == nil || ctx.Err() != nil || !retryable(err) {
			return err
		}
	}
	return fmt.Errorf("after %d attempts: %w", attempts, err)
}

// describe turns a failed request's error into one that says what went
// wrong with the bucket or key.
func describe(name, bucket, what string, err error) error {
	var resp minio.ErrorResponse
	if errors.As(err, &resp) {
		switch resp.Code {
		case "NoSuchBucket":
			return fmt.Errorf("%s: %s: bucket %q does not exist: %w", name, what, bucket, fs.ErrNotExist)
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%s: %s: %w", name, what, ErrNoObject)
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "InvalidToken", "ExpiredToken":
			return fmt.Errorf("%s: %s: access denied (%s: %s): check the credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or the shared credentials file: %w",
				name, what, resp.Code, resp.Message, fs.ErrPermission)
		}
		if resp.StatusCode == http.StatusNotFound {
			return fmt.Errorf("%s: %s: not found (bucket %q or its key): %w", name, what, bucket, fs.ErrNotExist)
		}
	}
	return fmt.Errorf("%s: %s: %w", name, what, err)
}

// ErrNoObject is the error of a key that names no object. It is an
// fs.ErrNotExist.
var ErrNoObject error = noObject{}

type noObject struct{}

func (noObject) Error() string        { return "no such object" }
func (noObject) Is(target error) bool { return target == fs.ErrNotExist }

// ErrChanged is what reading an object that changed since it was opened
// fails with.
var ErrChanged = errors.New("changed during the run")

// s3Object is an object open for ranged reads.
type s3Object struct {
	ctx         context.Context
	c           *minio.Client
	lim         *Limit
	name        string
	bucket, key string
	stamp       Stamp

	closed atomic.Bool // reads fail once it is set, as a closed file's do

	mu    sync.Mutex
	tail  span   // the bytes read when it was opened
	spans []span // recently read byte ranges, most recent last
	ahead aheadState
}

// span is bytes [off, off+len(data)) of an object.
type span struct {
	off  int64
	data []byte
}

// Read-ahead: a read of fewer than minRead bytes fetches minRead, and the
// last maxSpans ranges fetched are kept (and the tail fetched when the
// object was opened), so that the small reads of a reader (a magic
// number, a page header) cost no request each. Parquet readers ask for
// whole column chunks, which need no more read-ahead.
// Only ranges of up to maxSpan bytes are kept, so that an open object
// holds at most maxSpans*maxSpan bytes besides its tail.
const (
	minRead  = 8 << 10
	maxSpans = 8
	maxSpan  = 64 << 10
)

func openS3(ctx context.Context, name string, o Options) (Object, error) {
	bucket, key, err := ParseURL(name)
	if err != nil {
		return nil, err
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return nil, fmt.Errorf("%s: not an object key", name)
	}
	c, err := client()
	if err != nil {
		return nil, err
	}
	ob := &s3Object{ctx: ctx, c: c, lim: o.Limit, name: name, bucket: bucket, key: key}
	if o.Tail > 0 {
		err = ob.fetchTail(o.Tail)
		var resp minio.ErrorResponse
		if errors.As(err, &resp) && resp.Code == "InvalidRange" {
			err = nil // an empty object
			o.Tail = 0
		} else if err != nil {
			return nil, describe(name, bucket, fmt.Sprintf("reading its last %d bytes", o.Tail), err)
		}
	}
	if o.Tail == 0 {
		if ob.stamp, err = statS3(ctx, name); err != nil {
			return nil, err
		}
	}
	return ob, nil
}

// fetchTail reads the object's last n bytes, and learns its size and
// version from the response.
func (ob *s3Object) fetchTail(n int64) error {
	return do(ob.ctx, ob.lim, func(ctx context.Context) error {
		var opts minio.GetObjectOptions
		if err := opts.SetRange(0, -n); err != nil {
			return err
		}
		requested.Add(n)
		body, info, h, err := minio.Core{Client: ob.c}.GetObject(ctx, ob.bucket, ob.key, opts)
		if err != nil {
			return err
		}
		defer body.Close()
		data, err := io.ReadAll(body)
		if err != nil {
			return err
		}
		size := int64(len(data))
		if cr := h.Get("Content-Range"); cr != "" {
			_, total, ok := strings.Cut(cr, "/")
			if size, err = strconv.ParseInt(total, 10, 64); !ok || err != nil {
				return fmt.Errorf("bad Content-Range %q", cr)
			}
		}
		if int64(len(data)) > size {
			return fmt.Errorf("%d bytes in the last %d of a %d-byte object", len(data), n, size)
		}
		ob.stamp = Stamp{Size: size, ModTime: info.LastModified, ETag: info.ETag}
		ob.tail = span{off: size - int64(len(data)), data: data}
		return nil
	})
}

func statS3(ctx context.Context, name string) (Stamp, error) {
	bucket, key, err := ParseURL(name)
	if err != nil {
		return Stamp{}, err
	}
	c, err := client()
	if err != nil {
		return Stamp{}, err
	}
	var st Stamp
	err = do(ctx, nil, func(ctx context.Context) error {
		info, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
		if err != nil {
			return err
		}
		st = Stamp{Size: info.Size, ModTime: info.LastModified, ETag: info.ETag}
		return nil
	})
	if err != nil {
		return Stamp{}, describe(name, bucket, "stat", err)
	}
	return st, nil
}

func (ob *s3Object) Size() int64           { return ob.stamp.Size }
func (ob *s3Object) Stamp() (Stamp, error) { return ob.stamp, nil }
func (ob *s3Object) Close() error          { ob.closed.Store(true); ob.closeAhead(); return nil }

// ReadAt reads from the kept ranges where they hold the bytes at off,
// and the rest by one ranged GET conditional on the object's ETag.
func (ob *s3Object) ReadAt(p []byte, off int64) (int, error) {
	if ob.closed.Load() {
		return 0, &os.PathError{Op: "read", Path: ob.name, Err: os.ErrClosed}
	}
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d", ob.name, off)
	}
	if off >= ob.stamp.Size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := min(int64(len(p)), ob.stamp.Size-off)
	done := int64(0)
	for done < want {
		k := ob.cached(p[done:want], off+done)
		if k == 0 {
			k = ob.fromAhead(p[done:want], off+done)
		}
		if k > 0 {
			done += k
			continue
		}
		at := off + done
		n := min(max(want-done, minRead), ob.stamp.Size-at)
		data, err := ob.fetch(at, n)
		if err != nil {
			return int(done), err
		}
		done += int64(copy(p[done:want], data))
		if n > maxSpan {
			continue // the reader keeps what it asked for
		}
		ob.mu.Lock()
		ob.spans = append(ob.spans, span{off: at, data: data})
		if len(ob.spans) > maxSpans {
			// Deleted, not resliced: the array would still hold it.
			ob.spans = slices.Delete(ob.spans, 0, 1)
		}
		ob.mu.Unlock()
	}
	if want < int64(len(p)) {
		return int(want), io.EOF
	}
	return int(want), nil
}

// cached fills p, or its start, from the kept range that holds the
// most of it from off, the object's tail included, and returns how many
// bytes it filled.
func (ob *s3Object) cached(p []byte, off int64) int64 {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	best := int64(0)
	for _, s := range append(ob.spans, ob.tail) {
		if off >= s.off && off < s.off+int64(len(s.data)) {
			best = max(best, int64(copy(p, s.data[off-s.off:])))
		}
	}
	return best
}

// fetch reads bytes [off, off+n) by a GET conditional on the ETag.
func (ob *s3Object) fetch(off, n int64) ([]byte, error) { return ob.fetchCtx(ob.ctx, off, n) }

// fetchCtx is fetch with the context ctx, one that ends no later than the
// object's.
func (ob *s3Object) fetchCtx(ctx context.Context, off, n int64) ([]byte, error) {
	buf := make([]byte, n)
	changed := ""
	err := do(ctx, ob.lim, func(ctx context.Context) error {
		var opts minio.GetObjectOptions
		if err := opts.SetRange(off, off+n-1); err != nil {
			return err
		}
		if err := opts.SetMatchETag(ob.stamp.ETag); err != nil {
			return err
		}
		requested.Add(n)
		body, info, _, err := minio.Core{Client: ob.c}.GetObject(ctx, ob.bucket, ob.key, opts)
		if err != nil {
			return err
		}
		defer body.Close()
		if info.ETag != ob.stamp.ETag {
			// A server that ignores If-Match says so by the ETag of what
			// it sends.
			changed = info.ETag
			return nil
		}
		_, err = io.ReadFull(body, buf)
		return err
	})
	if err == nil && changed != "" {
		return nil, fmt.Errorf("%s (bucket %q, key %q): %w: its ETag is %s, not %s (reading bytes [%d, %d))", ob.name, ob.bucket, ob.key, ErrChanged, changed, ob.stamp.ETag, off, off+n)
	}
	if err == nil {
		return buf, nil
	}
	what := fmt.Sprintf("bytes [%d, %d)", off, off+n)
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && (resp.StatusCode == http.StatusPreconditionFailed || resp.Code == "PreconditionFailed") {
		return nil, fmt.Errorf("%s (bucket %q, key %q): %w: its ETag is no longer %s (reading %s)", ob.name, ob.bucket, ob.key, ErrChanged, ob.stamp.ETag, what)
	}
	if errors.As(err, &resp) && (resp.Code == "NoSuchKey" || resp.Code == "NotFound") {
		return nil, fmt.Errorf("%s (bucket %q, key %q): %w: it no longer exists (reading %s)", ob.name, ob.bucket, ob.key, ErrChanged, what)
	}
	if errors.As(err, &resp) && (resp.StatusCode == http.StatusRequestedRangeNotSatisfiable || resp.Code == "InvalidRange") {
		// The range lay within the object as it was opened.
		return nil, fmt.Errorf("%s (bucket %q, key %q): %w: it is shorter than the %d bytes it had when opened (reading %s)", ob.name, ob.bucket, ob.key, ErrChanged, ob.stamp.Size, what)
	}
	return nil, describe(fmt.Sprintf("%s (bucket %q, key %q)", ob.name, ob.bucket, ob.key), ob.bucket, "reading "+what, err)
}

// listPage is the keys a listing asks for at once; 0: the server's
// default (1,000 for S3). Tests make it small.
var listPage = 0

// listed counts the objects the listings returned, for tests.
var listed atomic.Int64

// Listed returns the number of objects (not prefixes) that the listings
// of the process have returned so far.
func Listed() int64 { return listed.Load() }

// List calls fn with the URL and version of every object whose key starts
// with prefix (an s3:// URL), in key order.
func List(ctx context.Context, prefix string, fn func(name string, st Stamp) error) error {
	return list(ctx, prefix, true, func(name string, st Stamp, _ bool) error { return fn(name, st) })
}

// ListDir calls fn with the URL of every object and every "directory"
// (a prefix ending in "/", dir true) just below prefix, which should end
// in "/": a listing with "/" as the delimiter.
func ListDir(ctx context.Context, prefix string, fn func(name string, dir bool) error) error {
	return list(ctx, prefix, false, func(name string, _ Stamp, dir bool) error { return fn(name, dir) })
}

func list(ctx context.Context, prefix string, recursive bool, fn func(name string, st Stamp, dir bool) error) error {
	bucket, key, err := ParseURL(prefix)
	if err != nil {
		return err
	}
	c, err := client()
	if err != nil {
		return err
	}
	// A listing that fails is retried from the last key it returned.
	last := ""
	var fnErr error
	err = do(ctx, nil, func(ctx context.Context) error {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // stops the listing goroutine
		opts := minio.ListObjectsOptions{Prefix: key, Recursive: recursive, StartAfter: last, MaxKeys: listPage}
		for obj := range c.ListObjects(ctx, bucket, opts) {
			if obj.Err != nil {
				return obj.Err
			}
			last = obj.Key
			dir := !recursive && strings.HasSuffix(obj.Key, "/")
			if !dir {
				listed.Add(1)
			}
			if fnErr = fn(Scheme+bucket+"/"+obj.Key, Stamp{Size: obj.Size, ModTime: obj.LastModified, ETag: obj.ETag}, dir); fnErr != nil {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return describe(prefix, bucket, "listing", err)
	}
	return fnErr
}
