// Package optcheck builds the option functions of rowflow's packages
// that set one number with a lower bound, so that the check and its error
// message are written once.
package optcheck

import "fmt"

// AtLeast returns a function that sets a field of a C to n with set, or,
// if n is less than least, fails with "<pkg>: <option>(<n>): must be at
// least <least>".
func AtLeast[C any, N int | int64](pkg, option string, n, least N, set func(*C, N)) func(*C) error {
	return func(c *C) error {
		if n < least {
			return fmt.Errorf("%s: %s(%d): must be at least %d", pkg, option, n, least)
		}
		set(c, n)
		return nil
	}
}

// Between returns a function that sets a field of a C to n with set, or,
// if n is not from least to most, fails with "<pkg>: <option>(<n>): must
// be from <least> to <most>".
func Between[C any, N int | int64](pkg, option string, n, least, most N, set func(*C, N)) func(*C) error {
	return func(c *C) error {
		if n < least || n > most {
			return fmt.Errorf("%s: %s(%d): must be from %d to %d", pkg, option, n, least, most)
		}
		set(c, n)
		return nil
	}
}
