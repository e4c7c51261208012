// Package sinks holds the ends of a rowflow pipeline, each a [flow.Sink] to
// end a pipeline with [flow.Pipeline.To].
//
// A sink consumes the stream in stream order, called from one goroutine
// (a sink may run goroutines of its own, as [ParquetShards] does with
// [Writers], and joins them before its run returns). Sinks that
// produce a result (a slice, a count, a digest) store it only when the run
// succeeds, replacing what the destination held: a failed or cancelled run
// leaves the destination as it was.
//
// # Records
//
// The shard sinks and [Commit] keep records in the output directory: each
// rank's [Manifest], the [DatasetManifest], and the progress record of a
// run with [Continue]. Each carries in its "checksum" field "sha256:" and
// the hex SHA-256 of its canonical content: the compact JSON of the record
// (encoding/json's Marshal of its Go type, fields in declared order) with
// the checksum empty. Reading a record checks, in order, its format
// version (a record of another version, such as one written before
// records had checksums, is refused: rewrite or commit the output again),
// its content (unknown fields refused), its checksum, and its fields one
// by one: required fields present, counts not negative and adding up to
// the totals, ranks and worlds within [ranks.MaxWorld], and every path
// relative to the directory, clean, without "..", named as the rank's
// files are. An edited or damaged record is refused with an error that
// names its file and what is wrong; nothing is migrated.
//
// The files a record lists are opened, renamed and removed through an
// [os.Root] of the output directory, and must be regular files: a link,
// or a path that leads outside the directory through one, is refused.
// The checksum finds edits and damage; it is not a signature, and the
// checks of the fields and paths hold whatever it says.
package sinks
