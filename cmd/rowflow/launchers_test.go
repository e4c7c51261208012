//go:build unix

package main_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// The launcher harness: `rowflow reshard` run by the example scripts of
// examples/slurm, examples/mpi and examples/torchrun under the real
// launchers on this machine, three ranks each, then committed; the union
// of the ranks' output is compared with a run of one rank by row ID and
// value, each rank's printed line is read, and the shares are compared.
// .ci/launchers installs the launchers, starts a one-node Slurm cluster
// and runs this test with ROWFLOW_LAUNCHERS=1; without it the test skips.

const (
	launcherWorld    = 3
	launcherBound    = 1.05 // the largest rank's rows over the smallest's
	launcherFlags    = "-shuffle-window 8 -seed 7"
	launcherPerFile  = "2000"
	launcherDeadline = 10 * time.Minute
)

// launcherRow is one line of the harness's table.
type launcherRow struct {
	launcher  string
	world     int
	rows      []int64 // by rank, from the ranks' printed lines
	maxMin    float64
	union     string // "yes" when the union equals the one-rank run
	requeue   string // "identical", "differs" or "-"
	committed string // "yes", "no" or "-"
}

type launcherHarness struct {
	root, data, ref string
	total           int64
	table           []launcherRow
}

func TestLaunchers(t *testing.T) {
	if os.Getenv("ROWFLOW_LAUNCHERS") == "" {
		t.Skip("ROWFLOW_LAUNCHERS is not set: .ci/launchers installs Slurm, Open MPI and torchrun, starts Slurm and sets it")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	h := &launcherHarness{root: root}
	h.data, h.total = launcherDataset(t)
	h.ref = filepath.Join(t.TempDir(), "reference")
	line := must(t, nil, append(append([]string{"reshard", "-rank", "0", "-world", "1", "-out", h.ref, "-rows-per-file", launcherPerFile},
		strings.Fields(launcherFlags)...), h.data)...)
	if want := fmt.Sprintf("rank 0 of 1 (explicit): %d rows", h.total); !strings.HasPrefix(line, want) {
		t.Fatalf("the one-rank run said %q, want %q", line, want)
	}
	t.Cleanup(func() { h.report(t) })

	t.Run("slurm array", h.slurmArray)
	t.Run("slurm srun", h.slurmSrun)
	t.Run("slurm array of srun steps", h.slurmArrayOfSteps)
	t.Run("open mpi", h.openMPI)
	t.Run("torchrun", h.torchrun)
	t.Run("torchrun loader", h.torchrunLoader)
}

// launcherDataset writes Parquet files of uneven sizes and row groups:
// 60,000 events in 7 files of 24,000 to 1,000 rows, row groups of 4,000
// to 250 rows, 52 row groups in all (at least 4 per rank of up to 13).
func launcherDataset(t *testing.T) (string, int64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := []struct{ rows, group int64 }{{24000, 4000}, {16000, 2000}, {8000, 1000}, {6000, 500}, {3000, 500}, {2000, 250}, {1000, 250}}
	var next int64
	for i, f := range files {
		tmp := t.TempDir()
		start := next
		src := sources.Generate(f.rows, func(j int64) (event, error) {
			id := start + j
			return event{ID: id, Lang: []string{"en", "de", "fr"}[id%3], Score: float64(id%100) / 100, Text: fmt.Sprintf("text %d", id*7)}, nil
		}, sources.PartitionItems(int(f.group)))
		if err := flow.From(src).To(shards.Parquet[event](tmp, shards.RowGroupRows(int(f.group)))).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		written, err := filepath.Glob(filepath.Join(tmp, "*.parquet"))
		if err != nil || len(written) != 1 {
			t.Fatalf("the sink wrote %v, %v; want one file", written, err)
		}
		if err := os.Rename(written[0], filepath.Join(dir, fmt.Sprintf("f%d.parquet", i))); err != nil {
			t.Fatal(err)
		}
		next += f.rows
	}
	return dir, next
}

// script runs one of the examples' scripts, or a launcher, with the
// harness's settings in its environment, and returns its standard output.
func (h *launcherHarness) script(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), launcherDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = h.root
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, o.String(), e.String())
	}
	return o.String()
}

