package main_test

import (
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// inspect, head, digest and verify read a dataset in a bucket as they
// read it on disk: the same output.
func TestCommandsReadBuckets(t *testing.T) {
	s3 := testutil.StartS3(t)
	data := dataset(t)
	url := s3.Upload(t, data, "data", "events")
	for _, args := range [][]string{
		{"inspect"},
		{"head", "-n", "5", "-json"},
		{"digest"},
		{"digest", "-parallel", "3"},
	} {
		disk := must(t, nil, append(args, data)...)
		bucket := must(t, nil, append(args, url)...)
		if bucket != disk {
			t.Errorf("rowflow %s: from the bucket\n%s\nfrom disk\n%s", strings.Join(args, " "), bucket, disk)
		}
	}
	if out := must(t, nil, "verify", "-parallel", "3", url); !strings.HasPrefix(out, "ok: parallelism 1 and 3 give the same 1000 rows") {
		t.Errorf("verify: %s", out)
	}
	_, errOut, code := rowflow(t, nil, "head", "s3://nosuchbucket/events")
	if code != 1 || !strings.Contains(errOut, `bucket "nosuchbucket" does not exist`) {
		t.Errorf("head of a missing bucket: exit %d, %s", code, errOut)
	}
}
