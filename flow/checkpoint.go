package flow

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/rowflow/rowflow/internal/run/epoch"
)

// checkpointVersion is the version of the [Checkpoint] encoding that
// this package writes. It reads only this version. Version 3 added the
// positions made by [At]; version 4 the partitions a cursor set had
// started past its first undelivered one.
const checkpointVersion = 4

// Checkpoint is a position in the stream of a pipeline, and the one
// value a run starts from ([Pipeline.Resume]). There are two kinds:
//
//   - A checkpoint taken by a [Tracker] in a run: where its consumer was,
//     and what the run's stateful stages need to go on from there. It is
//     a few integers per stage, never the rows they hold, so it is cheap
//     to take, store and send. It resumes only the pipeline it was taken
//     from (the same [Pipeline.Fingerprint]); a refusal names what
//     differs.
//   - A position counted in items, made by [At]: item k of epoch e of
//     whatever pipeline starts from it.
//
// A tracker that follows a [CursorSet] takes the position of the whole
// set: the first partition not wholly delivered, as above, and each later
// partition a cursor had started, with how many of its items were
// delivered and which cursor held it (see [Cursors]).
//
// A checkpoint is opaque: encode it as JSON ([Checkpoint.MarshalJSON]),
// which carries a checksum, and decode it with
// [Checkpoint.UnmarshalJSON], which refuses one that is damaged or was
// edited. It does not depend on the parallelism: only partition numbers
// and counts of items cross it, so a checkpoint taken at one parallelism
// resumes under any other.
type Checkpoint struct {
	version     int
	fingerprint string
	// part is the partition being delivered and delivered how many of
	// its items the consumer had: every item of an earlier partition was
	// delivered, and none of a later one. Before the first item, part is
	// math.MinInt64.
	part, delivered int64
	// stages holds the state of each stage that keeps rows across
	// partitions, in pipeline order.
	stages []stageState
	// definition describes what the fingerprint covers, part by part
	// ("seed", "source", "stage 2", "epochs", "rank", …), each as label,
	// value and a hash of its settings separated by tabs, so that a
	// refused Resume can say what differs.
	definition []string
	// at is the position of a checkpoint made by At.
	at *seekSpec
	// cursors is the number of cursors of the set the checkpoint was
	// taken from, 0 for another consumer; held lists, in partition order,
	// the partitions from part on that its cursors had started.
	cursors int
	held    []heldPart
}

// heldPart is a partition a cursor of a set had started when the set's
// checkpoint was taken.
type heldPart struct {
	Part      int64 `json:"part"`
	Delivered int64 `json:"delivered"` // items handed out
	Cursor    int   `json:"cursor"`    // the cursor holding it, or -1
	Ended     bool  `json:"ended"`     // every item was handed out
}

// ckWire is a Checkpoint's JSON form.
type ckWire struct {
	Version     int          `json:"version"`
	Fingerprint string       `json:"fingerprint"`
	Part        int64        `json:"part"`
	Delivered   int64        `json:"delivered"`
	Stages      []stageState `json:"stages,omitempty"`
	Definition  []string     `json:"definition,omitempty"`
	At          *atWire      `json:"at,omitempty"`
	Cursors     int          `json:"cursors,omitempty"`
	Held        []heldPart   `json:"held,omitempty"`
	Checksum    string       `json:"checksum"`
}

type atWire struct {
	Epoch int64 `json:"epoch"`
	Item  int64 `json:"item"`
}

// At returns the position of item k of epoch e (both counted from 0):
// a pipeline resumed from it ([Pipeline.Resume]) gives first the item
// that its uninterrupted run gives k items after epoch e's first, and
// goes on from there, into later epochs. Unlike a checkpoint a [Tracker]
// takes, it belongs to no one pipeline and holds no stage's state.
//
// How far a run resumed from At(e, k) reads before its first item
// depends on the stages:
//
//   - If the source knows its partitions' row counts ([RowCounter]: a
//     slice, a generator, a Parquet dataset without a row filter) and
//     every stage gives one row per row and holds nothing
//     (Info.OneToOne: Map, MapChunks, Prefetch), the partition holding
//     item k is found from the counts: the partitions before it are
//     planned but not read, and only the items of its own before k are
//     dropped.
//   - Otherwise, if no stage holds rows across partitions (a Filter or a
//     FlatMap changes the counts, so item k cannot be found from them),
//     the run reads epoch e from its start and drops its first k items.
//   - Otherwise (a shuffle, a batcher: what they give in epoch e may
//     depend on what came before), the run reads from its start and
//     drops every item before the position. To start at a position of
//     such a pipeline without reading what comes before, resume from a
//     checkpoint a [Tracker] took there.
//
// If epoch e has no item k, the run gives no items. A negative e or k,
// or e above 2^31 - 1, is an error of the Resume.
func At(e, k int64) Checkpoint {
	return Checkpoint{version: checkpointVersion, part: math.MinInt64, at: &seekSpec{epoch: e, item: k}}
}

// stageState is one stateful stage's part of a [Checkpoint].
type stageState struct {
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
	if c.at != nil {
		return c.at.epoch
	}
	if c.part < 0 {
		return 0
	}
	return epoch.Of(c.part)
}

// position returns the consumer's position as a Mark.
func (c Checkpoint) position() Mark { return Mark{c.part, c.delivered} }

// wire returns c's JSON form, without its checksum.
func (c Checkpoint) wire() ckWire {
	w := ckWire{Version: c.version, Fingerprint: c.fingerprint, Part: c.part, Delivered: c.delivered, Stages: c.stages, Definition: c.definition,
		Cursors: c.cursors, Held: c.held}
	if c.at != nil {
		w.At = &atWire{c.at.epoch, c.at.item}
	}
	return w
}

