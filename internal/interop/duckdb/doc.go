// Package duckdb checks rowflow's Parquet reading and writing against
// DuckDB, a second reader and writer: DuckDB writes a matrix of files that
// rowflow reads, DuckDB reads what rowflow's sink writes, and every value
// is compared.
//
// It is a module of its own, so that rowflow's users never depend on
// DuckDB (a cgo binding to a bundled static library). Run its tests from
// this directory: go test ./...
package duckdb
