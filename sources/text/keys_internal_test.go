package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// referenceDuplicate finds the first key given twice in an object of the
// valid JSON b with encoding/json's tokens: the error that names it, or
// "".
func referenceDuplicate(b []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var walk func() (string, error)
	walk = func() (string, error) {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return "", err
				}
				if seen[k.(string)] {
					return fmt.Sprintf("duplicate key %q", k), nil
				}
				seen[k.(string)] = true
				if d, err := walk(); d != "" || err != nil {
					return d, err
				}
			}
			_, err = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if d, err := walk(); d != "" || err != nil {
					return d, err
				}
			}
			_, err = dec.Token()
		}
		return "", err
	}
	return walk()
}

// FuzzKeyScan: the scan finds the duplicate key that encoding/json's
// tokens find, in every valid JSON value.
func FuzzKeyScan(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1},"b":{"b":2}}`, `[{"\u0061":1,"a":2}]`, `{"a\\":1,"a\\\"":2,"a\\":3}`,
		`{"x":"\"a\":1,\"a\":2"}`, `{"\ud800":1,"\udfff":2}`, "{\"\xff\":1,\"\xfe\":2}", ` { "k" : [ 1 , { } ] , "k" : null } `} {
		f.Add([]byte(s))
	}
	var ks keyScan
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		want, err := referenceDuplicate(b)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if err := ks.check(b, nil); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Fatalf("%q: scan says %q, encoding/json's tokens %q", b, got, want)
		}
	})
}
