// Package ranks tells a process which share of a job it runs: its rank
// among world processes, from explicit settings or from the environment
// that the scheduler starting it sets.
//
// # Conventions
//
// A job that outgrows one machine runs as world processes ("ranks"), each
// started with the same program by a scheduler the user already has.
// rowflow follows the conventions of those schedulers rather than inventing
// its own: [FromEnv] reads them, in this order of precedence:
//
//  1. Explicit settings ([Explicit]): used as they are; the environment is
//     not read. A [World] given too must be Explicit's world.
//  2. RANK and WORLD_SIZE (torchrun, and MPI launchers that set them). When
//     torchrun's LOCAL_RANK and LOCAL_WORLD_SIZE are set they are checked:
//     0 <= LOCAL_RANK < LOCAL_WORLD_SIZE, and the node's block of ranks,
//     RANK-LOCAL_RANK onwards, fits in WORLD_SIZE. LOCAL_* without RANK
//     and WORLD_SIZE is an error.
//  3. OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE (Open MPI's mpirun).
//  4. PMI_RANK and PMI_SIZE (MPICH, Intel MPI, Slurm's srun --mpi=pmi2).
//  5. PMIX_RANK (Open MPI, srun --mpi=pmix). PMIx has no variable for the
//     world: it is the declared [World], or else the world of another
//     convention set (mpirun also sets OMPI_COMM_WORLD_SIZE); PMIX_RANK
//     alone is an error.
//  6. JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs). Kubernetes does not
//     export the Job's completion count, so the world size must be declared
//     with [World] (the Job's spec.completions).
//  7. SLURM_PROCID and SLURM_NTASKS in a Slurm step (srun, or a job step
//     of sbatch --ntasks started with srun): SLURM_STEP_ID is set, and
//     SLURM_STEP_NUM_TASKS, when set, must equal SLURM_NTASKS. A batch
//     script itself is not a task: Slurm sets SLURM_PROCID=0 there, and
//     SLURM_NTASKS=N with sbatch --ntasks=N, but no SLURM_STEP_ID, and only
//     one process runs it. Its variables are ignored when another
//     convention gives the rank (mpirun or torchrun started by the batch
//     script, or an array task); otherwise SLURM_NTASKS above 1 or
//     SLURM_PROCID other than 0 outside a step is an error, since claiming
//     rank 0 of N would leave N-1 shares unread. SLURM_NTASKS=1 or unset
//     there is a job of one process.
//  8. SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (Slurm job arrays).
//     The rank is (ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP, MIN
//     and STEP defaulting to 0 and 1, so arrays such as --array=1-8 or
//     --array=0-15:2 give ranks 0 to 7; when SLURM_ARRAY_TASK_MAX is set
//     it must agree with the count, which rejects arrays given as irregular
//     lists such as --array=1,3,7. In an srun step of an array task the
//     two compose, array-major: rank = arrayRank*SLURM_NTASKS + SLURM_PROCID
//     of world = SLURM_ARRAY_TASK_COUNT*SLURM_NTASKS, so each array task
//     holds a contiguous block of ranks, as a node does under torchrun. A
//     process cannot see the other array tasks, so every array task must
//     run steps of the same number of tasks (the script's srun -n). The
//     PMI_RANK/PMI_SIZE or PMIX_RANK that srun sets in such a step
//     (--mpi=pmi2 or pmix) number the step's tasks alone: when they agree
//     with SLURM_PROCID/SLURM_NTASKS the composed rank is used.
//
// # Agreement and errors
//
// Every convention whose variables are set is read, and they must agree:
// an MPI launcher may set both OMPI_COMM_WORLD_* and PMI_*, which then name
// the same rank. A launcher started by another, listed earlier, may have a
// larger world than the outer one's: then its rank must lie in the outer
// rank's block (torchrun with 4 processes per node under srun with one
// task per node: RANK 5 of 8 is in SLURM_PROCID 1's block of 2), and the
// inner rank is used. Nothing is ever guessed: a variable that is not an
// integer, a convention set only in part (RANK without WORLD_SIZE), a rank
// outside [0, world), a world above 65536 (the most processes a job may
// have), conventions that give ranks that do not agree, a declared [World]
// that differs from the environment's or from [Explicit]'s, and a declared
// world of more than one with no convention to give the rank are all
// errors that name the variables. Where several are wrong at once, the
// error names one of them, always the same one for the same environment:
// first a convention whose variables cannot be read (not an integer, set
// in part), the first in the order above; then what composing conventions
// needs (PMIx's world, a Slurm step within its array task); then,
// convention by convention in the order above, a rank or world out of
// range, a world other than the declared one, or a rank that does not
// agree with the first convention set. Only when no convention is set and
// no world is declared is the process rank 0 of 1: a job of one process.
//
// Empty variables count as unset. A job that runs torchrun --standalone
// inside each task of a Slurm array sees two conventions that disagree by
// design (every task's torchrun counts from 0); it says which one it means
// with [Explicit] or [Only].
package ranks

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/internal/api/limits"
)

