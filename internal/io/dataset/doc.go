// Package dataset plans the reading of a Parquet dataset: given where the
// files are and how to shuffle, repeat and split them between ranks, it yields, epoch by
// epoch, the ordered fragments (partitions) to read, each with its partition
// number. It reads no data, only file footers, and those lazily.
//
// A [Dataset] is found with [Discover]; a [Plan] is made from it with [New]
// and a [Config]; [Plan.Fragments] and [Plan.Epoch] iterate over it:
//
//	ds, err := dataset.Discover("data/")
//	plan, err := dataset.New(ds, dataset.Config{Window: 100, Seed: 42,
//		Epochs: -1, Rank: rank, World: world})
//	for frag, err := range plan.Fragments(ctx, dataset.Position{}) { ... }
//
// Only reading row-group sizes is specific to Parquet: it goes through the
// [Metadata] interface, implemented by [ParquetFooters].
//
// # Discovery
//
// Each path given to [Discover] is a file, taken as it is; a directory,
// searched recursively for files named *.parquet (or, with
// [Format.Discover], for the names the [Format] takes); or, if no such path
// exists and it contains *, ? or [, a glob pattern. A pattern's segments
// follow [path/filepath.Match], and a segment "**" matches any number of
// directories. A file the pattern matches is taken whatever its name; a
// directory it matches is searched like a directory argument.
//
// Below the directory searched, files and directories whose names start
// with "." or "_" (.DS_Store, _SUCCESS, _manifest.json, _temporary) are
// skipped, and wildcards do not match such names; a literal segment of a
// pattern, or a file named explicitly, can still name them. A path that
// yields no file is an error, and so is a directory that cannot be read;
// errors name the path.
//
// Only regular files are data files: a FIFO, device or socket named like a
// Parquet file is an error when it is found, not a read that blocks.
// Symbolic links are followed while they stay under the dataset root: a
// link to a file or a directory is read as its target, under the link's
// name, when the target, with every link on its way resolved, lies under
// the root (itself resolved); a link that leads outside the root, or a
// path through such a link, is an error naming the link and its target,
// and a directory link that leads back to a directory it lies in is an
// error too. A directory link that a glob pattern matches is walked; the
// pattern is not matched against the names below it.
//
// Files are identified by [File.RelPath], their slash-separated path
// relative to the dataset root: the directory given, the parent of a single
// file, the literal prefix of a pattern, or the deepest directory that
// contains all the paths given ([DiscoverRoot] fixes it instead, and
// relative paths given with it are relative to the root). Files are
// sorted by RelPath, compared byte by byte, so that nothing depends on the
// order in which a file system lists directories. A file found twice is
// kept once.
//
// # Hive partitioning
//
// Directory segments of RelPath of the form key=value become partition
// columns of the file's rows, as in Hive, Spark and Arrow: year=2024/
// lang=en/part-0.parquet has the columns year "2024" and lang "en". Keys and
// values are strings, unescaped from %XX; other segments are ignored. Every
// file must have the same columns in the same order, and no column may
// appear twice in one path; otherwise [Discover] fails, naming the files.
// The directory value __HIVE_DEFAULT_PARTITION__ is null ([Field.Null],
// with the value ""), while %5F_HIVE_DEFAULT_PARTITION__ is that string.
// A value that rowflow's Parquet sink had to truncate to fit a directory
// name ends in "~" and a hash ([Field.Hash]); [Partition.Resolve] takes
// the whole value from the file's key-value metadata.
// A file directly in the root has no columns, so it cannot be mixed with
// partitioned files.
//
// # Partition filters
//
// [Config.Where] prunes files by their partition values before any file
// is opened. It is a filter of package internal/filter, evaluated with
// [filter.Expr.MatchText]: a partition value is read as the kind of the
// literal it is compared with (month "07" equals the integer 7 and is less
// than 10, but differs from the string "7"), and __HIVE_DEFAULT_PARTITION__
// is null. A filter naming a column the dataset lacks makes [New] fail, and
// so does a value that does not read as its literal's kind.
//
// # Fragments
//
// A [Fragment] is a range of rows of one file. By
// default, each row group is a fragment, or, with [Config.MaxRows] n, each part
// of at most n rows of a larger row group; every row of every kept file
// belongs to exactly one fragment, empty row groups included. With
// [Config.WholeFiles] each file is one fragment. Plan order is files in RelPath
// order and, within a file, fragments in row order.
//
// A fragment gives the ordinal within its file of its first row,
// [Fragment.FirstRow], so a reader can give each row an ID that depends on
// the file and the row alone, never on the shuffle or the rank: in
// rowflow, rowid.ID{Lo: ordinal}.Combine(fileID), with fileID derived from
// [File.RelPath].
//
// # Shuffling
//
// [Config.Window] chooses one of three orders for each epoch, following
// fairseq2's fragment_shuffle_window:
//
//   - 0, the default: plan order.
//   - -1: a uniformly random permutation of all the epoch's fragments. This
//     needs every footer before the first fragment is known.
//   - k > 0: the files are shuffled, then their fragments, in that file
//     order, pass through a shuffle buffer of k fragments: when the buffer
//     is full it emits one of its fragments chosen at random; at the end it
//     is drained in random order. Footers are read as the buffer is fed, so
//     the first fragment is known once the first files holding k fragments
//     have been read. A fragment can move any distance later, but at most
//     k-1 places earlier, than in the shuffled file order. k = 1 shuffles
//     files only.
//
// fairseq2 shuffles consecutive windows of k fragments (and lets windows
// straddle epochs) rather than feeding a buffer; it also draws epoch e's
// full permutation after those of epochs before it. Here every epoch is
// planned on its own.
//
// # Epochs and partition numbers
//
// [Config.Epochs] sets a finite number of epochs, or forever. Every epoch has the
// same fragments, reordered with the epoch's own random streams. The
// fragment at index i of epoch e (counted before the split between ranks) has partition number
// e*[EpochStride] + i, so partition numbers increase along the plan, across
// epochs too, and are unique across ranks; they are not contiguous.
// [BatchPosition] maps a partition number back to its [Position].
//
// # Ranks
//
// [Config.Rank] and [Config.World] keep one rank's share of each epoch.
// Every rank plans the whole epoch in the same order (so with more than
// one rank, every footer of the epoch is read before its first fragment
// is yielded, whatever the window), then divides it, from the row counts
// alone:
//
//   - With [Config.RowRanges] (Parquet row groups, which can be read from
//     any row), the epoch's rows in order are cut into World runs whose
//     sizes differ by at most one row: rank r takes rows
//     [r*n/World, (r+1)*n/World) of the n. A fragment a cut falls in
//     becomes two pieces, one on each side.
//   - Otherwise (byte ranges of text files, whole files), each fragment
//     goes whole to a rank: largest first, to the rank with the fewest
//     rows so far. The largest rank then exceeds the smallest by at most
//     about the largest fragment, so the shares are even when each rank
//     has many fragments.
//
// The pieces of an epoch are numbered in epoch order across all ranks,
// and a piece's partition number is e*[EpochStride] + its number: numbers
// increase along the plan and are unique across ranks, and merging the
// ranks' pieces by partition number gives the whole order. With one rank
// nothing is cut, and pieces are the fragments with their own numbers.
// The ranks' rows are disjoint and their union is the epoch's. Package
// ranks reads rank and world the way torchrun, MPI, Kubernetes Indexed
// Jobs and Slurm pass them.
//
// # Resuming
//
// [Plan.Fragments] starts at any [Position], and [Plan.Epoch] plans one
// epoch: planning epoch e never depends on epochs before it, so resuming at
// epoch e costs no more than starting it. Within an epoch, the plan is
// replayed from the epoch's start and the fragments before the position are
// skipped: that reads the footers of the files fed before the position (in
// plan or shuffled file order; none with whole files) but no data, and no
// footer is read twice by one Plan.
//
// # Random streams
//
// All randomness comes from PCG-XSH-RR 64/32 streams (internal/random/pcg, the
// same streams as github.com/dgryski/go-pcgr's New and Next), one per
// (seed, epoch, purpose). With γ = 0x9e3779b97f4a7c15, mix64 the SplitMix64
// finaliser and arithmetic modulo 2^64:
//
//	k     = mix64(mix64(seed + γ) ^ (epoch + 2γ))
//	state = mix64(k ^ (purpose + 3γ))
//	seq   = mix64(k ^ (purpose + 4γ))
//	rng   = pcg.New(state, seq)
//
// The purposes are 1 for the order of files (ShuffleWindow k > 0), 2 for
// the choices of the shuffle buffer (k > 0) and 3 for the permutation of
// all fragments (-1). Every random choice among n takes exactly two outputs
// x1, x2 of its stream and is the high 64 bits of (x1<<32 | x2) * n, so
// choice d starts at output 2d. A list is shuffled by Fisher-Yates: for i
// from its last index down to 1, swap elements i and choice(i+1). The
// buffer makes one choice, among its current size, per fragment it emits.
//
// # Determinism
//
// The fragments a Plan yields, their order and every field of them are a
// function of the set of files (their RelPaths and row-group sizes), the
// partition filter and the options, and of nothing else: not of the order
// of directory listings, map iteration, time, math/rand's global source,
// GOMAXPROCS or which goroutine iterates. The same (seed, epoch) gives the
// same order on every run and machine, and replaying an epoch gives the
// same fragments as reaching it.
//
// Not guaranteed: that different seeds or epochs give different orders
// (they do with overwhelming probability once there are more than a few
// fragments, never for a single one); that the order stays the same when
// files are added, removed or renamed, or when their row groups change
// (everything after the change may move); that the order is the same
// across versions of this package if the "Random streams" section changes,
// which would be a breaking change. Footers are not re-read during the
// life of a Plan, so a file rewritten meanwhile is not noticed.
//
// # Costs
//
// [Discover] lists directories; it opens no file. [New] evaluates the
// filter on every file's partition values; it opens no file. A Plan reads
// each kept file's footer at most once and caches its row-group sizes (two
// iterations racing for the same uncached file may both read it). Memory is
// O(files) for the plan, plus O(fragments of an epoch) with
// window -1 or O(k) with window k. Fragments are made as they are needed,
// so a footer that declares an enormous row count costs nothing in plan
// order or with window k, and a window -1 plan, which must see every
// fragment of an epoch, notices its context every 1024 fragments. An
// epoch may hold at most [EpochStride] fragments. Row counts are checked
// against what each file's column chunks can hold when its footer is read
// ([ParquetFooters]).
package dataset
