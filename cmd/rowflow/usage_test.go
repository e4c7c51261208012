package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Flags with values a command cannot use, and flags that a command would
// ignore in the company they are in, are usage errors (exit 2) that say
// what is wrong; reshard writes nothing then.
func TestFlagsOutOfRangeOrIgnored(t *testing.T) {
	data := eightEvents(t)
	out := filepath.Join(t.TempDir(), "out")
	reshard := func(args ...string) []string {
		return append(append([]string{"reshard", "-out", out}, args...), data)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{reshard("-compression", "bogus"), `-compression "bogus": want zstd, snappy, gzip, lz4, none for parquet`},
		{reshard("-format", "jsonl", "-compression", "snappy"), `-compression "snappy": want none, gzip, zstd or s2 for jsonl`},
		{reshard("-parallel", "-3"), "-parallel -3: must be from 1 to 65536"},
		{reshard("-parallel", "0"), "-parallel 0: must be from 1 to 65536"},
		{reshard("-parallel", "65537"), "-parallel 65537: must be from 1 to 65536"},
		{[]string{"digest", "-parallel", "0", data}, "-parallel 0: must be from 1 to 65536"},
		{[]string{"digest", "-parallel", "-1", data}, "-parallel -1: must be from 1 to 65536"},
		{[]string{"verify", "-parallel", "0", data}, "-parallel 0: must be from 2 to 65536: compare with at least 2 workers"},
		{[]string{"verify", "-parallel", "1", data}, "-parallel 1: must be from 2 to 65536: compare with at least 2 workers"},
		{reshard("-shuffle-window", "-4"), "-shuffle-window -4: must be at least 0 (0: no shuffle)"},
		{reshard("-progress-every", "-1"), "-progress-every -1: must be at least 0 (0: quiet)"},
		{reshard("-seed", "7"), "-seed is the seed of the shuffle, which -shuffle-window N (N at least 1) asks for"},
		{reshard("-seed", "7", "-shuffle-window", "0"), "-seed is the seed of the shuffle"},
		{reshard("-completions", "2", "-rank", "0", "-world", "2"), "-completions declares the count of a Kubernetes Indexed Job"},
		{reshard("-completions", "2", "-world", "2"), "-rank and -world give both: use one or the other"},
		{reshard("-completions", "0"), "-completions 0: must be at least 1"},
		{reshard("-world", "3"), "-rank and -world come together"},
		{reshard("-rank", "0"), "-rank and -world come together"},
		{reshard("-rank", "2", "-world", "2"), "-rank 2 -world 2: the world must be at least 1 and the rank from 0 to the world less 1"},
		{reshard("-rank", "0", "-world", "0"), "-rank 0 -world 0: the world must be at least 1"},
		{reshard("-rank", "-1", "-world", "2"), "-rank -1 -world 2: the world must be at least 1 and the rank from 0"},
		{[]string{"verify", "-manifest", "-against", data, data}, "-manifest and -against are two checks: give one"},
		{[]string{"verify", "-against", data, "-parallel", "3", data}, "-parallel is for the check of serial against parallel reads"},
		{[]string{"verify", "-manifest", "-parallel", "3", data}, "-parallel is for the check of serial against parallel reads"},
		{[]string{"verify", "-row-id-column", "id", data}, "-row-id-column is for -against"},
		{[]string{"commit", "-world", "1", "-rows", "-5", data}, "-rows -5: must be at least 0"},
		{append(reshard(), "-format", "jsonl"), "-format comes after the argument " + data + "; flags come before the arguments"},
		{[]string{"head", data, "-n", "3"}, "-n comes after the argument " + data + "; flags come before the arguments"},
	} {
		_, errOut, code := rowflow(t, nil, c.args...)
		if code != 2 || !strings.Contains(errOut, c.msg) {
			t.Errorf("rowflow %s: exit %d, %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.msg)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("rowflow %s created %s", strings.Join(c.args, " "), out)
			os.RemoveAll(out)
		}
	}
	// What the checks let through runs.
	for _, args := range [][]string{
		reshard("-compression", "lz4", "-parallel", "3"),
		reshard("-format", "jsonl", "-compression", "s2", "-shuffle-window", "2", "-seed", "5", "-progress-every", "0"),
	} {
		if got := must(t, nil, args...); !strings.Contains(got, "8 rows") {
			t.Errorf("rowflow %s: %s", strings.Join(args, " "), got)
		}
		os.RemoveAll(out)
	}
}
