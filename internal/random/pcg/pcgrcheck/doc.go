// Package pcgrcheck holds the test that checks rowflow's internal/random/pcg
// against github.com/dgryski/go-pcgr, the library its streams were first
// defined with, bit for bit. It is a module of its own so that rowflow
// does not depend on go-pcgr: go-pcgr has no go.mod, so go mod tidy loads
// its tests, whose imports the module proxy does not serve; here that
// concerns this small module only.
package pcgrcheck
