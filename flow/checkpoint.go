package flow

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/rowflow/rowflow/internal/epoch"
)

// CheckpointVersion is the version of the [Checkpoint] encodings that
// this package writes. It reads only this version.
const CheckpointVersion = 2

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
	// Definition describes what the fingerprint covers, part by part
	// ("seed", "source", "stage 2", "epochs", "rank", …), each as label,
	// value and a hash of its settings separated by tabs, so that a
	// refused Resume can say what differs.
	Definition []string `json:"definition,omitempty"`
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
	return epoch.Of(c.Part)
}

// position returns the consumer's position as a Mark.
func (c Checkpoint) position() Mark { return Mark{c.Part, c.Delivered} }

// MarshalJSON encodes c as JSON, with a nil State as null and, last, a
// "checksum": the CRC-32C of c's canonical content (see
// [Checkpoint.UnmarshalJSON]) in 8 hex digits.
func (c Checkpoint) MarshalJSON() ([]byte, error) {
	type plain Checkpoint
	sum, err := c.checksum()
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		plain
		Checksum string `json:"checksum"`
	}{plain(c), sum})
}

// UnmarshalJSON decodes a checkpoint that MarshalJSON encoded, and refuses
// one that is damaged or was edited: another version, a field missing (a
// stage's "state" or "in", say) or one it does not have, or content that
// does not give its "checksum". The checksum covers the values, not the
// layout, so the JSON may be indented or its keys reordered.
func (c *Checkpoint) UnmarshalJSON(b []byte) error {
	if err := checkpointFieldsPresent(b); err != nil {
		return fmt.Errorf("flow: checkpoint: %w", err)
	}
	type plain Checkpoint
	var v struct {
		plain
		Checksum string `json:"checksum"`
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("flow: checkpoint: %w", err)
	}
	if v.Version != CheckpointVersion {
		return fmt.Errorf("flow: checkpoint version %d: this build reads version %d", v.Version, CheckpointVersion)
	}
	ck := Checkpoint(v.plain)
	for i := range ck.Stages {
		if string(ck.Stages[i].State) == "null" {
			ck.Stages[i].State = nil
		}
	}
	sum, err := ck.checksum()
	if err != nil {
		return err
	}
	if v.Checksum != sum {
		return fmt.Errorf("flow: checkpoint: damaged or edited: its checksum is %q, its content gives %q", v.Checksum, sum)
	}
	if err := ck.check(); err != nil {
		return fmt.Errorf("flow: checkpoint: %w", err)
	}
	*c = ck
	return nil
}

// checkpointFieldsPresent checks that the JSON object b has every field
// of a checkpoint, and each of its stages every field of a stage: a
// missing one would decode as a zero that no checksum tells from a
// position.
func checkpointFieldsPresent(b []byte) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return err
	}
	if err := hasFields(top, "", "version", "fingerprint", "part", "delivered"); err != nil {
		return err
	}
	if _, ok := top["checksum"]; !ok {
		return errors.New(`no "checksum" field: it was written before checkpoints carried one, or edited; take a new one`)
	}
	raw, ok := top["stages"]
	if !ok {
		return nil
	}
	var stages []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &stages); err != nil {
		return fmt.Errorf("stages: %w", err)
	}
	for i, s := range stages {
		where := fmt.Sprintf("stage %d of the checkpoint's stages", i)
		if err := hasFields(s, where, "position", "out", "in", "state"); err != nil {
			return err
		}
		for _, m := range []string{"out", "in"} {
			var mark map[string]json.RawMessage
			if err := json.Unmarshal(s[m], &mark); err != nil {
				return fmt.Errorf("%s: %q: %w", where, m, err)
			}
			if err := hasFields(mark, fmt.Sprintf("%s, its %q mark", where, m), "part", "row"); err != nil {
				return err
			}
		}
	}
	return nil
}

func hasFields(m map[string]json.RawMessage, where string, names ...string) error {
	if m == nil {
		return fmt.Errorf("%s: not a JSON object", cmp.Or(where, "checkpoint"))
	}
	for _, n := range names {
		if _, ok := m[n]; !ok {
			if where == "" {
				return fmt.Errorf("no %q field: it was edited or is not a checkpoint", n)
			}
			return fmt.Errorf("%s has no %q field: it was edited", where, n)
		}
	}
	return nil
}

// checksum returns the CRC-32C of c's canonical content, in 8 hex digits:
// every field in a fixed order, each state as compact JSON.
func (c Checkpoint) checksum() (string, error) {
	b := append([]byte(binaryMagic), byte(c.Version))
	b = binary.AppendUvarint(b, uint64(len(c.Fingerprint)))
	b = append(b, c.Fingerprint...)
	b = binary.AppendVarint(b, c.Part)
	b = binary.AppendVarint(b, c.Delivered)
	b = binary.AppendUvarint(b, uint64(len(c.Stages)))
	for _, s := range c.Stages {
		b = binary.AppendVarint(b, int64(s.Position))
		b = binary.AppendVarint(b, s.Out.Part)
		b = binary.AppendVarint(b, s.Out.Row)
		b = binary.AppendVarint(b, s.In.Part)
		b = binary.AppendVarint(b, s.In.Row)
		st, err := canonicalState(s.State)
		if err != nil {
			return "", fmt.Errorf("flow: checkpoint: the state of stage %d: %w", s.Position, err)
		}
		b = binary.AppendUvarint(b, uint64(len(st)))
		b = append(b, st...)
	}
	b = appendStrings(b, c.Definition)
	return fmt.Sprintf("%08x", crc32.Checksum(b, checkpointCRC)), nil
}

// canonicalState returns a stage state as compact JSON with HTML
// characters escaped, as encoding/json writes a json.RawMessage: the form
// it has whether the checkpoint was encoded, indented or decoded.
func canonicalState(s json.RawMessage) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	var c, h bytes.Buffer
	if err := json.Compact(&c, s); err != nil {
		return nil, err
	}
	json.HTMLEscape(&h, c.Bytes())
	return h.Bytes(), nil
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
	b = appendStrings(b, c.Definition)
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
	k := r.uvarint()
	if k > uint64(len(r.b)) {
		return errors.New("flow: checkpoint: truncated")
	}
	for range k {
		v.Definition = append(v.Definition, string(r.bytes(r.uvarint())))
	}
	if r.err != nil || len(r.b) != 0 {
		return errors.New("flow: checkpoint: truncated or trailing bytes")
	}
	if err := v.check(); err != nil {
		return fmt.Errorf("flow: checkpoint: %w", err)
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
	if c.Delivered < 0 || c.Part < 0 && c.Part != math.MinInt64 || c.Part == math.MinInt64 && c.Delivered != 0 {
		return fmt.Errorf("the checkpoint's position (partition %d, %d delivered) is not one a run takes", c.Part, c.Delivered)
	}
	for _, s := range c.Stages {
		if s.Position < 0 || s.Out.Row < 0 || s.In.Row < 0 || !part(s.Out.Part) || !part(s.In.Part) {
			return fmt.Errorf("the checkpoint's state of stage %d has marks (out %v, in %v) that no run takes", s.Position, s.Out, s.In)
		}
		if s.State == nil && (s.In != streamStart || s.Out != streamStart) {
			// A stage with nothing to resume from starts afresh, before
			// every item; marks past that are of a state that was removed.
			return fmt.Errorf("the checkpoint has no state for stage %d, but marks (out %v, in %v) past the start: its state was removed", s.Position, s.Out, s.In)
		}
	}
	return nil
}

// appendStrings appends the count of ss and each with its length.
func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}
