package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
)

// seal returns m with its checksum set as package shards documents:
// "sha256:" and the hex SHA-256 of the compact JSON of the manifest with
// the checksum empty.
func seal(t *testing.T, m *shards.Manifest) *shards.Manifest {
	t.Helper()
	m.Checksum = ""
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	m.Checksum = "sha256:" + hex.EncodeToString(sum[:])
	return m
}
