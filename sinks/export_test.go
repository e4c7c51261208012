package sinks

// SetCommitStep sets the function called between the steps of a commit
// and returns a function that restores the previous one.
func SetCommitStep(f func(step string)) (restore func()) {
	old := commitStep
	commitStep = f
	return func() { commitStep = old }
}
