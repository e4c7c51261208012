// Package epoch packs an epoch and a partition of it into one partition
// number, as every run carries them: within epoch e, a source's partition
// numbers lie in [0, 2^Bits), and the run carries partition b as
// Part(e, b), so that partition numbers keep increasing from one epoch to
// the next. flow and operators share it; users see the epoch of an item
// through flow.Item's Epoch method.
package epoch

// Bits is the number of low bits of a partition number that number the
// partitions of one epoch; the bits above them hold the epoch.
const Bits = 32

// Max is the largest epoch: the epoch of a partition number is below
// 2^(63-Bits).
const Max = 1<<(63-Bits) - 1

// Part returns the partition number of partition b (0 <= b < 2^Bits) of
// epoch e.
func Part(e, b int64) int64 { return e<<Bits | b }

// Of returns the epoch a partition number belongs to.
func Of(part int64) int64 { return part >> Bits }

// Partition returns a partition number's partition within its epoch.
func Partition(part int64) int64 { return part & (1<<Bits - 1) }
