package sources

import "github.com/rowflow/rowflow/ranks"

// rankFromEnv reads the rank and world of a run for RankFromEnv;
// completions, if positive, declares the world.
func rankFromEnv(completions int) (rank, world int, err error) {
	var opts []ranks.Option
	if completions > 0 {
		opts = append(opts, ranks.World(completions))
	}
	r, err := ranks.FromEnv(opts...)
	return r.Rank, r.World, err
}
