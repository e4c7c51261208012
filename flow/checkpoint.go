package flow

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// CheckpointVersion is the version of the [Checkpoint] encodings that
// this package writes. It reads only this version.
const CheckpointVersion = 1

// Checkpoint is a position in a run of a pipeline: where its consumer
// was, and what the run's stateful stages need to go on from there. It is
// a few integers per stage, never the rows they hold, so it is cheap to
// take, store and send. Take one with a [Tracker]; start the rest of the
// run from it with [Pipeline.Resume].
//
// A checkpoint does not depend on the parallelism: only partition numbers
// and counts of items cross it, so a checkpoint taken at one parallelism
// resumes under any other.
type Checkpoint struct {
	// Version is CheckpointVersion.
	Version int `json:"version"`
	// Fingerprint identifies the pipeline's definition and seed
	// ([Pipeline.Fingerprint]); a checkpoint resumes only a pipeline with
	// the same one.
	Fingerprint string `json:"fingerprint"`
	// Part is the partition being delivered and Delivered how many of its
	// items the consumer had: every item of an earlier partition was
	// delivered, and none of a later one. Before the first item, Part is
	// math.MinInt64.
	Part      int64 `json:"part"`
	Delivered int64 `json:"delivered"`
	// Stages holds the state of each stage that keeps rows across
	// partitions, in pipeline order.
	Stages []StageState `json:"stages,omitempty"`
}

// StageState is one stateful stage's part of a [Checkpoint].
type StageState struct {
	// Position is the stage's position in the pipeline (see Env.Position).
	Position int `json:"position"`
	// Out is where the stage's output stood when the state was taken: a
	// processor started from State gives the stage's output from Out on.
	Out Mark `json:"out"`
	// In is where the stage's input restarts: a new processor started
	// from State is fed the input from In on.
	In Mark `json:"in"`
	// State is the JSON encoding of what the processor's
	// [Checkpointer.Checkpoint] returned; null when the stage had nothing
	// to resume from and starts afresh (In is then before everything).
	State json.RawMessage `json:"state"`
}

// Epoch returns the epoch the checkpoint was taken in.
func (c Checkpoint) Epoch() int64 {
	if c.Part < 0 {
		return 0
	}
	return EpochOf(c.Part)
}

// position returns the consumer's position as a Mark.
func (c Checkpoint) position() Mark { return Mark{c.Part, c.Delivered} }

// MarshalJSON encodes c as JSON; a nil State is encoded as null.
func (c Checkpoint) MarshalJSON() ([]byte, error) {
	type plain Checkpoint
	return json.Marshal(plain(c))
}

// UnmarshalJSON decodes a checkpoint and refuses other versions.
func (c *Checkpoint) UnmarshalJSON(b []byte) error {
	type plain Checkpoint
	var v plain
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("flow: checkpoint: %w", err)
	}
	if v.Version != CheckpointVersion {
		return fmt.Errorf("flow: checkpoint version %d: this build reads version %d", v.Version, CheckpointVersion)
	}
	for i := range v.Stages {
		if string(v.Stages[i].State) == "null" {
			v.Stages[i].State = nil
		}
	}
	*c = Checkpoint(v)
	return nil
}

// binaryMagic starts the binary encoding; oldBinaryMagic started the
// encoding before it had a checksum.
const (
	binaryMagic    = "RFC2"
	oldBinaryMagic = "RFCK"
)

