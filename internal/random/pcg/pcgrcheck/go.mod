module github.com/rowflow/rowflow/internal/random/pcg/pcgrcheck

go 1.26.0

require (
	github.com/dgryski/go-pcgr v0.0.0-20211101192959-4b34ab9ccb8c
	github.com/rowflow/rowflow v0.0.0-00010101000000-000000000000
)

replace github.com/rowflow/rowflow => ../../../..
