package text

import (
	"fmt"
	"unicode/utf8"

	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/io/datasource"
)

// Options are typed by the sources that take them: giving a source an
// option it does not take is a compile error. The options of package
// sources that every source of files takes (sources.Files,
// sources.Where, sources.Named, …) satisfy each of these types.
//
// The methods are exported so that the options of package sources can
// implement them; their parameter is internal, so only rowflow's packages
// can: give a source the options these packages make, not a type of your
// own.

// CSVOption configures [CSV].
type CSVOption interface {
	ApplyCSV(*datasource.Settings) error
}

// JSONLOption configures [JSONL].
type JSONLOption interface {
	ApplyJSONL(*datasource.Settings) error
}

// Option is an option of both the CSV and the JSON Lines sources.
type Option interface {
	CSVOption
	JSONLOption
}

// textConfig is the configuration of the CSV and JSON Lines sources.
type textConfig struct {
	datasource.Settings
	codec      *codec.Codec // nil: by each file's extension
	splitBytes int64
	// JSON Lines only
	allowMissing bool
	// CSV only
	comma  rune
	header []string // names given with Header: the files have no header row
	null   string   // the text of a null field (NullString)
}

// defaultPartitionBytes is the size of the byte ranges an uncompressed
// text file is split into unless [PartitionBytes] says otherwise.
const defaultPartitionBytes = 4 << 20

// buildText applies opts, each by apply, to the defaults.
func buildText[O any](name string, opts []O, apply func(O, *datasource.Settings) error) (textConfig, error) {
	c := &textConfig{Settings: datasource.NewSettings(name), splitBytes: defaultPartitionBytes, comma: ','}
	c.Format = c
	defer func() { c.Format = nil }()
	for _, o := range opts {
		if any(o) == nil {
			return *c, fmt.Errorf("sources: %s: nil option", name)
		}
		if err := apply(o, &c.Settings); err != nil {
			return *c, err
		}
	}
	return *c, nil
}

func textOf(s *datasource.Settings) *textConfig { return s.Format.(*textConfig) }

type textOption func(*textConfig) error

func (o textOption) ApplyCSV(s *datasource.Settings) error   { return o(textOf(s)) }
func (o textOption) ApplyJSONL(s *datasource.Settings) error { return o(textOf(s)) }

type csvOption func(*textConfig) error

func (o csvOption) ApplyCSV(s *datasource.Settings) error { return o(textOf(s)) }

type jsonlOption func(*textConfig) error

func (o jsonlOption) ApplyJSONL(s *datasource.Settings) error { return o(textOf(s)) }

// AllowMissingFields lets [JSONL] decode a line that has no key for a
// field of T into the field's zero value. Without it such a line is a bad
// record (failing the run, or skipped with sources.SkipBad), unless the
// field is optional: a pointer, slice, map or interface (nil when its key
// is missing), tagged omitempty or omitzero, embedded, or set from a Hive
// partition column. Keys are matched to fields as encoding/json matches
// them, in any case.
func AllowMissingFields() JSONLOption {
	return jsonlOption(func(c *textConfig) error {
		c.allowMissing = true
		return nil
	})
}

// Compression reads every file as compressed with name: "none", "gzip",
// "zstd" or "s2" (klauspost/compress; s2 in its stream format). Without
// it, each file's extension says: .gz, .zst or .zstd, .s2, or none.
// A compressed file is one partition: it cannot be split.
func Compression(name string) Option {
	return textOption(func(c *textConfig) error {
		cd, err := codec.Parse(name)
		if err != nil {
			return err
		}
		c.codec = &cd
		return nil
	})
}

// PartitionBytes sets the size of the byte ranges that an uncompressed
// file is split into (default 4 MiB): each range is a
// partition, moved to the start of the next record, so that workers read
// one file in parallel. n must be at least 1.
func PartitionBytes(n int64) Option {
	return textOption(func(c *textConfig) error {
		if n < 1 {
			return fmt.Errorf("sources: PartitionBytes(%d): must be at least 1", n)
		}
		c.splitBytes = n
		return nil
	})
}

// Comma sets the CSV field delimiter (default ','; '\t' for TSV). It
// must be a valid rune other than '"', '\r' and '\n'.
func Comma(r rune) CSVOption {
	return csvOption(func(c *textConfig) error {
		if r == 0 || r == '"' || r == '\r' || r == '\n' || !utf8.ValidRune(r) || r == utf8.RuneError {
			return fmt.Errorf("sources: Comma(%q): not a valid delimiter", r)
		}
		c.comma = r
		return nil
	})
}

// NullString sets the text of a null CSV field (default "", the empty
// field, as DuckDB and pandas read it): [CSV] gives nil for such a field
// in a [sources.Record], a null in a column batch, and a nil pointer in a
// pointer field of a struct. A field that is not a pointer takes the text
// as it is (a string field the text itself, a number field fails to parse
// it). Hive's default partition is null whatever the spelling.
func NullString(s string) CSVOption {
	return csvOption(func(c *textConfig) error {
		c.null = s
		return nil
	})
}

// Header names the CSV columns, for files that have no header row: every
// record is data, and must have len(names) fields. Without it, the first
// record of each file names its columns. The names must be distinct.
func Header(names ...string) CSVOption {
	names = append([]string(nil), names...)
	return csvOption(func(c *textConfig) error {
		if len(names) == 0 {
			return fmt.Errorf("sources: Header(): no names")
		}
		if _, j := duplicateName(names); j >= 0 {
			return fmt.Errorf("sources: Header: the name %q is given twice", names[j])
		}
		c.header = names
		return nil
	})
}