var checkpointCRC = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary encodes c compactly: a magic string, the version, the
// fingerprint's 16 bytes, then varints, with each stage's state as JSON,
// and last the CRC-32C of all that, so that a damaged checkpoint is
// refused rather than resumed from a wrong position.
func (c Checkpoint) MarshalBinary() ([]byte, error) {
	fp, err := hex.DecodeString(c.Fingerprint)
	if err != nil || len(fp) != 16 {
		return nil, fmt.Errorf("flow: checkpoint: fingerprint %q is not 32 hex digits", c.Fingerprint)
	}
	b := append([]byte(binaryMagic), byte(c.Version))
	b = append(b, fp...)
	b = binary.AppendVarint(b, c.Part)
	b = binary.AppendVarint(b, c.Delivered)
	b = binary.AppendUvarint(b, uint64(len(c.Stages)))
	for _, s := range c.Stages {
		b = binary.AppendUvarint(b, uint64(s.Position))
		b = binary.AppendVarint(b, s.Out.Part)
		b = binary.AppendVarint(b, s.Out.Row)
		b = binary.AppendVarint(b, s.In.Part)
		b = binary.AppendVarint(b, s.In.Row)
		b = binary.AppendUvarint(b, uint64(len(s.State)))
		b = append(b, s.State...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, checkpointCRC)), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (c *Checkpoint) UnmarshalBinary(data []byte) error {
	if bytes.HasPrefix(data, []byte(oldBinaryMagic)) {
		return errors.New("flow: checkpoint: a binary checkpoint of an older format, without a checksum; take a new one")
	}
	if !bytes.HasPrefix(data, []byte(binaryMagic)) || len(data) < len(binaryMagic)+17+4 {
		return errors.New("flow: checkpoint: not a binary checkpoint")
	}
	sum := binary.LittleEndian.Uint32(data[len(data)-4:])
	if data = data[:len(data)-4]; crc32.Checksum(data, checkpointCRC) != sum {
		return errors.New("flow: checkpoint: damaged: its checksum does not match")
	}
	if v := int(data[len(binaryMagic)]); v != CheckpointVersion {
		return fmt.Errorf("flow: checkpoint version %d: this build reads version %d", v, CheckpointVersion)
	}
	r := &varintReader{b: data[len(binaryMagic)+17:]}
	v := Checkpoint{Version: CheckpointVersion, Fingerprint: hex.EncodeToString(data[len(binaryMagic)+1 : len(binaryMagic)+17])}
	v.Part, v.Delivered = r.varint(), r.varint()
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		return errors.New("flow: checkpoint: truncated")
	}
	for range n {
		s := StageState{Position: int(r.uvarint())}
		s.Out.Part, s.Out.Row = r.varint(), r.varint()
		s.In.Part, s.In.Row = r.varint(), r.varint()
		if k := r.uvarint(); k > 0 {
			s.State = json.RawMessage(r.bytes(k))
		}
		v.Stages = append(v.Stages, s)
	}
	if r.err != nil || len(r.b) != 0 {
		return errors.New("flow: checkpoint: truncated or trailing bytes")
	}
	*c = v
	return nil
}

type varintReader struct {
	b   []byte
	err error
}

func (r *varintReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errors.New("bad varint"), nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *varintReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errors.New("bad varint"), nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *varintReader) bytes(k uint64) []byte {
	if k > uint64(len(r.b)) {
		r.err, r.b = errors.New("short"), nil
		return nil
	}
	v := bytes.Clone(r.b[:k])
	r.b = r.b[k:]
	return v
}

// DecodeState decodes a stage's state from a checkpoint (StageState.State)
// into v strictly: a field v does not have, or anything after the one
// JSON value, is an error, so that a damaged or foreign state is refused
// rather than read as a stage's start.
func DecodeState(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("data after the state")
	}
	return nil
}

// check refuses a checkpoint whose positions no run can have taken, as a
// damaged or edited one may hold.
func (c *Checkpoint) check() error {
	part := func(p int64) bool { return p >= -1 || p == math.MinInt64 }
	if c.Delivered < 0 || c.Part < 0 && c.Part != math.MinInt64 {
		return fmt.Errorf("flow: Resume: the checkpoint's position (partition %d, %d delivered) is not one a run takes", c.Part, c.Delivered)
	}
	for _, s := range c.Stages {
		if s.Position < 0 || s.Out.Row < 0 || s.In.Row < 0 || !part(s.Out.Part) || !part(s.In.Part) {
			return fmt.Errorf("flow: Resume: the checkpoint's state of stage %d has marks (out %v, in %v) that no run takes", s.Position, s.Out, s.In)
		}
	}
	return nil
}
