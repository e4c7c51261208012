package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

func runDigest(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("digest", "[-parallel N] PATH   (a dataset, or an s3://bucket/prefix URL)", "rowflow digest -parallel 4 data/")
	par := fs.Int("parallel", 1, "workers that read the dataset")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if err := checkParallel(*par, 1); err != nil {
		return err
	}
	p, err := input{parallel: *par}.pipeline(fs.Arg(0))
	if err != nil {
		return err
	}
	sum, err := determinism.SumOf[sources.Record](ctx, p)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s  %d rows\n", sum, sum.Count)
	return nil
}

func runVerify(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("verify", "[-parallel N | -manifest | -against OTHER] PATH",
		"rowflow verify -parallel 4 data/    or    rowflow verify -manifest out/    or    rowflow verify -against run2/ run1/")
	par := fs.Int("parallel", 4, "workers of the parallel read compared with the serial one")
	manifest := fs.Bool("manifest", false, "check the output at PATH against its ranks' manifests instead")
	against := fs.String("against", "", "compare PATH with the dataset OTHER row by row, by the row IDs in their row-ID columns, and the values by column name whatever the format (a list a.list.element is a, bytes match their base64 in JSON Lines)")
	idCol := fs.String("row-id-column", "row_id", "the row-ID columns' name, for -against (NAME_key1, NAME_key2, NAME_ord, or NAME_hi, NAME_lo)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	path := fs.Arg(0)
	given := givenFlags(fs)
	switch {
	case *manifest && given["against"]:
		return fmt.Errorf("%w: -manifest and -against are two checks: give one", errUsage)
	case given["parallel"] && (*manifest || given["against"]):
		return fmt.Errorf("%w: -parallel is for the check of serial against parallel reads, not for -manifest or -against", errUsage)
	case given["row-id-column"] && !given["against"]:
		return fmt.Errorf("%w: -row-id-column is for -against", errUsage)
	case given["against"] && *against == "":
		return fmt.Errorf("%w: -against needs the other dataset", errUsage)
	}
	if *manifest {
		return verifyManifests(path, stdout)
	}
	if *against != "" {
		return verifyAgainst(ctx, path, *against, *idCol, stdout)
	}
	if err := checkParallel(*par, 2); err != nil {
		return fmt.Errorf("%w: compare with at least 2 workers", err)
	}
	serial, err := input{parallel: 1}.pipeline(path)
	if err != nil {
		return err
	}
	parallel, err := input{parallel: *par}.pipeline(path)
	if err != nil {
		return err
	}
	if err := determinism.Compare[sources.Record](ctx, serial, parallel); err != nil {
		return err
	}
	sum, err := determinism.SumOf[sources.Record](ctx, serial)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ok: parallelism 1 and %d give the same %d rows, digest %s\n", *par, sum.Count, sum)
	return nil
}

// verifyManifests checks every rank's manifest in dir against its files.
func verifyManifests(dir string, stdout io.Writer) error {
	matches, err := filepath.Glob(filepath.Join(dir, "_manifest-*.json"))
	if err != nil {
		return err
	}
	if len(matches) == 0 {
		return fmt.Errorf("%s: no rank manifest (_manifest-<rank>.json)", dir)
	}
	const most = 10 // errors reported; then how many more
	var errs []error
	failed := 0
	for _, m := range matches {
		var rank int
		if _, err := fmt.Sscanf(strings.TrimPrefix(filepath.Base(m), "_manifest-"), "%d.json", &rank); err != nil {
			continue
		}
		man, err := shards.VerifyManifest(dir, rank)
		if err != nil {
			if failed++; failed <= most {
				errs = append(errs, err)
			}
			continue
		}
		fmt.Fprintf(stdout, "rank %d: %d files, %d rows, %d bytes: ok\n", rank, len(man.Files), man.Rows, man.Bytes)
	}
	if failed > most {
		errs = append(errs, fmt.Errorf("and %d more ranks that do not verify", failed-most))
	}
	return errors.Join(errs...)
}

func runCommit(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("commit", "-world W [-rows N] DIR", "rowflow commit -world 16 out/")
	world := fs.Int("world", 0, fmt.Sprintf("the number of ranks that wrote DIR (1 to %d)", limits.MaxWorld))
	rows := fs.Int64("rows", 0, "the total the output must hold (checks that the union is complete; without it the total is not checked)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if *world < 1 {
		return fmt.Errorf("%w: -world %d: give the number of ranks", errUsage, *world)
	}
	if *world > limits.MaxWorld {
		return fmt.Errorf("%w: -world %d: at most %d", errUsage, *world, limits.MaxWorld)
	}
	var opts []shards.CommitOption
	if givenFlags(fs)["rows"] {
		if *rows < 0 {
			return fmt.Errorf("%w: -rows %d: must be at least 0", errUsage, *rows)
		}
		opts = append(opts, shards.ExpectRows(*rows))
	}
	dm, err := shards.Commit(fs.Arg(0), *world, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "committed %s: %d ranks, %d files, %d rows\n", fs.Arg(0), *world, dm.Files, dm.Rows)
	return nil
}
