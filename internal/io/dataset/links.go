package dataset

import (
	"fmt"
	"os"
	"path/filepath"
)

// Symbolic links are followed while they stay under the dataset root: a
// link to a file or a directory is read as if it were its target when the
// target, with every link on its way resolved, lies under the root (itself
// resolved); a link that leads outside the root is an error that names it
// and where it leads. A directory link is not followed twice on one path,
// so that a link to a directory above it is an error, not an endless walk.

// checkFile checks that the file at abs resolves, through any symbolic
// links, to a regular file under the resolved root real.
func checkFile(real, abs string) error {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	if !within(real, target) {
		return fmt.Errorf("leads to %s, outside the root %s: symbolic links must stay under the root", target, real)
	}
	st, err := os.Stat(target)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("is not a regular file (%s)", st.Mode().Type())
	}
	return nil
}

// walker lists the files under directories, following the directory links
// that stay under the resolved root real.
type walker struct {
	real   string
	format Format // the files directories are searched for
}

// resolveDir resolves the directory link (or directory) at abs, which the
// walk reached through the resolved directories on, and checks that it
// leads under the root and not back to a directory of the walk.
func (w *walker) resolveDir(abs string, on []string) (string, error) {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("dataset: %w", err)
	}
	if !within(w.real, target) {
		return "", fmt.Errorf("dataset: %s leads to %s, outside the root %s: symbolic links must stay under the root", abs, target, w.real)
	}
	for _, d := range on {
		if within(target, d) {
			return "", fmt.Errorf("dataset: %s leads to %s, which contains it: a symbolic link loop", abs, target)
		}
	}
	return target, nil
}
