package flow

// Fingerprint returns the fingerprint a run of p sees in [Env]: 32 hex
// digits that identify p's definition and seed (see Env.Fingerprint). It
// lets a stage or a cache tell whether what it kept came from the same
// pipeline.
func (p *Pipeline) Fingerprint() string { return p.env().Fingerprint }