// env is the examples' variables for a run into out.
func (h *launcherHarness) env(out string, extra ...string) []string {
	return append([]string{"ROWFLOW=" + rowflowBin, "INPUT=" + h.data, "OUTPUT=" + out, "ROWS_PER_FILE=" + launcherPerFile,
		"RESHARD_FLAGS=" + launcherFlags, fmt.Sprintf("ROWS=%d", h.total)}, extra...)
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (.ci/launchers installs it)", tool)
		}
	}
}

var rankLine = regexp.MustCompile(`(?m)^rank (\d+) of (\d+) \(([^)]*)\): (\d+) rows in (\d+) files, (\d+) bytes$`)

// check reads the ranks' lines from text, checks them against the ranks'
// manifests, the convention they name, the bound on the shares, the
// commit, and the union against the one-rank run; it adds the table's row.
func (h *launcherHarness) check(t *testing.T, launcher, from, text, out string) launcherRow {
	return h.checkWorld(t, launcher, launcherWorld, from, text, out)
}

func (h *launcherHarness) checkWorld(t *testing.T, launcher string, want int, from, text, out string) launcherRow {
	t.Helper()
	row := launcherRow{launcher: launcher, world: want, rows: make([]int64, want), union: "no", requeue: "-", committed: "no"}
	defer func() { h.table = append(h.table, row) }()
	seen := make([]bool, want)
	for _, m := range rankLine.FindAllStringSubmatch(text, -1) {
		rank, _ := strconv.Atoi(m[1])
		world, _ := strconv.Atoi(m[2])
		rows, _ := strconv.ParseInt(m[4], 10, 64)
		switch {
		case world != want || rank >= world:
			t.Errorf("%s: %q: want a rank of %d", launcher, m[0], want)
			continue
		case m[3] != from:
			t.Errorf("%s: %q: the rank came from %q, want %q", launcher, m[0], m[3], from)
		}
		seen[rank], row.rows[rank] = true, rows
		man, err := shards.ReadManifest(out, rank)
		if err != nil {
			t.Errorf("%s: rank %d: %v", launcher, rank, err)
		} else if man.Rows != rows || fmt.Sprint(len(man.Files)) != m[5] || fmt.Sprint(man.Bytes) != m[6] {
			t.Errorf("%s: %q, but rank %d's manifest has %d rows in %d files, %d bytes", launcher, m[0], rank, man.Rows, len(man.Files), man.Bytes)
		}
	}
	if i := slices.Index(seen, false); i >= 0 {
		t.Errorf("%s: no line from rank %d in:\n%s", launcher, i, text)
		return row
	}
	if sum := sumOf(row.rows); sum != h.total {
		t.Errorf("%s: the ranks have %d rows in all, the input %d", launcher, sum, h.total)
	}
	lo, hi := slices.Min(row.rows), slices.Max(row.rows)
	row.maxMin = float64(hi) / float64(max(lo, 1))
	if row.maxMin > launcherBound {
		t.Errorf("%s: rows per rank %v: max/min %.3f, above the bound %.2f", launcher, row.rows, row.maxMin, launcherBound)
	}
	dm, err := shards.ReadDatasetManifest(out)
	if err != nil {
		t.Errorf("%s: not committed: %v", launcher, err)
	} else if dm.Rows != h.total || dm.World != want {
		t.Errorf("%s: committed %d rows of %d ranks, want %d of %d", launcher, dm.Rows, dm.World, h.total, want)
	} else {
		row.committed = "yes"
	}
	shards := func(dir string) *flow.Pipeline {
		return flow.From(parquet.Read[shardRow](dir)).
			Via(operators.SetIDs(func(r shardRow) rowid.ID { return r.id() })).
			Via(operators.Map(func(r shardRow) (event, error) { // the row-ID columns are each file's
				return event{ID: r.ID, Lang: r.Lang, Score: r.Score, Text: r.Text}, nil
			}))
	}
	if err := determinism.CompareByID[event](context.Background(), shards(h.ref), shards(out)); err != nil {
		t.Errorf("%s: the union of the ranks is not the one-rank run: %v", launcher, err)
	} else {
		row.union = "yes"
	}
	return row
}