// fromWire returns the checkpoint of the JSON form w.
func fromWire(w ckWire) Checkpoint {
	c := Checkpoint{version: w.Version, fingerprint: w.Fingerprint, part: w.Part, delivered: w.Delivered, stages: w.Stages, definition: w.Definition,
		cursors: w.Cursors, held: w.Held}
	if w.At != nil {
		c.at = &seekSpec{w.At.Epoch, w.At.Item}
	}
	return c
}

// MarshalJSON encodes c as JSON, with a nil State as null and, last, a
// "checksum": the CRC-32C of c's canonical content (see
// [Checkpoint.UnmarshalJSON]) in 8 hex digits.
func (c Checkpoint) MarshalJSON() ([]byte, error) {
	if c.version == 0 {
		return nil, errors.New("flow: the zero Checkpoint is not a position: take one with a Tracker, or make one with At")
	}
	sum, err := c.checksum()
	if err != nil {
		return nil, err
	}
	w := c.wire()
	w.Checksum = sum
	return json.Marshal(w)
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
	var v ckWire
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("flow: checkpoint: %w", err)
	}
	if v.Version != checkpointVersion {
		return fmt.Errorf("flow: checkpoint version %d: this build reads version %d", v.Version, checkpointVersion)
	}
	ck := fromWire(v)
	for i := range ck.stages {
		if string(ck.stages[i].State) == "null" {
			ck.stages[i].State = nil
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
	if raw, ok := top["held"]; ok {
		var held []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &held); err != nil {
			return fmt.Errorf("held: %w", err)
		}
		for i, h := range held {
			if err := hasFields(h, fmt.Sprintf("held partition %d of the checkpoint", i), "part", "delivered", "cursor", "ended"); err != nil {
				return err
			}
		}
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
	b := append([]byte(checksumMagic), byte(c.version))
	b = binary.AppendUvarint(b, uint64(len(c.fingerprint)))
	b = append(b, c.fingerprint...)
	b = binary.AppendVarint(b, c.part)
	b = binary.AppendVarint(b, c.delivered)
	b = binary.AppendUvarint(b, uint64(len(c.stages)))
	for _, s := range c.stages {
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
	b = appendStrings(b, c.definition)
	b = c.appendAt(b)
	b = c.appendHeld(b)
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

// checksumMagic starts the content the checksum covers, followed by the
// version, so that the checksum belongs to this format. (Version 2 had no
// At positions, version 3 no cursor sets' positions; both are refused by
// their version.)
const checksumMagic = "RFC3"

var checkpointCRC = crc32.MakeTable(crc32.Castagnoli)

// check refuses a checkpoint whose positions no run can have taken, as a
// damaged or edited one may hold.
func (c *Checkpoint) check() error {
	part := func(p int64) bool { return p >= -1 || p == math.MinInt64 }
	if a := c.at; a != nil && (a.epoch < 0 || a.item < 0 || a.epoch > maxEpochs || c.part != math.MinInt64 || c.delivered != 0 || len(c.stages) > 0) {
		return fmt.Errorf("the position At(%d, %d) is not one a run takes: need 0 <= epoch <= %d and item >= 0", a.epoch, a.item, int64(maxEpochs))
	}
	if c.delivered < 0 || c.part < 0 && c.part != math.MinInt64 || c.part == math.MinInt64 && c.delivered != 0 {
		return fmt.Errorf("the checkpoint's position (partition %d, %d delivered) is not one a run takes", c.part, c.delivered)
	}
	if err := c.checkHeld(); err != nil {
		return err
	}
	for _, s := range c.stages {
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

// appendAt appends 0, or 1 and the position of a checkpoint made by At.
func (c Checkpoint) appendAt(b []byte) []byte {
	if c.at == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, 1)
	b = binary.AppendVarint(b, c.at.epoch)
	return binary.AppendVarint(b, c.at.item)
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

// appendHeld appends the number of cursors and the held partitions.
func (c Checkpoint) appendHeld(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(c.cursors))
	b = binary.AppendUvarint(b, uint64(len(c.held)))
	for _, h := range c.held {
		b = binary.AppendVarint(b, h.Part)
		b = binary.AppendVarint(b, h.Delivered)
		b = binary.AppendVarint(b, int64(h.Cursor))
		end := uint64(0)
		if h.Ended {
			end = 1
		}
		b = binary.AppendUvarint(b, end)
	}
	return b
}

// checkHeld refuses held partitions that no cursor set leaves: out of
// order, before the first undelivered partition, held by a cursor the
// set does not have or by two, or ended while held.
func (c *Checkpoint) checkHeld() error {
	if c.cursors < 0 || c.at != nil && c.cursors != 0 {
		return fmt.Errorf("the checkpoint's number of cursors, %d, is not one a run takes", c.cursors)
	}
	if len(c.held) == 0 {
		return nil
	}
	if c.cursors < 1 || c.at != nil || c.part == math.MinInt64 {
		return fmt.Errorf("the checkpoint lists %d partitions held by cursors but is not one of a cursor set", len(c.held))
	}
	by := map[int]bool{}
	for i, h := range c.held {
		bad := h.Delivered < 0 || h.Part < c.part || i > 0 && h.Part <= c.held[i-1].Part ||
			h.Cursor < -1 || h.Cursor >= c.cursors || h.Ended && (h.Cursor != -1 || h.Part == c.part) ||
			h.Part == c.part && h.Delivered != c.delivered || h.Cursor >= 0 && by[h.Cursor]
		if bad {
			return fmt.Errorf("the checkpoint's partition %d (%d delivered, cursor %d of %d, ended %v) is not one a cursor set leaves", h.Part, h.Delivered, h.Cursor, c.cursors, h.Ended)
		}
		by[h.Cursor] = true
	}
	return nil
}
