package ranks_test

import (
	"fmt"

	"github.com/rowflow/rowflow/ranks"
)

// A Kubernetes Indexed Job of 4 completions: the pod of index 2 learns its
// rank from JOB_COMPLETION_INDEX and the declared completion count.
func ExampleFromEnv() {
	podEnv := map[string]string{"JOB_COMPLETION_INDEX": "2"}
	lookup := func(k string) (string, bool) { v, ok := podEnv[k]; return v, ok }
	r, err := ranks.FromEnv(ranks.World(4), ranks.Lookup(lookup))
	fmt.Println(r, err)

	// The same pod with a torchrun variable that disagrees.
	podEnv["RANK"], podEnv["WORLD_SIZE"] = "0", "4"
	_, err = ranks.FromEnv(ranks.World(4), ranks.Lookup(lookup))
	fmt.Println(err)
	// Output:
	// rank 2 of 4 (JOB_COMPLETION_INDEX) <nil>
	// ranks: inconsistent environment: RANK/WORLD_SIZE gives rank 0 of 4, JOB_COMPLETION_INDEX gives rank 2 of 4 (a launcher started inside another must give a rank within the block of the outer one's; say which to use with ranks.Only or explicit ranks)
}
