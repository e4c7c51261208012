// Package shards writes a pipeline's output as a sharded dataset in a
// directory, and commits it: the sinks [Parquet] (of structs, records or
// column batches), [JSONL] and [CSV], each a [flow.Sink] to end a
// pipeline with [flow.Pipeline.To], the manifests they write, and [Commit], which checks
// that the ranks of a job wrote one complete dataset.
//
// The writers are one package because they share everything but the
// encoding of a file: one option set ([Option], taken by every shard sink,
// beside [ParquetOption], the options of the Parquet encoding),
// one manifest ([Manifest]) and one commit protocol, which [Commit] and
// [VerifyManifest] check whatever the format of the files.
//
// # Layout of a job's output
//
// Each rank of a job (see "Ranks") writes into the same directory:
//
//	part-<rank>-<seq>.parquet        data files (.jsonl, .csv for the text sinks,
//	                                 .jsonl.gz, .csv.zst, … when compressed)
//	col=value/part-<rank>-<seq>.…    the same, with PartitionBy
//	_manifest-<rank>.json            the rank's manifest
//	_manifest.json                   the dataset manifest, written by Commit
//	.part-….tmp-<random>             a file being written (hidden)
//	.progress-<rank>.json            the progress record of Continue (hidden)
//	.rank-<rank>.lock                the lock of a running rank (hidden)
//
// In every name, <rank> is the rank zero-padded to five digits: rank 0's
// manifest is _manifest-00000.json. Read the manifests with
// [ReadManifest], [VerifyManifest] and [ReadDatasetManifest].
//
// Names that start with "_" or "." are skipped by dataset discovery (the
// sources' directory search), so a reader of the directory reads the data
// files only.
//
// # File naming
//
// Files are named part-<rank>-<seq> and the format's extension, both
// numbers zero-padded to five digits (part-00000-00003.parquet), and sort
// by name in seq order while seq is below 100000. With one writer, seq
// counts the files in stream order. With [Writers](n), writer w numbers
// its files w, w+n, w+2n, …; a writer that writes fewer files than
// another leaves gaps. With [PartitionBy], every partition directory has
// its own sequence. A file ends when [RowsPerFile] or [BytesPerFile] says
// so; by default each writer writes one file.
//
// # Partitioning
//
// With [PartitionBy], rows go to dir/col=value/…. Column names and values
// are escaped with Hive's %XX escapes (upper-case hex), so that a
// directory name can hold any value and is decoded by url.PathUnescape:
// control characters (NUL included), DEL, the characters
// " # % ' * / : < = > ? [ \ ] ^ { | } ~, bytes that are not valid UTF-8,
// and every '.' of a value that is "." or of a run of two or more dots. A
// column name starting with '.' or '_' has that character escaped, so
// that dataset discovery does not skip the directory. The empty value
// (and a nil pointer) is __HIVE_DEFAULT_PARTITION__; the value
// "__HIVE_DEFAULT_PARTITION__" itself is escaped to stay distinct. A
// value longer than 128 bytes escaped is cut and suffixed with '~' and 32
// hex digits of its SHA-256, so that it stays distinct and the name
// short; the manifest records every file's exact values
// ([ManifestFile].Partition).
//
// # The manifest
//
// A rank's [Manifest], _manifest-<rank>.json, is its commit record: it is
// written after every data file of the run is in place, so its presence
// means the run completed, and it lists exactly the rank's files, with
// each file's size, SHA-256, row count and first and last row IDs. Its
// content is deterministic: nothing in it depends on time, the machine or
// the parallelism of the pipeline. [ReadManifest] reads it;
// [VerifyManifest] checks it against the files on disk.
//
// # The commit protocol and its guarantees
//
// Each file is written under a hidden temporary name in its final
// directory (.part-….parquet.tmp-<random>) and fsynced when complete.
// When the run succeeds, every file is renamed to its final name, the
// directories are fsynced, and the manifest is written last, the same
// way (temporary name, fsync, rename, fsync of the directory): its rename
// is the commit point. When the run fails or is cancelled, the sink
// removes its temporary files and the directories it created, if empty,
// and fsyncs what it changed: no file of a failed run ever has a final
// name, and the directory is left as it was (but see [Overwrite]). Files
// are created with mode 0644 less the umask, as os.Create gives.
//
// A run killed at any moment (SIGKILL, a lost machine) and started again
// ends with the output an uninterrupted run writes, byte for byte, with
// no option needed (with [Continue], the rerun goes on from the last file
// the killed run completed instead): the rerun removes the hidden
// temporary files of the rank (those of other ranks are left alone),
// writes its files again, and at its commit finds the files that a commit
// interrupted before its manifest left under final names. Each such file
// must hold exactly the bytes the rerun wrote under that name: it is
// kept, and the rerun's copy dropped. A rerun of a rank that has
// committed, with the same fingerprint, is checked the same way and
// changes nothing on disk when its output is the same: a retried rank (a
// replaced pod with the same index) never duplicates or alters output.
// The run fails, leaving the directory as it was, if a file of the rank
// already there holds other bytes or is not one the run writes (the
// input changed, or the pipeline is not deterministic: an Unordered stage
// upstream), and before writing anything if the rank's manifest is of
// another pipeline (another fingerprint) or of another manifest version.
// [Overwrite] replaces the output in those cases.
//
// Two runs of one rank at once in one directory would mix their files: a
// run holds an exclusive lock (flock) on the hidden file
// .rank-<rank>.lock from its start to the end of its commit, and a second
// run of the rank fails at once with an error that says so. The kernel
// drops the lock of a killed process. Where flock is not available
// (Windows, some network file systems), runs are not excluded, and a
// scheduler must not start a replacement while the old process may still
// run.
//
// # Output in a bucket
//
// The output directory may be an s3://bucket/prefix URL (credentials and
// endpoint from the AWS variables and shared files), for the sinks and
// for [Commit], [VerifyManifest] and [ReadManifest]. Objects have no
// rename: each file is staged locally and uploaded under its final key
// once complete, and the rank's manifest is put last, conditionally
// (If-None-Match), so that no object is partial and a manifest lists
// only complete objects; but a rank's objects are listed before its
// manifest is there, so a reader that must see a whole job reads it
// after Commit. A rerun overwrites the rank's unlisted objects with the
// same bytes and removes those it does not write; a failed run removes
// what it uploaded, best effort; with Overwrite, the old manifest is
// removed when the run starts; with [Continue], the progress record is
// an object put after the upload of each file it lists; no lock excludes
// two runs of one rank. See "Output in a bucket" in output_bucket.go.
//
// # Ranks
//
// The ranks of a job each run the pipeline with flow's WithRank(r, world)
// and write into one directory; a sink reads the rank and world from its
// [flow.Env] (rank 0 of 1 without WithRank). Data files and manifests
// are named by the rank, and a run touches only its own rank's files, so
// ranks do not coordinate while they write. A rank's manifest records its
// rank, its world and its job ([Manifest].Job: the pipeline's identity
// without the rank). Once every rank has finished, one process calls
// [Commit], which checks that the ranks 0 to world-1 all finished, were
// written for this world, are of one job and form one dataset, that
// there is no other data, and that no row is written twice (see
// [Commit]), and writes the [DatasetManifest], _manifest.json, the same
// way as a rank's manifest.
//
// # Continuation
//
// A run with [Continue] records, each time it completes a file, the files
// it has completed (still under their temporary names) and the pipeline's
// checkpoint at the row where that file ended, in the hidden progress
// record .progress-<rank>.json. A run killed later is started again from
// that checkpoint, which the sink gives the run (the Continuation method
// of [flow.SinkStage]), keeps those files and writes only the rest. The
// commit removes the progress record first.
//
// # Records and checksums
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
// the totals, worlds from 1 to 65536 (the most processes a job may have)
// and ranks below them, and every path relative to the directory, clean,
// without "..", named as the rank's files are. An edited or damaged
// record is refused with an error that names its file and what is wrong;
// nothing is migrated.
//
// The files a record lists are opened, renamed and removed through an
// [os.Root] of the output directory, and must be regular files: a link,
// or a path that leads outside the directory through one, is refused.
// The checksum finds edits and damage; it is not a signature, and the
// checks of the fields and paths hold whatever it says.
//
// # Failure
//
// A bad option, or a type that the sink cannot write, is found when the
// sink is built: [flow.Pipeline.To] keeps the error, and the run fails
// with it before writing anything. Errors of a run name the directory,
// the file and, where known, the partition and row ID being written. A
// failed or cancelled run leaves no file under a final name and no
// goroutine (see "The commit protocol and its guarantees"); [Commit] and
// [VerifyManifest] name the rank and the file of each problem, up to ten
// of them.
package shards
