package ranks_test

import (
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/ranks"
)

type env map[string]string

func (e env) lookup(k string) (string, bool) { v, ok := e[k]; return v, ok }

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name        string
		env         env
		opts        []ranks.Option
		rank, world int
		from        string
		err         string
	}{
		{name: "none", rank: 0, world: 1, from: "none"},
		{name: "empty is unset", env: env{"RANK": "", "WORLD_SIZE": ""}, rank: 0, world: 1, from: "none"},
		{name: "declared world of one", opts: []ranks.Option{ranks.World(1)}, rank: 0, world: 1, from: "none"},
		{name: "declared world, no rank", opts: []ranks.Option{ranks.World(4)}, err: "a world of 4 was declared but no variable gives this process's rank"},

		{name: "explicit", env: env{"RANK": "1", "WORLD_SIZE": "2"}, opts: []ranks.Option{ranks.Explicit(3, 4)}, rank: 3, world: 4, from: "explicit"},
		{name: "explicit ignores a broken environment", env: env{"RANK": "x"}, opts: []ranks.Option{ranks.Explicit(0, 2)}, rank: 0, world: 2, from: "explicit"},
		{name: "explicit out of range", opts: []ranks.Option{ranks.Explicit(2, 2)}, err: "Explicit(2, 2): need 0 <= rank < world"},
		{name: "explicit with its world declared", opts: []ranks.Option{ranks.World(4), ranks.Explicit(3, 4)}, rank: 3, world: 4, from: "explicit"},
		{name: "explicit against a declared world", opts: []ranks.Option{ranks.Explicit(3, 4), ranks.World(2)}, err: "Explicit(3, 4) and World(2) disagree"},
		{name: "declared world against explicit", opts: []ranks.Option{ranks.World(2), ranks.Explicit(1, 4)}, err: "Explicit(1, 4) and World(2) disagree"},
		{name: "world zero", opts: []ranks.Option{ranks.World(0)}, err: "World(0): must be from 1 to 65536"},

		{name: "torchrun", env: env{"RANK": "3", "WORLD_SIZE": "8"}, rank: 3, world: 8, from: "RANK/WORLD_SIZE"},
		{name: "torchrun rank alone", env: env{"RANK": "3"}, err: "RANK set without WORLD_SIZE: the convention needs both"},
		{name: "torchrun world alone", env: env{"WORLD_SIZE": "3"}, err: "WORLD_SIZE set without RANK: the convention needs both"},
		{name: "torchrun rank too large", env: env{"RANK": "8", "WORLD_SIZE": "8"}, err: "RANK/WORLD_SIZE gives rank 8 of world 8"},
		{name: "torchrun negative", env: env{"RANK": "-1", "WORLD_SIZE": "8"}, err: "rank -1 of world 8"},
		{name: "torchrun world zero", env: env{"RANK": "0", "WORLD_SIZE": "0"}, err: "rank 0 of world 0"},
		{name: "torchrun not a number", env: env{"RANK": "one", "WORLD_SIZE": "2"}, err: `RANK="one" is not an integer`},
		{name: "torchrun against declared", env: env{"RANK": "1", "WORLD_SIZE": "2"}, opts: []ranks.Option{ranks.World(3)},
			err: "RANK/WORLD_SIZE gives a world of 2, but a world of 3 was declared"},
		{name: "torchrun with declared", env: env{"RANK": "1", "WORLD_SIZE": "2"}, opts: []ranks.Option{ranks.World(2)}, rank: 1, world: 2, from: "RANK/WORLD_SIZE"},

		{name: "open mpi", env: env{"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "6"}, rank: 5, world: 6, from: "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE"},
		{name: "open mpi partial", env: env{"OMPI_COMM_WORLD_SIZE": "6"}, err: "OMPI_COMM_WORLD_SIZE set without OMPI_COMM_WORLD_RANK: the convention needs both"},
		{name: "open mpi out of range", env: env{"OMPI_COMM_WORLD_RANK": "6", "OMPI_COMM_WORLD_SIZE": "6"}, err: "rank 6 of world 6"},
		{name: "open mpi bad", env: env{"OMPI_COMM_WORLD_RANK": "1.5", "OMPI_COMM_WORLD_SIZE": "6"}, err: `OMPI_COMM_WORLD_RANK="1.5" is not an integer`},

		{name: "pmi", env: env{"PMI_RANK": "0", "PMI_SIZE": "3"}, rank: 0, world: 3, from: "PMI_RANK/PMI_SIZE"},
		{name: "pmi partial", env: env{"PMI_RANK": "0"}, err: "PMI_RANK set without PMI_SIZE: the convention needs both"},
		{name: "pmi with open mpi", env: env{"PMI_RANK": "2", "PMI_SIZE": "3", "OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "3"},
			rank: 2, world: 3, from: "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE"},
		{name: "pmi against open mpi", env: env{"PMI_RANK": "1", "PMI_SIZE": "3", "OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "3"},
			err: "inconsistent environment: OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE gives rank 2 of 3, PMI_RANK/PMI_SIZE gives rank 1 of 3"},

		{name: "kubernetes", env: env{"JOB_COMPLETION_INDEX": "4"}, opts: []ranks.Option{ranks.World(5)}, rank: 4, world: 5, from: "JOB_COMPLETION_INDEX"},
		{name: "kubernetes undeclared", env: env{"JOB_COMPLETION_INDEX": "4"}, err: "JOB_COMPLETION_INDEX=4 is set but no world was declared"},
		{name: "kubernetes out of range", env: env{"JOB_COMPLETION_INDEX": "5"}, opts: []ranks.Option{ranks.World(5)}, err: "JOB_COMPLETION_INDEX gives rank 5 of world 5"},
		{name: "kubernetes bad", env: env{"JOB_COMPLETION_INDEX": "a"}, opts: []ranks.Option{ranks.World(5)}, err: `JOB_COMPLETION_INDEX="a" is not an integer`},

		{name: "slurm", env: env{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, rank: 2, world: 4, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"},
		{name: "slurm from 1", env: env{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4",
			"SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"}, rank: 3, world: 4, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"},
		{name: "slurm step", env: env{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "8",
			"SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "14", "SLURM_ARRAY_TASK_STEP": "2"}, rank: 3, world: 8, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"},
		{name: "slurm irregular list", env: env{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3",
			"SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "1"}, err: "is not one of a regular range"},
		{name: "slurm off step", env: env{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_TASK_STEP": "2"}, err: "is not one of a regular range"},
		{name: "slurm min above id", env: env{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}, err: "is not one of a regular range"},
		{name: "slurm ids from 1 without min", env: env{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, err: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT gives rank 4 of world 4"},
		{name: "slurm count alone", env: env{"SLURM_ARRAY_TASK_COUNT": "4"}, err: "SLURM_ARRAY_TASK_COUNT set without SLURM_ARRAY_TASK_ID: the convention needs both"},
		{name: "slurm min alone", env: env{"SLURM_ARRAY_TASK_MIN": "1"}, err: "SLURM_ARRAY_TASK_MIN/MAX/STEP set without"},
		{name: "slurm bad step", env: env{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_STEP": "two"}, err: `SLURM_ARRAY_TASK_STEP="two" is not an integer`},

		// Slurm tasks. The environments are those Slurm 22.05 gives (see
		// examples/slurm/README.md): a step has SLURM_STEP_ID and
		// SLURM_STEP_NUM_TASKS; a batch script has SLURM_PROCID=0 and,
		// with --ntasks, SLURM_NTASKS, but no step.
		{name: "srun task", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "2", "SLURM_NTASKS": "3", "SLURM_STEP_NUM_TASKS": "3", "SLURM_JOB_ID": "7"},
			rank: 2, world: 3, from: "SLURM_PROCID/SLURM_NTASKS"},
		{name: "srun task, no step count", env: env{"SLURM_STEP_ID": "1", "SLURM_PROCID": "0", "SLURM_NTASKS": "2"}, rank: 0, world: 2, from: "SLURM_PROCID/SLURM_NTASKS"},
		{name: "srun task without ntasks", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1"}, err: "SLURM_STEP_ID is set (a Slurm step) but SLURM_NTASKS is not"},
		{name: "srun step without procid", env: env{"SLURM_STEP_ID": "0", "SLURM_NTASKS": "3"}, err: "SLURM_STEP_ID is set (a Slurm step) but SLURM_PROCID is not"},
		{name: "srun task counts disagree", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "3", "SLURM_STEP_NUM_TASKS": "2"},
			err: "SLURM_NTASKS=3 and SLURM_STEP_NUM_TASKS=2 disagree"},
		{name: "srun task out of range", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "3", "SLURM_NTASKS": "3"}, err: "SLURM_PROCID/SLURM_NTASKS gives rank 3 of world 3"},
		{name: "srun task bad", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "x", "SLURM_NTASKS": "3"}, err: `SLURM_PROCID="x" is not an integer`},
		{name: "srun task above MaxWorld", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "0", "SLURM_NTASKS": "65537"}, err: "gives a world of 65537, more than the 65536"},
		{name: "batch script of one task", env: env{"SLURM_JOB_ID": "4", "SLURM_PROCID": "0"}, rank: 0, world: 1, from: "none"},
		{name: "batch script of ntasks=1", env: env{"SLURM_JOB_ID": "4", "SLURM_PROCID": "0", "SLURM_NTASKS": "1"}, rank: 0, world: 1, from: "none"},
		{name: "batch script of ntasks=3", env: env{"SLURM_JOB_ID": "1", "SLURM_PROCID": "0", "SLURM_NTASKS": "3", "SLURM_NPROCS": "3"},
			err: "SLURM_PROCID=0, SLURM_NTASKS=3 but SLURM_STEP_ID is not set: this is a Slurm batch script"},
		{name: "procid outside a step", env: env{"SLURM_PROCID": "2"}, err: "SLURM_PROCID=2, SLURM_NTASKS=0 but SLURM_STEP_ID is not set"},
		{name: "mpirun in a batch script of ntasks=3", env: env{"SLURM_JOB_ID": "1", "SLURM_PROCID": "0", "SLURM_NTASKS": "3",
			"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "3"}, rank: 2, world: 3, from: "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE"},
		{name: "array task with ntasks=3, no srun", env: env{"SLURM_PROCID": "0", "SLURM_NTASKS": "3", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"},
			rank: 1, world: 2, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"},
		{name: "srun step in an array task", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "3",
			"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"},
			rank: 4, world: 12, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT+SLURM_PROCID/SLURM_NTASKS"},
		{name: "srun step in an array task, only the step", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "3",
			"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, opts: []ranks.Option{ranks.Only("SLURM_PROCID")},
			rank: 1, world: 3, from: "SLURM_PROCID/SLURM_NTASKS"},
		{name: "srun step in an array above MaxWorld", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "0", "SLURM_NTASKS": "1024",
			"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1024"}, err: "gives a world of 1048576, more than the 65536"},
		// An array rank far out of range composed with a step's task used
		// to overflow into a valid rank (2^62*4+1 is 1 mod 2^64).
		{name: "srun step in an array task out of range", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "4",
			"SLURM_ARRAY_TASK_ID": "4611686018427387904", "SLURM_ARRAY_TASK_COUNT": "2"},
			err: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT gives rank 4611686018427387904 of world 2"},
		// MAX-MIN used to overflow to -1, which agreed with a count of 1.
		{name: "slurm max overflowing", env: env{"SLURM_ARRAY_TASK_ID": "-9223372036854775808", "SLURM_ARRAY_TASK_COUNT": "1",
			"SLURM_ARRAY_TASK_MIN": "-9223372036854775808", "SLURM_ARRAY_TASK_MAX": "9223372036854775807", "SLURM_ARRAY_TASK_STEP": "2"},
			err: "is not one of a regular range"},
		{name: "slurm id minus min overflowing", env: env{"SLURM_ARRAY_TASK_ID": "9223372036854775807", "SLURM_ARRAY_TASK_COUNT": "2",
			"SLURM_ARRAY_TASK_MIN": "-1"}, err: "gives rank 9223372036854775807 of world 2"},
		{name: "pmi2 under srun in an array task", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "3", "PMI_RANK": "1", "PMI_SIZE": "3",
			"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}, rank: 4, world: 6, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT+SLURM_PROCID/SLURM_NTASKS"},
		{name: "pmix under srun in an array task", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "2", "SLURM_NTASKS": "3", "PMIX_RANK": "2",
			"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}, rank: 5, world: 6, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT+SLURM_PROCID/SLURM_NTASKS"},
		{name: "pmi against srun in an array task", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "3", "PMI_RANK": "2", "PMI_SIZE": "3",
			"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}, err: "inconsistent environment: PMI_RANK/PMI_SIZE gives rank 2 of 3"},
		{name: "pmix alone in a batch script of ntasks=3", env: env{"PMIX_RANK": "1", "SLURM_PROCID": "0", "SLURM_NTASKS": "3"},
			err: "PMIX_RANK=1 is set but nothing gives the world"},
		{name: "pmi2 under srun", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "3", "PMI_RANK": "1", "PMI_SIZE": "3"},
			rank: 1, world: 3, from: "PMI_RANK/PMI_SIZE"},
		{name: "torchrun under srun, one task per node", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "2",
			"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4"}, rank: 5, world: 8, from: "RANK/WORLD_SIZE"},
		{name: "torchrun under srun, wrong node", env: env{"SLURM_STEP_ID": "0", "SLURM_PROCID": "0", "SLURM_NTASKS": "2",
			"RANK": "5", "WORLD_SIZE": "8"}, err: "inconsistent environment: RANK/WORLD_SIZE gives rank 5 of 8, SLURM_PROCID/SLURM_NTASKS gives rank 0 of 2"},
		{name: "torchrun standalone in an array task", env: env{"RANK": "1", "WORLD_SIZE": "3", "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"},
			err: "inconsistent environment"},

		// torchrun's local ranks.
		{name: "torchrun local", env: env{"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4"}, rank: 5, world: 8, from: "RANK/WORLD_SIZE"},
		{name: "torchrun local partial", env: env{"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "1"}, err: "LOCAL_RANK set without LOCAL_WORLD_SIZE"},
		{name: "torchrun local alone", env: env{"LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "4"}, err: "LOCAL_RANK and LOCAL_WORLD_SIZE set without RANK and WORLD_SIZE"},
		{name: "torchrun local rank too large", env: env{"RANK": "5", "WORLD_SIZE": "8", "LOCAL_RANK": "4", "LOCAL_WORLD_SIZE": "4"}, err: "LOCAL_RANK=4, LOCAL_WORLD_SIZE=4 do not fit"},
		{name: "torchrun local above rank", env: env{"RANK": "1", "WORLD_SIZE": "8", "LOCAL_RANK": "2", "LOCAL_WORLD_SIZE": "4"}, err: "do not fit RANK=1, WORLD_SIZE=8"},
		{name: "torchrun node block past the world", env: env{"RANK": "7", "WORLD_SIZE": "8", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "4"}, err: "do not fit RANK=7"},
		{name: "torchrun local world above world", env: env{"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "3"}, err: "do not fit"},

		// PMIx.
		{name: "pmix with open mpi", env: env{"PMIX_RANK": "2", "OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "3"},
			rank: 2, world: 3, from: "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE"},
		{name: "pmix against open mpi", env: env{"PMIX_RANK": "1", "OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "3"},
			err: "OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE gives rank 2 of 3, PMIX_RANK (world from OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE) gives rank 1 of 3"},
		{name: "pmix declared", env: env{"PMIX_RANK": "3"}, opts: []ranks.Option{ranks.World(4)}, rank: 3, world: 4, from: "PMIX_RANK"},
		{name: "pmix under srun", env: env{"PMIX_RANK": "1", "SLURM_STEP_ID": "0", "SLURM_PROCID": "1", "SLURM_NTASKS": "2"},
			rank: 1, world: 2, from: "PMIX_RANK (world from SLURM_PROCID/SLURM_NTASKS)"},
		{name: "pmix alone", env: env{"PMIX_RANK": "1"}, err: "PMIX_RANK=1 is set but nothing gives the world"},
		{name: "pmix out of range", env: env{"PMIX_RANK": "4"}, opts: []ranks.Option{ranks.World(4)}, err: "PMIX_RANK gives rank 4 of world 4"},

		// MaxWorld on every world read.
		{name: "torchrun above MaxWorld", env: env{"RANK": "0", "WORLD_SIZE": "65537"}, err: "RANK/WORLD_SIZE gives a world of 65537, more than the 65536"},
		{name: "torchrun at MaxWorld", env: env{"RANK": "65535", "WORLD_SIZE": "65536"}, rank: 65535, world: 65536, from: "RANK/WORLD_SIZE"},
		{name: "array above MaxWorld", env: env{"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "99999999999"}, err: "more than the 65536"},
		{name: "declared above MaxWorld", opts: []ranks.Option{ranks.World(limits.MaxWorld + 1)}, err: "World(65537): must be from 1 to 65536"},
		{name: "explicit above MaxWorld", opts: []ranks.Option{ranks.Explicit(0, limits.MaxWorld+1)}, err: "Explicit(0, 65537): more than the 65536"},

		{name: "agreeing conventions", env: env{"RANK": "1", "WORLD_SIZE": "2", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"},
			rank: 1, world: 2, from: "RANK/WORLD_SIZE"},
		{name: "disagreeing conventions", env: env{"RANK": "1", "WORLD_SIZE": "2", "JOB_COMPLETION_INDEX": "0"}, opts: []ranks.Option{ranks.World(2)},
			err: "inconsistent environment: RANK/WORLD_SIZE gives rank 1 of 2, JOB_COMPLETION_INDEX gives rank 0 of 2"},
		{name: "disagreeing worlds", env: env{"RANK": "1", "WORLD_SIZE": "2", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"},
			err: "inconsistent environment: RANK/WORLD_SIZE gives rank 1 of 2, SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT gives rank 1 of 4"},
		{name: "only picks one", env: env{"RANK": "1", "WORLD_SIZE": "2", "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"},
			opts: []ranks.Option{ranks.Only("SLURM_ARRAY_TASK_ID")}, rank: 3, world: 4, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"},
		{name: "only none", env: env{"RANK": "1", "WORLD_SIZE": "2"}, opts: []ranks.Option{ranks.Only()}, rank: 0, world: 1, from: "none"},
		{name: "only unknown", opts: []ranks.Option{ranks.Only("SLURM_JOB_ID")}, err: `Only("SLURM_JOB_ID"): unknown convention`},
		{name: "only, none set", env: env{"RANK": "1", "WORLD_SIZE": "2"}, opts: []ranks.Option{ranks.Only("PMI_RANK"), ranks.World(2)},
			err: "no variable gives this process's rank (looked for [PMI_RANK])"},
		{name: "nil option", opts: []ranks.Option{nil}, err: "nil option"},
		{name: "nil lookup", opts: []ranks.Option{ranks.Lookup(nil)}, err: "Lookup(nil)"},
	}
	for _, tt := range tests {
		opts := append([]ranks.Option{ranks.Lookup(tt.env.lookup)}, tt.opts...)
		got, err := ranks.FromEnv(opts...)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "ranks: ") {
				t.Errorf("%s: got %v, %v; want error %q", tt.name, got, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case got != ranks.Rank{Rank: tt.rank, World: tt.world, From: tt.from}:
			t.Errorf("%s: %v, want rank %d of %d (%s)", tt.name, got, tt.rank, tt.world, tt.from)
		}
	}
}

// TestFromProcessEnv reads the process's own environment by default.
func TestFromProcessEnv(t *testing.T) {
	t.Setenv("RANK", "2")
	t.Setenv("WORLD_SIZE", "5")
	got, err := ranks.FromEnv()
	if err != nil || got.Rank != 2 || got.World != 5 {
		t.Errorf("%v, %v; want rank 2 of 5", got, err)
	}
}
