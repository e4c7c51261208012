package shards

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/flow"
)

// SetFSStep sets the function called at the steps of a run's work on the
// file system (see fsStep) and returns a function that restores the
// previous one.
func SetFSStep(f func(step string)) (restore func()) {
	old := fsStep
	fsStep = f
	return func() { fsStep = old }
}

// Reseal recomputes the checksum of the record at p (a rank's manifest,
// a progress record or a dataset manifest, by its name) after a test
// edited it, and writes it back as the sinks write it.
func Reseal(p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if strings.HasPrefix(filepath.Base(p), ".progress-") {
		if b, err = resealCheckpoint(b); err != nil {
			return err
		}
	}
	var r sealable
	switch name := filepath.Base(p); {
	case strings.HasPrefix(name, ".progress-"):
		r = new(progress)
	case name == DatasetManifestName:
		r = new(DatasetManifest)
	default:
		r = new(Manifest)
	}
	if err := json.Unmarshal(b, r); err != nil {
		return err
	}
	if b, err = encodeRecord(r); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// resealCheckpoint gives the flow checkpoint inside a progress record the
// checksum of its (edited) content, as flow would encode it.
func resealCheckpoint(b []byte) ([]byte, error) {
	var v map[string]json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	var ck struct {
		Version     int               `json:"version"`
		Fingerprint string            `json:"fingerprint"`
		Part        int64             `json:"part"`
		Delivered   int64             `json:"delivered"`
		Stages      []flow.StageState `json:"stages"`
	}
	if err := json.Unmarshal(v["checkpoint"], &ck); err != nil {
		return nil, err
	}
	nb, err := json.Marshal(flow.Checkpoint{Version: ck.Version, Fingerprint: ck.Fingerprint, Part: ck.Part, Delivered: ck.Delivered, Stages: ck.Stages})
	if err != nil {
		return nil, err
	}
	v["checkpoint"] = nb
	return json.Marshal(v)
}
