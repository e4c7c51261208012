package flow

// lastPush remembers the error of the last push downstream, so that a
// stage passes that error on as it is, instead of attributing it to
// itself: the one way the stages tell a downstream error from their own.
type lastPush struct{ err error }

// record remembers err, the result of a push downstream, and returns it.
func (l *lastPush) record(err error) error {
	l.err = err
	return err
}

// from reports whether err, not nil, is what the last push returned.
func (l *lastPush) from(err error) bool { return err != nil && err == l.err }
