package text

// TextOrdinal is textOrdinal, the definition of a record's ordinal, for
// the package's external tests.
var TextOrdinal = textOrdinal