// Rank is one process's share of a job: rank Rank of World processes,
// 0 <= Rank < World.
type Rank struct {
	Rank, World int
	// From names where the rank came from: "explicit", the variables of
	// the convention that gave it (such as "RANK/WORLD_SIZE"), or "none"
	// for a job of one process.
	From string
}

func (r Rank) String() string {
	return fmt.Sprintf("rank %d of %d (%s)", r.Rank, r.World, r.From)
}

// Option configures [FromEnv].
type Option func(*config) error

type config struct {
	world    int  // declared with World; 0: not declared
	explicit bool // Explicit was given: its rank and world follow
	xrank    int
	xworld   int
	only     []string
	lookup   func(string) (string, bool)
}

// Explicit sets the rank and world directly; the environment is then not
// read. It needs 0 <= rank < world <= 65536, the most processes a job may
// have; a [World] given too must agree.
func Explicit(rank, world int) Option {
	return func(c *config) error {
		if world < 1 || rank < 0 || rank >= world {
			return fmt.Errorf("ranks: Explicit(%d, %d): need 0 <= rank < world", rank, world)
		}
		if world > limits.MaxWorld {
			return fmt.Errorf("ranks: Explicit(%d, %d): more than the %d processes a job may have", rank, world, limits.MaxWorld)
		}
		c.xrank, c.xworld, c.explicit = rank, world, true
		return nil
	}
}

// World declares the number of processes of the job: the completion count
// of a Kubernetes Indexed Job, which the environment does not give, or a
// count the conventions found must agree with. n must be from 1 to 65536,
// the most processes a job may have.
func World(n int) Option {
	return func(c *config) error {
		if n < 1 || n > limits.MaxWorld {
			return fmt.Errorf("ranks: World(%d): must be from 1 to %d", n, limits.MaxWorld)
		}
		c.world = n
		return nil
	}
}

// Only reads just the named conventions, each named by its first variable
// (such as "RANK" or "SLURM_ARRAY_TASK_ID"); the variables of the others
// are ignored.
func Only(conventions ...string) Option {
	return func(c *config) error {
		for _, name := range conventions {
			if !slices.ContainsFunc(conventionList, func(cv convention) bool { return cv.key == name }) {
				return fmt.Errorf("ranks: Only(%q): unknown convention (known: %s)", name, strings.Join(keys(), ", "))
			}
		}
		if c.only == nil {
			c.only = []string{} // Only() reads no convention, not all of them
		}
		c.only = append(c.only, conventions...)
		return nil
	}
}

// Lookup reads variables with fn instead of [os.LookupEnv]: tests, and
// programs that pass an environment of their own, use it.
func Lookup(fn func(string) (string, bool)) Option {
	return func(c *config) error {
		if fn == nil {
			return errors.New("ranks: Lookup(nil)")
		}
		c.lookup = fn
		return nil
	}
}

// FromEnv returns this process's rank: the explicit one if given,
// otherwise the one the environment's conventions agree on, otherwise rank
// 0 of 1 if no convention is set and no world of more than one is
// declared. See the package documentation for the conventions and the
// errors.
func FromEnv(opts ...Option) (Rank, error) {
	c := config{lookup: os.LookupEnv}
	for _, o := range opts {
		if o == nil {
			return Rank{}, errors.New("ranks: nil option")
		}
		if err := o(&c); err != nil {
			return Rank{}, err
		}
	}
	if c.explicit {
		if c.world != 0 && c.world != c.xworld {
			return Rank{}, fmt.Errorf("ranks: Explicit(%d, %d) and World(%d) disagree", c.xrank, c.xworld, c.world)
		}
		return Rank{Rank: c.xrank, World: c.xworld, From: "explicit"}, nil
	}
	return c.discover()
}
