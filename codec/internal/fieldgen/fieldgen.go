// Package fieldgen builds a protocol family's field table from the
// annotations on its decoders' switch statements, so that the dispatch of
// a field and its row in the table are written once, side by side:
//
//	case "seed": //field:hint
//	case "response_format": //field:mapped; response_format (json_object): capability
//
// An annotation is "//field:" followed by items separated by ";". A bare
// class (mapped, hint or capability) gives each of the case's labels that
// class, under the prefix of the function holding the switch; "row: class"
// adds a row as it is written, for what a label does not name alone (a
// value with a class of its own, a content kind). A function's doc comment
// sets its prefix with a line "//fields:prefix messages[]." and, with
// "//fields:all", requires an annotation on every case of its switches on
// string labels (the top-level field switch, where a missing row would be a
// field missing from the table); "//field:-" annotates a case whose rows
// are declared where its members are decoded.
//
// The command codec/internal/fieldgen/cmd/fieldgen writes the table of the
// package in the working directory to fields_gen.go (go generate).
package fieldgen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Row is one row of a field table.
type Row struct {
	Path, Class string
	// Pos is where the row is declared, for errors.
	Pos token.Position
}

var classes = map[string]string{"mapped": "codec.FieldMapped", "hint": "codec.FieldHint", "capability": "codec.FieldCapability"}

// Rows returns the rows annotated in the non-test, non-generated Go files
// of dir, in source order (files by name).
func Rows(dir string) ([]Row, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var rows []Row
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_gen.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		r, err := fileRows(fset, f)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	seen := map[string]token.Position{}
	for _, r := range rows {
		if at, ok := seen[r.Path]; ok {
			return nil, fmt.Errorf("%s: row %q is declared again (first at %s)", r.Pos, r.Path, at)
		}
		seen[r.Path] = r.Pos
	}
	return rows, nil
}

// caseInfo is a case clause on string labels, with its function's prefix.
type caseInfo struct {
	labels []string
	prefix string
	all    bool
	pos    token.Position
}

// fileRows returns the rows of one file, in the order of its annotations.
func fileRows(fset *token.FileSet, f *ast.File) ([]Row, error) {
	cases := map[int]caseInfo{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		prefix, all := "", false
		if fn.Doc != nil {
			for _, c := range fn.Doc.List {
				if p, ok := strings.CutPrefix(c.Text, "//fields:prefix "); ok {
					prefix = strings.TrimSpace(p)
				}
				if strings.TrimSpace(c.Text) == "//fields:all" {
					all = true
				}
			}
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			c := caseInfo{prefix: prefix, all: all, pos: fset.Position(cc.Colon)}
			for _, e := range cc.List {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					c.labels = append(c.labels, s)
				}
			}
			cases[c.pos.Line] = c
			return true
		})
	}
	annotated := map[int]bool{}
	var rows []Row
	for _, cg := range f.Comments {
		for _, cm := range cg.List {
			note, ok := strings.CutPrefix(cm.Text, "//field:")
			if !ok {
				continue
			}
			pos := fset.Position(cm.Slash)
			c, onCase := cases[pos.Line]
			annotated[pos.Line] = true
			for _, item := range strings.Split(note, ";") {
				item = strings.TrimSpace(item)
				if item == "-" {
					// The field's rows are its members', declared where
					// they are decoded.
					continue
				}
				path, class, explicit := strings.Cut(item, ":")
				if !explicit {
					class = path
				}
				class = strings.TrimSpace(class)
				if _, ok := classes[class]; !ok {
					return nil, fmt.Errorf("%s: unknown class %q", pos, class)
				}
				if explicit {
					rows = append(rows, Row{Path: strings.TrimSpace(path), Class: class, Pos: pos})
					continue
				}
				if !onCase || len(c.labels) == 0 {
					return nil, fmt.Errorf("%s: a bare class needs a case clause on string labels", pos)
				}
				for _, l := range c.labels {
					rows = append(rows, Row{Path: c.prefix + l, Class: class, Pos: pos})
				}
			}
		}
	}
	lines := make([]int, 0, len(cases))
	for line := range cases {
		lines = append(lines, line)
	}
	sort.Ints(lines)
	for _, line := range lines {
		if c := cases[line]; c.all && len(c.labels) > 0 && !annotated[line] {
			return nil, fmt.Errorf("%s: case %q has no //field: annotation", c.pos, c.labels)
		}
	}
	return rows, nil
}

// Generate returns fields_gen.go for the package in dir, named pkg: the
// variable fields holding its rows.
func Generate(dir, pkg string) ([]byte, error) {
	rows, err := Rows(dir)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ../internal/fieldgen/cmd/fieldgen; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package %s\n\nimport \"github.com/llmbridge/llmbridge/codec\"\n\n", pkg)
	b.WriteString("// fields is the field table of the family's client protocols, from the\n// //field: annotations of its decoders.\nvar fields = []codec.Field{\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "\t{Path: %q, Class: %s},\n", r.Path, classes[r.Class])
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// Write writes fields_gen.go in dir.
func Write(dir, pkg string) error {
	src, err := Generate(dir, pkg)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "fields_gen.go"), src, 0o644)
}
