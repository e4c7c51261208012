// Package benchutil holds what rowflow's benchmark commands print about
// the machine they measured on.
package benchutil

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// LoadAvg returns the 1, 5 and 15 minute load averages from /proc/loadavg,
// or "" where there is none.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// Machine describes the Go version, platform and processors.
func Machine() string {
	return fmt.Sprintf("%s %s/%s, GOMAXPROCS=%d, NumCPU=%d", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.GOMAXPROCS(0), runtime.NumCPU())
}
