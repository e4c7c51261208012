// Package limits holds the bounds that several of rowflow's packages and
// its command check, so that each is said once. The exported functions
// and options that enforce a bound state it in their documentation, and
// their errors give its value.
package limits

// MaxWorld is the largest number of processes (ranks) a job may have.
// Every world size that rowflow reads from an argument, a flag, a
// variable or a file is checked against it before anything is allocated
// from it, so that a mistyped or hostile number is an error rather than
// an attempt to allocate for two billion ranks.
const MaxWorld = 1 << 16

// MaxWriters is the largest number of writers a shard sink takes
// (shards.Writers, the -writers flag of rowflow reshard).
const MaxWriters = 4096

// MaxParallel is the most workers flow's Pipeline.Parallel gives a
// stage: a group's queues are made for its workers when the run starts.
// flow refuses more; cmd/rowflow checks its -parallel flags against it.
const MaxParallel = 1 << 16
