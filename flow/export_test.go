package flow

import (
	"reflect"
	"slices"
)

// StageState is a test's view of a checkpoint's stage state.
type StageState = stageState

// CheckpointFields is a test's view of a checkpoint's content, which
// tests edit as a damaged or hand-edited checkpoint would be.
type CheckpointFields struct {
	Fingerprint     string
	Part, Delivered int64
	Stages          []StageState
}

// FieldsOf returns ck's content.
func FieldsOf(ck Checkpoint) CheckpointFields {
	return CheckpointFields{Fingerprint: ck.fingerprint, Part: ck.part, Delivered: ck.delivered, Stages: slices.Clone(ck.stages)}
}

// EditCheckpoint returns a copy of ck whose content edit changed, with no
// checksum to catch the change (as a checkpoint built in code would be).
func EditCheckpoint(ck Checkpoint, edit func(*CheckpointFields)) Checkpoint {
	f := FieldsOf(ck)
	edit(&f)
	ck.fingerprint, ck.part, ck.delivered, ck.stages = f.Fingerprint, f.Part, f.Delivered, f.Stages
	return ck
}

// MakeCheckpoint returns the checkpoint of a run with content f and
// definition def, as a tracker would take it.
func MakeCheckpoint(f CheckpointFields, def []string) Checkpoint {
	return Checkpoint{version: checkpointVersion, fingerprint: f.Fingerprint, part: f.Part, delivered: f.Delivered, stages: f.Stages, definition: def}
}

// Pass is withPass, for the tests.
func (p *Pipeline) Pass(k int64) *Pipeline { return p.withPass(k) }

// OutType returns the type of the values p's last stage produces.
func OutType(p *Pipeline) reflect.Type { return p.outType() }
