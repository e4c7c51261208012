package flow

import "context"

// DataFingerprinter is implemented by a source that can tell, without
// reading its rows, whether the data a run would read has changed since
// another run: a file source fingerprints each file it would read (its
// name, size and modification time, and a checksum of some of its
// contents). What the fingerprint covers is up to the source; two calls
// over unchanged data give the same text. A cache
// (operators.Cache) keys what it kept with it, so that it never replays
// rows of data that has since changed.
//
// ctx is the caller's; env is the Env of a run of the pipeline that reads
// the source.
type DataFingerprinter interface {
	DataFingerprint(ctx context.Context, env Env) (string, error)
}

// DataFingerprint returns the fingerprint of the data a run of p would
// read, as p's source reports it ([DataFingerprinter]), or "" if the
// source reports none (a slice or a generator, whose values the pipeline's
// [Pipeline.Fingerprint] covers as far as it can). A source that combines
// pipelines (operators.Concat, Interleave, Mix) reports its inputs'.
func (p *Pipeline) DataFingerprint(ctx context.Context) (string, error) {
	if p.err != nil {
		return "", p.err
	}
	d := p.src.dataFingerprinter()
	if d == nil {
		return "", nil
	}
	return d.DataFingerprint(ctx, p.env())
}
