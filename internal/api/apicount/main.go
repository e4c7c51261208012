// Command apicount counts the exported identifiers of rowflow's public
// packages: top-level types, functions, variables and constants, and the
// exported methods of exported types. Tests are not counted.
//
//	go run ./internal/api/apicount
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// publicPackages are the directories of the packages users import.
var publicPackages = []string{"flow", "operators", "sources", "sources/parquet", "sources/text", "sinks", "sinks/shards", "determinism", "ranks", "rowid", "interop/gostreams"}

// count returns the number of exported identifiers of the package in dir,
// by kind. It reads the directory's Go files other than tests, under
// every build tag (exported names do not differ by platform here).
func count(dir string) (map[string]int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	n := map[string]int{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			countDecl(d, n)
		}
	}
	return n, nil
}

func countDecl(d ast.Decl, n map[string]int) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		switch {
		case d.Recv == nil && d.Name.IsExported():
			n["func"]++
		case d.Recv != nil && d.Name.IsExported() && exportedRecv(d.Recv.List[0].Type):
			n["method"]++
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					n["type"]++
				}
			case *ast.ValueSpec:
				for _, name := range s.Names {
					if name.IsExported() {
						n[d.Tok.String()]++
					}
				}
			}
		}
	}
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(e ast.Expr) bool {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.IsExported()
		default:
			return false
		}
	}
}

// total counts every public package under root.
func total(root string) (int, map[string]map[string]int, error) {
	all := map[string]map[string]int{}
	sum := 0
	for _, p := range publicPackages {
		n, err := count(filepath.Join(root, p))
		if err != nil {
			return 0, nil, err
		}
		all[p] = n
		for _, v := range n {
			sum += v
		}
	}
	return sum, all, nil
}

func main() {
	sum, all, err := total(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	names := make([]string, 0, len(all))
	for p := range all {
		names = append(names, p)
	}
	sort.Strings(names)
	fmt.Println("| package | types | funcs | vars | consts | methods | total |")
	fmt.Println("| --- | --- | --- | --- | --- | --- | --- |")
	for _, p := range names {
		n := all[p]
		fmt.Printf("| %s | %d | %d | %d | %d | %d | %d |\n", p, n["type"], n["func"], n["var"], n["const"], n["method"],
			n["type"]+n["func"]+n["var"]+n["const"]+n["method"])
	}
	fmt.Printf("| all | | | | | | %d |\n", sum)
}
