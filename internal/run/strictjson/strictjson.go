// Package strictjson decodes JSON that must be exactly one value of a
// known shape, as a stage's state in a checkpoint is.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Decode decodes b into v strictly: a field v does not have, or anything
// after the one JSON value, is an error, so that a damaged or foreign
// state is refused rather than read as a stage's start.
func Decode(b []byte, v any) error {
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
