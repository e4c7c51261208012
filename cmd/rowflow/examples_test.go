package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The scheduler examples run `rowflow reshard` with flags the command
// has, and declare the same number of ranks everywhere.
func TestSchedulerExamples(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	k8s := read("k8s/reshard-job.yaml")
	for _, want := range []string{"completionMode: Indexed", "completions: 8", "-completions 8", "rowflow commit -world 8"} {
		if !strings.Contains(k8s, want) {
			t.Errorf("the Kubernetes example lacks %q", want)
		}
	}
	slurm := read("slurm/reshard.sbatch")
	for _, want := range []string{"#SBATCH --array=0-7", "rowflow commit -world 8"} {
		if !strings.Contains(slurm, want) {
			t.Errorf("the Slurm example lacks %q", want)
		}
	}
	torch := read("torchrun/launch.sh")
	for _, want := range []string{"--nnodes=2 --nproc-per-node=4", "rowflow commit -world 8"} {
		if !strings.Contains(torch, want) {
			t.Errorf("the torchrun example lacks %q", want)
		}
	}
	// Every flag the examples give reshard is one it takes: run it with
	// them and -h.
	flag := regexp.MustCompile(`\s(-[a-z-]+)\s`)
	for name, text := range map[string]string{"k8s": k8s, "slurm": slurm, "torchrun": torch} {
		i := strings.LastIndex(text, "rowflow reshard -")
		for _, m := range flag.FindAllStringSubmatch(text[i:], -1) {
			if _, errOut, code := rowflow(t, nil, "reshard", m[1]+"=1", "-h"); strings.Contains(errOut, "flag provided but not defined") {
				t.Errorf("%s example: reshard has no flag %s (exit %d)", name, m[1], code)
			}
		}
	}
}
