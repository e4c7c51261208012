package sinks

// SetFSStep sets the function called at the steps of a run's work on the
// file system (see fsStep) and returns a function that restores the
// previous one.
func SetFSStep(f func(step string)) (restore func()) {
	old := fsStep
	fsStep = f
	return func() { fsStep = old }
}
