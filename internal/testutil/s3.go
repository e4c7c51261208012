package testutil

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The tests of datasets in buckets run against a real S3 server on
// 127.0.0.1: the Versity S3 Gateway, which serves a local directory as
// buckets. Its binary is $ROWFLOW_VERSITYGW (.ci/run builds it and sets
// it), versitygw on the PATH, or built here once with go install into the
// user's cache directory; tests skip, saying why, where none can be had.

// VersityGWVersion is the version of the gateway the tests run.
const VersityGWVersion = "v1.0.14"

var (
	gwOnce sync.Once
	gwPath string
	gwErr  error
)

func versityGW() (string, error) {
	gwOnce.Do(func() {
		if p := os.Getenv("ROWFLOW_VERSITYGW"); p != "" {
			gwPath = p
			if _, err := os.Stat(p); err != nil {
				gwErr = fmt.Errorf("ROWFLOW_VERSITYGW: %w", err)
			}
			return
		}
		if p, err := exec.LookPath("versitygw"); err == nil {
			gwPath = p
			return
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			gwErr = err
			return
		}
		bin := filepath.Join(cache, "rowflow-tools")
		gwPath = filepath.Join(bin, "versitygw")
		if _, err := os.Stat(gwPath); err == nil {
			return
		}
		cmd := exec.Command("go", "install", "github.com/versity/versitygw/cmd/versitygw@"+VersityGWVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			gwErr = fmt.Errorf("go install versitygw@%s: %v\n%s", VersityGWVersion, err, out)
		}
	})
	return gwPath, gwErr
}

// S3 is a gateway serving a directory as buckets, with the AWS variables
// of the test's environment pointing at it.
type S3 struct {
	Endpoint       string // http://127.0.0.1:port
	Access, Secret string
	Dir            string // the directory served: one subdirectory per bucket
	Client         *minio.Client

	bin, addr string
	stop      func()
	pid       int // the running gateway's
}

// StartS3 starts the gateway on a free port of 127.0.0.1, waits until it
// answers, and sets AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_REGION for the test (t.Setenv). The
// gateway stops with the test. It skips the test if the gateway cannot be
// had.
func StartS3(t testing.TB) *S3 {
	t.Helper()
	bin, err := versityGW()
	if err != nil {
		t.Skipf("no S3 server to test against: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &S3{Endpoint: "http://" + addr, Access: "rowflowtest", Secret: "rowflowtestsecret", Dir: t.TempDir(), bin: bin, addr: addr}
	s.Start(t)
	t.Cleanup(s.Stop)
	t.Setenv("AWS_ENDPOINT_URL", s.Endpoint)
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_ACCESS_KEY_ID", s.Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s.Secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(s.Dir, "no-credentials"))
	t.Setenv("AWS_PROFILE", "")
	s.Client, err = minio.New(addr, &minio.Options{Creds: credentials.NewStaticV4(s.Access, s.Secret, ""),
		Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Start starts the gateway, stopped by [S3.Stop], again on its port and
// directory, and waits until it answers.
func (s *S3) Start(t testing.TB) {
	t.Helper()
	cmd := exec.Command(s.bin, "--access", s.Access, "--secret", s.Secret, "--port", s.addr, "posix", s.Dir)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting versitygw: %v", err)
	}
	s.pid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s.stop = func() {
		cmd.Process.Kill()
		<-exited
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		c, err := net.Dial("tcp", s.addr)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("versitygw exited before answering: %v\n%s", err, out)
		case <-deadline:
			t.Fatalf("versitygw did not answer on %s within a minute\n%s", s.addr, out)
		case <-tick.C:
		}
	}
}

// Stop stops the gateway and waits until it has exited.
func (s *S3) Stop() {
	if s.stop != nil {
		s.stop()
		s.stop = nil
	}
}

// Upload creates bucket and puts every file under dir into it, under
// prefix + its slash-separated path relative to dir, and returns the URL
// s3://bucket/prefix.
func (s *S3) Upload(t testing.TB, dir, bucket, prefix string) string {
	t.Helper()
	ctx := context.Background()
	if ok, err := s.Client.BucketExists(ctx, bucket); err != nil {
		t.Fatal(err)
	} else if !ok {
		if err := s.Client.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
			t.Fatalf("creating bucket %s: %v", bucket, err)
		}
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		_, err = s.Client.FPutObject(ctx, bucket, prefix+filepath.ToSlash(rel), p, minio.PutObjectOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("uploading %s: %v", dir, err)
	}
	return strings.TrimSuffix("s3://"+bucket+"/"+prefix, "/")
}

// Put writes data as the object key of bucket.
func (s *S3) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	_, err := s.Client.PutObject(context.Background(), bucket, key, strings.NewReader(string(data)), int64(len(data)), minio.PutObjectOptions{})
	if err != nil {
		t.Fatalf("putting s3://%s/%s: %v", bucket, key, err)
	}
}