func sumOf(xs []int64) (s int64) {
	for _, x := range xs {
		s += x
	}
	return s
}

// slurmArray runs examples/slurm/reshard-array.sbatch as an array of 3
// and commits with examples/slurm/commit.sbatch; then runs it again into
// another directory, SIGKILLs array task 1 while it is writing, requeues
// it, and compares the two outputs byte for byte.
func (h *launcherHarness) slurmArray(t *testing.T) {
	need(t, "sbatch", "scontrol", "scancel")
	logs, out := t.TempDir(), filepath.Join(t.TempDir(), "shards")
	array := filepath.Join(h.root, "examples", "slurm", "reshard-array.sbatch")
	commit := filepath.Join(h.root, "examples", "slurm", "commit.sbatch")
	// Both runs print a progress line per row, which the second one needs
	// (see below): the flags are part of the pipeline's fingerprint, which
	// the files record.
	flags := "RESHARD_FLAGS=" + launcherFlags + " -progress-every 1"
	id := strings.TrimSpace(h.script(t, h.env(out, flags), "sbatch", "--parsable", "--wait", "--array=0-2", "--cpus-per-task=1",
		"-o", filepath.Join(logs, "array-%a.out"), "-e", filepath.Join(logs, "array-%a.err"), array))
	h.script(t, h.env(out, "WORLD=3"), "sbatch", "--wait", "--kill-on-invalid-dep=yes", "--dependency=afterok:"+id,
		"-o", filepath.Join(logs, "commit.out"), commit)
	if text := catFiles(t, logs, "commit.out"); !strings.Contains(text, "committed "+out) {
		t.Errorf("the commit job did not commit: %q", text)
	}
	row := h.check(t, "slurm sbatch --array=0-2", "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT", catFiles(t, logs, "array-*.out"), out)
	defer func() { h.table[len(h.table)-1] = row }()

	// Again, with task 1 killed mid-way: its standard error is a FIFO that
	// the test reads some progress lines of and then stops reading, so the
	// task, printing a line per row, blocks on a full pipe and cannot finish
	// before the SIGKILL.
	again := filepath.Join(t.TempDir(), "shards")
	fifo := filepath.Join(logs, "kill-1.err")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	id = strings.TrimSpace(h.script(t, h.env(again, flags), "sbatch", "--parsable",
		"--array=0-2", "--cpus-per-task=1", "-o", filepath.Join(logs, "kill-%a.out"), "-e", filepath.Join(logs, "kill-%a.err"), array))
	t.Cleanup(func() { exec.Command("scancel", id).Run() })
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until Slurm opens it for the task
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	var f *os.File
	select {
	case f = <-opened:
	case <-time.After(launcherDeadline):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil { // let the open return
			w.Close()
		}
		t.Fatalf("array task %s_1 did not start within %v", id, launcherDeadline)
	}
	if f == nil {
		t.FailNow()
	}
	// Read to the line of the 10,000th row, then no more: the pipe holds
	// 64 KiB, some 2,700 lines, so the task stops at about 12,700 rows,
	// half-way through its share, and is killed there.
	lines := bufio.NewScanner(f)
	for lines.Scan() && lines.Text() != "rank 1: 10000 rows read" {
	}
	if lines.Text() != "rank 1: 10000 rows read" {
		t.Fatalf("array task 1 ended with %q, before its 10,000th row", lines.Text())
	}
	// SIGKILL, sent here: `scancel --signal=KILL` cancels the job, and
	// Slurm then sends SIGTERM first, on which rowflow stops cleanly.
	jobID := regexp.MustCompile(`JobId=(\d+)`).FindStringSubmatch(h.script(t, nil, "scontrol", "show", "job", id+"_1"))
	if jobID == nil {
		t.Fatalf("no JobId for %s_1", id)
	}
	pids := regexp.MustCompile(`(?m)^(\d+)\s+`+jobID[1]+`\s`).FindAllStringSubmatch(h.script(t, nil, "scontrol", "listpids", jobID[1]), -1)
	if len(pids) == 0 {
		t.Fatalf("scontrol listpids %s: no processes", jobID[1])
	}
	for _, pid := range pids {
		n, _ := strconv.Atoi(pid[1])
		if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
			t.Errorf("kill -9 %d: %v", n, err)
		}
	}
	for lines.Scan() { // until the killed task's end of the pipe is closed
	}
	f.Close()
	if err := os.Remove(fifo); err != nil { // the rerun writes a file
		t.Fatal(err)
	}
	// Wait for the task to have failed: a job that depends on that.
	h.script(t, nil, "sbatch", "--wait", "--kill-on-invalid-dep=yes", "--dependency=afternotok:"+id+"_1",
		"-o", "/dev/null", "--wrap", "true")
	// Killed mid-way: no manifest of rank 1 yet.
	if _, err := shards.ReadManifest(again, 1); err == nil {
		t.Fatal("rank 1 finished before it was killed")
	}
	var left []string
	filepath.WalkDir(again, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (strings.HasPrefix(d.Name(), ".part-00001-") || d.Name() == ".rank-00001.lock") {
			left = append(left, d.Name())
		}
		return nil
	})
	if len(left) < 2 {
		t.Fatalf("array task %s_1 was killed before it wrote: it left %v", id, left)
	}
	t.Logf("array task %s_1 killed mid-way, leaving %v", id, left)
	if state := jobState(t, id+"_1"); state != "FAILED" {
		t.Fatalf("array task %s_1 is %s after SIGKILL, want FAILED", id, state)
	}
	h.script(t, nil, "scontrol", "requeue", id+"_1")
	// Slurm holds a requeued job back for two minutes; start it now.
	h.script(t, nil, "scontrol", "update", "jobid="+id+"_1", "StartTime=now")
	// A dependency on the whole array (afterok:ID) is never satisfied once
	// a task has failed, requeued or not (Slurm 22.05 cancels the dependent
	// job, and sbatch --wait then exits 0): depend on each task.
	var tasks []string
	for i := range launcherWorld {
		tasks = append(tasks, fmt.Sprintf("%s_%d", id, i))
	}
	h.script(t, h.env(again, "WORLD=3"), "sbatch", "--wait", "--kill-on-invalid-dep=yes", "--dependency=afterok:"+strings.Join(tasks, ":"),
		"-o", filepath.Join(logs, "commit-again.out"), commit)
	if text := catFiles(t, logs, "commit-again.out"); !strings.Contains(text, "committed "+again) {
		t.Errorf("the commit after the requeue did not run: %q", text)
	}
	if !strings.Contains(catFiles(t, logs, "kill-1.out"), fmt.Sprintf("rank 1 of %d", launcherWorld)) {
		t.Errorf("the requeued task 1 did not finish: %s", catFiles(t, logs, "kill-1.*"))
	}
	row.requeue = "differs"
	if same := sameFiles(t, out, again); same {
		row.requeue = "identical"
	}
}

