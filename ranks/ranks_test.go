package ranks_test

import (
	"strings"
	"testing"

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
		{name: "world zero", opts: []ranks.Option{ranks.World(0)}, err: "World(0): must be at least 1"},

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

		{name: "agreeing conventions", env: env{"RANK": "1", "WORLD_SIZE": "2", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"},
			rank: 1, world: 2, from: "RANK/WORLD_SIZE"},
		{name: "disagreeing conventions", env: env{"RANK": "1", "WORLD_SIZE": "2", "JOB_COMPLETION_INDEX": "0"}, opts: []ranks.Option{ranks.World(2)},
			err: "inconsistent environment: RANK/WORLD_SIZE gives rank 1 of 2, JOB_COMPLETION_INDEX gives rank 0 of 2"},
		{name: "disagreeing worlds", env: env{"RANK": "1", "WORLD_SIZE": "2", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"},
			err: "inconsistent environment: RANK/WORLD_SIZE gives rank 1 of 2, SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT gives rank 1 of 4"},
		{name: "only picks one", env: env{"RANK": "1", "WORLD_SIZE": "2", "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"},
			opts: []ranks.Option{ranks.Only("SLURM_ARRAY_TASK_ID")}, rank: 3, world: 4, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"},
		{name: "only unknown", opts: []ranks.Option{ranks.Only("SLURM_PROCID")}, err: `Only("SLURM_PROCID"): unknown convention`},
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
