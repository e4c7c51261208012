// Package datasource holds what the sources of package sources and its
// format packages (sources/parquet, sources/text) share: the settings
// their options write ([Common], [Settings]), and, for the sources of
// files, the reading of a plan's fragments as partitions, the location
// of a row for an error and the fingerprint of a dataset's files.
//
// The option interfaces of those packages have exported methods whose
// parameter is a [Settings]: an option of package sources (Files, Named)
// then satisfies the option types of the format packages, while users,
// who cannot name an internal type, cannot implement them.
package datasource
