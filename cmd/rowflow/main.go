// Command rowflow looks inside datasets, reshards them and checks runs,
// with rowflow's deterministic pipelines.
//
// Usage:
//
//	rowflow <command> [flags] [arguments]
//
// Commands:
//
//	inspect   files, Hive columns, row groups, rows, bytes, schema, compression
//	head      the first rows, as a table or JSON Lines
//	digest    the digest of a dataset's rows in order
//	reshard   a dataset into Parquet or JSON Lines shards with a manifest
//	verify    serial against parallel digests, or an output against its manifest
//	commit    check every rank's output and write the dataset's manifest
//	cleanup   remove stale temporary files of killed runs
//
// The PATH that inspect, head, digest and verify (without -manifest or
// -against) read may be an s3://bucket/prefix URL of a dataset in an
// S3-compatible bucket, read through the same sources; credentials,
// region and endpoint come from the AWS variables (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL)
// or the shared credentials file (AWS_SHARED_CREDENTIALS_FILE,
// AWS_PROFILE). The outputs of reshard, commit and cleanup may be such
// URLs too: reshard uploads each file under its final key and its rank's
// manifest last, and cleanup removes the data objects of a rank that its
// manifest does not list (run it only when no run writes there).
//
// Exit codes: 0 success, 1 failure or a difference found, 2 bad usage.
// Errors go to standard error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/rowflow/rowflow/internal/api/limits"
)

// errUsage marks errors of the command line: exit code 2.
var errUsage = errors.New("usage")

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout io.Writer) error
}

var commands = map[string]command{
	"inspect": {"files, Hive columns, row groups, rows, bytes, schema, compression", runInspect},
	"head":    {"the first rows, as a table or JSON Lines", runHead},
	"digest":  {"the digest of a dataset's rows in order", runDigest},
	"reshard": {"a dataset into Parquet or JSON Lines shards with a manifest", runReshard},
	"verify":  {"serial against parallel digests, or an output against its manifest", runVerify},
	"commit":  {"check every rank's output and write the dataset's manifest", runCommit},
	"cleanup": {"remove stale temporary files of killed runs", runCleanup},
}

func main() {
	// SIGTERM, as a scheduler stops a job, ends a run as SIGINT does: the
	// run fails and removes its temporary files.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the command line args and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" {
		if _, ok := commands[args[1]]; ok {
			// rowflow help COMMAND is rowflow COMMAND -h.
			return run(ctx, []string{args[1], "-h"}, stdout, stderr)
		}
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "rowflow: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	err := c.run(ctx, args[1:], stdout)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "rowflow %s: %s\n", args[0], inCommandTerms(err))
		return 2
	}
	fmt.Fprintf(stderr, "rowflow %s: %s\n", args[0], inCommandTerms(err))
	return 1
}

// inCommandTerms returns the text of err with the Go options that the
// library's errors name replaced by what a user of the command has: the
// flag that gives the option, or, for package shards' Overwrite,
// which the command does not have (reshard never replaces an output that
// is not its own), removing that output or writing to another directory.
func inCommandTerms(err error) string {
	return rowIDOption.ReplaceAllString(commandTerms.Replace(err.Error()), "-row-id-column $1")
}

var commandTerms = strings.NewReplacer(
	"or use Overwrite", "or write to another -out directory (reshard does not overwrite output)",
	"rewrite the output with this version (Overwrite)", "remove the output and write it again with this version",
	"ExpectRows says", "-rows says",
	"pass the Job's completion count", "give the Job's completion count with -completions N",
)

// rowIDOption matches package shards' RowIDColumn("name") in errors.
var rowIDOption = regexp.MustCompile(`RowIDColumn\(("(?:[^"\\]|\\.)*")\)`)

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: rowflow <command> [flags] [arguments]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s  %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nrowflow <command> -h describes a command. Exit codes: 0 success, 1 failure or difference, 2 bad usage.")
}

// newFlags returns a flag set for a command, with its usage text.
func newFlags(name, synopsis string, examples ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: rowflow %s %s\n\n", name, synopsis)
		fs.SetOutput(os.Stderr)
		fs.PrintDefaults()
		fmt.Fprintf(os.Stderr, "\nexamples:\n")
		for _, e := range examples {
			fmt.Fprintf(os.Stderr, "  %s\n", e)
		}
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parse parses args; a bad flag is a usage error. For -h, fs.Parse has
// printed the usage text and the error is flag.ErrHelp.
func parse(fs *flag.FlagSet, args []string, nargs int) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > nargs {
		for _, a := range fs.Args()[1:] {
			if len(a) > 1 && a[0] == '-' {
				return fmt.Errorf("%w: %s comes after the argument %s; flags come before the arguments (see rowflow %s -h)", errUsage, a, fs.Arg(0), fs.Name())
			}
		}
	}
	if fs.NArg() != nargs {
		return fmt.Errorf("%w: want %d argument(s), got %d (see rowflow %s -h)", errUsage, nargs, fs.NArg(), fs.Name())
	}
	return nil
}

// givenFlags returns the names of the flags that the command line set.
func givenFlags(fs *flag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}

// checkParallel checks a -parallel flag: from least to the most workers
// flow's Pipeline.Parallel gives a stage.
func checkParallel(n, least int) error {
	if n < least || n > limits.MaxParallel {
		return fmt.Errorf("%w: -parallel %d: must be from %d to %d", errUsage, n, least, limits.MaxParallel)
	}
	return nil
}
