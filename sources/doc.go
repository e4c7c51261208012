// Package sources holds the inputs of a rowflow pipeline, each a
// [flow.Source] to start a pipeline with [flow.From].
//
// Every source splits its input into partitions numbered in serial order
// and gives each row a row ID by the rules of package [rowid]: the row's
// ordinal in its input combined with an ID of that input, so a row has the
// same ID whatever the parallelism. Sources are lazy: nothing is read until
// a run starts, and every run reads the same partitions again.
//
// Options are checked when the source is built; a bad option makes
// [flow.From] keep the error, which the run then returns.
package sources
