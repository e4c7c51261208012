package flow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Fingerprint returns the fingerprint a run of p sees in [Env]: 32 hex
// digits that identify p's definition and seed (see Env.Fingerprint). It
// lets a stage or a cache tell whether what it kept came from the same
// pipeline.
func (p *Pipeline) Fingerprint() string { return p.env().Fingerprint }

// definitionText renders a definition as Checkpoint.Definition holds it:
// label, value and the first 8 hex digits of the SHA-256 of the line the
// fingerprint hashes, separated by tabs.
func definitionText(def []defPart) []string {
	out := make([]string, len(def))
	for i, d := range def {
		sum := sha256.Sum256([]byte(d.line))
		out[i] = d.label + "\t" + d.value + "\t" + hex.EncodeToString(sum[:4])
	}
	return out
}

// definitionDiff says where the definitions of a checkpoint (ck) and of
// a pipeline (now) first differ: a part one has and the other has not, a
// part whose value differs, or one whose settings differ.
func definitionDiff(ck, now []string) string {
	if len(ck) == 0 {
		return "the checkpoint does not say what it was taken from"
	}
	split := func(s string) (label, value, hash string) {
		f := strings.SplitN(s, "\t", 3)
		for len(f) < 3 {
			f = append(f, "")
		}
		return f[0], f[1], f[2]
	}
	byLabel := func(def []string) map[string]string {
		m := make(map[string]string, len(def))
		for _, s := range def {
			l, _, _ := split(s)
			m[l] = s
		}
		return m
	}
	ckm, nowm := byLabel(ck), byLabel(now)
	for _, s := range now {
		l, v, h := split(s)
		old, ok := ckm[l]
		if !ok {
			return fmt.Sprintf("this pipeline has %s %s, the checkpoint's has none", l, v)
		}
		_, ov, oh := split(old)
		switch {
		case ov != v:
			return fmt.Sprintf("its %s is %s, this pipeline's %s", l, ov, v)
		case oh != h:
			return fmt.Sprintf("its %s, %s, has other settings", l, v)
		}
	}
	for _, s := range ck {
		if l, v, _ := split(s); nowm[l] == "" {
			return fmt.Sprintf("the checkpoint's pipeline has %s %s, this one has none", l, v)
		}
	}
	return "the definitions agree part by part, but not as a whole"
}
