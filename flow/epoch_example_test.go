package flow_test

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
)

// Epochs reads the source again for every epoch; partition numbers carry the
// epoch.
func ExamplePipeline_Epochs() {
	p := flow.From(sources.Slice([]string{"a", "b", "c"}, sources.PartitionItems(2))).Epochs(2)
	for it, err := range flow.Items[string](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(it.Value, "epoch", it.Epoch())
	}
	// Output:
	// a epoch 0
	// b epoch 0
	// c epoch 0
	// a epoch 1
	// b epoch 1
	// c epoch 1
}
