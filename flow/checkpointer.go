package flow

import "math"

// Mark is a position in a stream: the partition numbered Part (its epoch
// in the high bits, see [Item.Epoch]), after its first Row items.
type Mark struct {
	Part int64 `json:"part"`
	Row  int64 `json:"row"`
}

// before reports whether m comes before n in a stream.
func (m Mark) before(n Mark) bool {
	return m.Part < n.Part || m.Part == n.Part && m.Row < n.Row
}

// streamStart is a Mark before every item of every stream.
var streamStart = Mark{Part: math.MinInt64}

// Checkpointer is implemented by the [Processor] of a serial stage that
// holds rows across partitions (a shuffle buffer, a batcher). It is how a
// pipeline-level checkpoint learns what such a stage needs to be resumed.
//
// The runtime calls Checkpoint from the processor's own goroutine right
// after each Push of the processor returns. It describes the processor's
// state after the chunks pushed so far: a small value that encoding/json
// can encode (a few integers, never the rows), and the Mark of the stage's
// input from which a new processor, started from that state, must be fed
// so that it gives exactly the rest of the output after those chunks.
//
// A processor started with a non-nil [Env.Resume] starts from that state
// instead of from the beginning; the runtime then feeds it its input from
// the state's input Mark on: from the first partition numbered at least
// in.Part, without the first in.Row items of partition in.Part.
type Checkpointer interface {
	Checkpoint() (state any, in Mark)
}