// jobState is the state of a Slurm job or array task.
func jobState(t *testing.T, id string) string {
	t.Helper()
	out, err := exec.Command("scontrol", "show", "job", id).CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v\n%s", id, err, out)
	}
	m := regexp.MustCompile(`JobState=(\S+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("scontrol show job %s: no JobState in\n%s", id, out)
	}
	return string(m[1])
}

// sameFiles reports whether directories a and b hold the same files with
// the same bytes, and says which differ.
func sameFiles(t *testing.T, a, b string) bool {
	t.Helper()
	list := func(dir string) map[string][]byte {
		files := map[string][]byte{}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			files[rel], err = os.ReadFile(p)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	fa, fb := list(a), list(b)
	same := len(fa) == len(fb)
	for name, data := range fa {
		if other, ok := fb[name]; !ok || !bytes.Equal(data, other) {
			t.Errorf("after the kill and requeue, %s differs (present: %v)", name, ok)
			same = false
		}
	}
	for name := range fb {
		if _, ok := fa[name]; !ok {
			t.Errorf("after the kill and requeue, %s is there and was not in the clean run", name)
			same = false
		}
	}
	return same
}

func catFiles(t *testing.T, dir, pattern string) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

// slurmSrun runs examples/slurm/reshard-srun.sbatch with 3 tasks: srun
// starts the ranks, and the batch script commits.
func (h *launcherHarness) slurmSrun(t *testing.T) {
	need(t, "sbatch", "srun")
	logs, out := t.TempDir(), filepath.Join(t.TempDir(), "shards")
	h.script(t, h.env(out), "sbatch", "--wait", "--ntasks=3", "--cpus-per-task=1", "--overcommit",
		"-o", filepath.Join(logs, "srun.out"), filepath.Join(h.root, "examples", "slurm", "reshard-srun.sbatch"))
	text := catFiles(t, logs, "srun.out")
	if !strings.Contains(text, fmt.Sprintf("committed %s: 3 ranks", out)) {
		t.Errorf("the script did not commit: %s", text)
	}
	h.check(t, "slurm srun -n 3 (sbatch --ntasks=3 --overcommit)", "SLURM_PROCID/SLURM_NTASKS", text, out)
}

// slurmArrayOfSteps runs examples/slurm/reshard-srun.sbatch as an array
// of 2 tasks of 2: each array task's srun step is 2 of the 4 ranks. srun
// runs with --mpi=pmi2 (SLURM_MPI_TYPE), as on clusters that default to
// it, so the tasks also have PMI_RANK and PMI_SIZE, numbering the step.
func (h *launcherHarness) slurmArrayOfSteps(t *testing.T) {
	need(t, "sbatch", "srun")
	logs, out := t.TempDir(), filepath.Join(t.TempDir(), "shards")
	id := strings.TrimSpace(h.script(t, h.env(out, "SLURM_MPI_TYPE=pmi2"), "sbatch", "--parsable", "--wait", "--array=0-1", "--ntasks=2", "--cpus-per-task=1", "--overcommit",
		"-o", filepath.Join(logs, "steps-%a.out"), filepath.Join(h.root, "examples", "slurm", "reshard-srun.sbatch")))
	h.script(t, h.env(out, "WORLD=4"), "sbatch", "--wait", "--kill-on-invalid-dep=yes", "--dependency=afterok:"+id,
		"-o", filepath.Join(logs, "commit.out"), filepath.Join(h.root, "examples", "slurm", "commit.sbatch"))
	text := catFiles(t, logs, "*.out")
	if !strings.Contains(text, "commit the array's output with -world 4") || !strings.Contains(text, "committed "+out) {
		t.Errorf("the array tasks or the commit said: %s", text)
	}
	h.checkWorld(t, "slurm sbatch --array=0-1 --ntasks=2, srun --mpi=pmi2 steps", 4, "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT+SLURM_PROCID/SLURM_NTASKS", text, out)
}

// openMPI runs examples/mpi/run.sh with 3 ranks.
func (h *launcherHarness) openMPI(t *testing.T) {
	need(t, "mpirun")
	out := filepath.Join(t.TempDir(), "shards")
	text := h.script(t, h.env(out, "NP=3", "MPIRUN_FLAGS=--oversubscribe --allow-run-as-root"), filepath.Join(h.root, "examples", "mpi", "run.sh"))
	h.check(t, "mpirun -n 3 --oversubscribe", "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE", text, out)
}

// torchrun runs examples/torchrun/launch.sh with 3 processes on this
// node; each rank's standard output is in torchrun's log directory.
func (h *launcherHarness) torchrun(t *testing.T) {
	need(t, "torchrun")
	logs, out := t.TempDir(), filepath.Join(t.TempDir(), "shards")
	h.script(t, h.env(out, "NPROC=3", "LOG_DIR="+logs), filepath.Join(h.root, "examples", "torchrun", "launch.sh"))
	h.check(t, "torchrun --standalone --nproc_per_node 3", "RANK/WORLD_SIZE", catFiles(t, logs, "*/attempt_0/*/stdout.log"), out)
}

var loaderLine = regexp.MustCompile(`(?m)^rank (\d+) of (\d+) \(RANK/WORLD_SIZE\): epoch (\d+): (\d+) batches, (\d+) rows$`)

// torchrunLoader runs examples/torchrun/loader, a Go input pipeline of
// batches of 64 over two epochs, as 3 ranks under examples/torchrun/launch.sh
// and reads the batches and rows each rank got in each epoch.
func (h *launcherHarness) torchrunLoader(t *testing.T) {
	need(t, "torchrun")
	bin := filepath.Join(t.TempDir(), "loader")
	if b, err := exec.Command("go", "build", "-o", bin, filepath.Join(h.root, "examples", "torchrun", "loader")).CombinedOutput(); err != nil {
		t.Fatalf("go build examples/torchrun/loader: %v\n%s", err, b)
	}
	logs := t.TempDir()
	h.script(t, []string{"NPROC=3", "LOG_DIR=" + logs}, filepath.Join(h.root, "examples", "torchrun", "launch.sh"), bin, "-data", h.data, "-epochs", "2", "-batch", "64")
	text := catFiles(t, logs, "*/attempt_0/*/stdout.log")
	var batches, rows [launcherWorld][2]int64
	n := 0
	for _, m := range loaderLine.FindAllStringSubmatch(text, -1) {
		rank, _ := strconv.Atoi(m[1])
		epoch, _ := strconv.Atoi(m[3])
		if m[2] != fmt.Sprint(launcherWorld) || rank >= launcherWorld || epoch > 1 {
			t.Fatalf("loader: %q", m[0])
		}
		batches[rank][epoch], _ = strconv.ParseInt(m[4], 10, 64)
		rows[rank][epoch], _ = strconv.ParseInt(m[5], 10, 64)
		n++
	}
	if n != 2*launcherWorld {
		t.Fatalf("loader: %d lines of ranks and epochs, want %d:\n%s", n, 2*launcherWorld, text)
	}
	perRank := make([]int64, launcherWorld)
	for r := range launcherWorld {
		// True whatever the split: an epoch is the same share in rows and
		// batches as the next, and no rank is empty.
		if rows[r][0] != rows[r][1] || batches[r][0] != batches[r][1] || rows[r][0] == 0 {
			t.Errorf("loader: rank %d got %v rows in %v batches in its two epochs", r, rows[r], batches[r])
		}
		perRank[r] = rows[r][0]
	}
	sum := sumOf(perRank)
	var steps []int64
	for r := range launcherWorld {
		steps = append(steps, batches[r][0])
	}
	t.Logf("loader under torchrun: rows per rank per epoch %v (sum %d, dataset %d), batches per rank per epoch %v", perRank, sum, h.total, steps)
	union := "yes"
	if sum != h.total {
		union = fmt.Sprintf("no: %d rows over the ranks", sum)
		t.Errorf("loader: the ranks read %d rows an epoch together, the dataset has %d", sum, h.total)
	}
	lo, hi := slices.Min(perRank), slices.Max(perRank)
	if float64(hi) > 1.05*float64(lo) {
		t.Errorf("loader: rows per rank %v: the largest share is more than 1.05 times the smallest", perRank)
	}
	if slices.Min(steps) != slices.Max(steps) {
		t.Errorf("loader: batches per rank per epoch %v differ: a data-parallel job would hang", steps)
	}
	h.table = append(h.table, launcherRow{launcher: fmt.Sprintf("torchrun loader (batches/epoch %v)", steps), world: launcherWorld,
		rows: perRank, maxMin: float64(hi) / float64(max(lo, 1)), union: union, requeue: "-", committed: "-"})
}

// report prints the table, and writes it to $ROWFLOW_LAUNCHERS_TABLE if set.
func (h *launcherHarness) report(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "| launcher | ranks | rows per rank | max/min | union == serial | committed | kill and requeue |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|\n")
	for _, r := range h.table {
		fmt.Fprintf(&b, "| %s | %d | %v | %.3f | %s | %s | %s |\n", r.launcher, r.world, r.rows, r.maxMin, r.union, r.committed, r.requeue)
	}
	t.Logf("launchers, %d rows in %s:\n%s", h.total, h.data, b.String())
	if path := os.Getenv("ROWFLOW_LAUNCHERS_TABLE"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}
