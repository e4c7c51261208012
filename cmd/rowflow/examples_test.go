package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The scheduler examples run `rowflow reshard` with flags the command
// has, and declare the same number of ranks everywhere. TestLaunchers runs
// the Slurm, MPI and torchrun scripts under the real launchers.
func TestSchedulerExamples(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	examples := map[string]struct {
		text string
		want []string
	}{
		"k8s": {read("k8s/reshard-job.yaml"), []string{"completionMode: Indexed", "completions: 8", `"-completions", "8"`,
			`["commit", "-world", "8", "/data/shards"]`, "backoffLimitPerIndex", "podReplacementPolicy: Failed", "image: ROWFLOW_IMAGE"}},
		"slurm array":  {read("slurm/reshard-array.sbatch"), []string{"#SBATCH --array=0-7", "reshard -out"}},
		"slurm commit": {read("slurm/commit.sbatch"), []string{`commit -world "${WORLD:-8}"`}},
		"slurm srun":   {read("slurm/reshard-srun.sbatch"), []string{"#SBATCH --ntasks=8", "srun \"$rowflow\" reshard -out", `commit -world "$SLURM_NTASKS"`}},
		"torchrun":     {read("torchrun/launch.sh"), []string{"--nproc_per_node", "-r 1 -t 2", "reshard -out", "commit -world $((nnodes * nproc))"}},
		"mpi":          {read("mpi/run.sh"), []string{`mpirun -n "$np"`, "reshard -out", `commit -world "$np"`}},
	}
	// Every flag the examples give reshard is one it takes: run it with
	// them and -h.
	flag := regexp.MustCompile(`[\s"](-[a-z-]+)[\s"]`)
	for name, ex := range examples {
		for _, want := range ex.want {
			if !strings.Contains(ex.text, want) {
				t.Errorf("the %s example lacks %q", name, want)
			}
		}
		// The reshard command: to the end of its shell line, continued
		// lines included, or of the YAML list of arguments.
		i := max(strings.LastIndex(ex.text, "reshard -out"), strings.LastIndex(ex.text, `"reshard", `))
		if i < 0 {
			continue
		}
		cmd := ex.text[i:]
		if end := regexp.MustCompile(`[^\\]\n|\]`).FindStringIndex(cmd); end != nil {
			cmd = cmd[:end[1]]
		}
		for _, m := range flag.FindAllStringSubmatch(cmd, -1) {
			if _, errOut, code := rowflow(t, nil, "reshard", m[1]+"=1", "-h"); strings.Contains(errOut, "flag provided but not defined") {
				t.Errorf("%s example: reshard has no flag %s (exit %d)", name, m[1], code)
			}
		}
	}
}
