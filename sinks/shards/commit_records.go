package shards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// The records' integrity: see "Records and checksums" in the package
// documentation. Every record type has a checksum field (sealable);
// decodeRecord decodes and checks the checksum, after the caller checked
// the version, and before it checks the fields.

// checksumPrefix starts a record's checksum.
const checksumPrefix = "sha256:"

// sealable is a record with a checksum field.
type sealable interface {
	checksumField() *string
}

// checksumOf returns the checksum of r's content: of the encoding of
// what a reader of r's encoding decodes, which is r's encoding itself
// unless r holds strings that are not valid UTF-8 (JSON writes each bad
// byte as U+FFFD).
func checksumOf(r sealable) (string, error) {
	p := r.checksumField()
	saved := *p
	*p = ""
	b, err := json.Marshal(r)
	*p = saved
	if err != nil {
		return "", err
	}
	read := reflect.New(reflect.TypeOf(r).Elem()).Interface()
	if err := json.Unmarshal(b, read); err != nil {
		return "", err
	}
	if b, err = json.Marshal(read); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return checksumPrefix + hex.EncodeToString(sum[:]), nil
}

// seal sets r's checksum.
func seal(r sealable) error {
	sum, err := checksumOf(r)
	if err != nil {
		return err
	}
	*r.checksumField() = sum
	return nil
}

// encodeRecord seals r and returns it as it is written: indented JSON and
// a newline.
func encodeRecord(r sealable) ([]byte, error) {
	if err := seal(r); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// recordVersion returns the format version of the record b.
func recordVersion(b []byte) (int, error) {
	var v struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, fmt.Errorf("not a JSON record (damaged?): %w", err)
	}
	if v.Version == nil {
		return 0, errors.New("no format version")
	}
	return *v.Version, nil
}

// decodeRecord decodes the record b into r, refusing unknown fields and
// anything after the record, and checks its checksum. The caller checked
// its version.
func decodeRecord(b []byte, r sealable) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(r); err != nil {
		return fmt.Errorf("damaged or edited: %w", err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errors.New("damaged or edited: data after the record")
	}
	got := *r.checksumField()
	if got == "" {
		return errors.New("no checksum: every record of this version has one; it was edited, or not written by rowflow")
	}
	want, err := checksumOf(r)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("checksum %s does not match its content, whose checksum is %s: the record was edited or damaged", got, want)
	}
	return nil
}
