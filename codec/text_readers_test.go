package codec_test

import (
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// guardedFields are the fields of Part that only their accessors may read,
// each with those accessors: everything else reads a part's text through
// Part.TextValue and its arguments through Part.ArgumentsValue, because a
// decoded part may hold either still escaped (Part.SetEscapedText,
// Part.SetEscapedArguments).
var guardedFields = map[string]map[string]bool{
	"Text": {
		"(*github.com/llmbridge/llmbridge/codec.Part).TextValue":   true,
		"(*github.com/llmbridge/llmbridge/codec.Part).TextLiteral": true,
		"(*github.com/llmbridge/llmbridge/codec.Part).JSONText":    true,
		"(*github.com/llmbridge/llmbridge/codec.Part).escapedText": true,
		"(*github.com/llmbridge/llmbridge/codec.Part).TextSize":    true,
		"(*github.com/llmbridge/llmbridge/codec.Part).HasText":     true,
	},
	"Arguments": {
		"(*github.com/llmbridge/llmbridge/codec.Part).ArgumentsValue":   true,
		"(*github.com/llmbridge/llmbridge/codec.Part).EscapedArguments": true,
		"(*github.com/llmbridge/llmbridge/codec.Part).JSONArguments":    true,
		"(*github.com/llmbridge/llmbridge/codec.Part).ArgumentsSize":    true,
		"(*github.com/llmbridge/llmbridge/codec.Part).HasArguments":     true,
	},
}

// guardedReaders names the accessor that a read of each guarded field
// outside its accessors should have used.
var guardedReaders = map[string]string{"Text": "Part.TextValue", "Arguments": "Part.ArgumentsValue"}

// listedPackage is what TestTextReaders reads of `go list -json`.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Module     *struct{ Path string }
}

// TestTextReaders fails when code of the module (tests aside) reads
// Part.Text other than through Part.TextValue, or Part.Arguments other
// than through Part.ArgumentsValue: a part decoded from a body may hold
// its text or its arguments as the escaped literal they came in, and a
// reader of the field would see the escapes. Writing the field (assigning it, or
// setting it in a composite literal) is free. It type-checks every
// package of the module against the export data `go list -export` gives.
func TestTextReaders(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goTool, "list", "-export", "-deps", "-json", "github.com/llmbridge/llmbridge/...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	var own []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == "github.com/llmbridge/llmbridge" {
			own = append(own, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	checked := 0
	for _, p := range own {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Defs: map[*ast.Ident]types.Object{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-check %s: %v", p.ImportPath, err)
		}
		for _, f := range files {
			for _, r := range guardedReads(f, info) {
				t.Errorf("%s reads Part.%s: read it with %s", fset.Position(r.pos), r.field, guardedReaders[r.field])
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked %d packages, expected the whole module", checked)
	}
}

// guardedRead is where a guarded field of Part is read, and which.
type guardedRead struct {
	pos   token.Pos
	field string
}

// guardedReads returns where f reads a guarded field of a codec.Part
// outside that field's accessors. Assigning the field (=, :=, or through
// its address) is a write; anything else, += included, reads it.
func guardedReads(f *ast.File, info *types.Info) []guardedRead {
	written := map[*ast.SelectorExpr]bool{}
	var reads []guardedRead
	var visit func(fn string) func(ast.Node) bool
	visit = func(fn string) func(ast.Node) bool {
		return func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.ASSIGN || n.Tok == token.DEFINE {
					for _, l := range n.Lhs {
						if s, ok := l.(*ast.SelectorExpr); ok {
							written[s] = true
						}
					}
				}
			case *ast.UnaryExpr:
				// &p.Text hands the field to a function that sets it.
				if s, ok := n.X.(*ast.SelectorExpr); ok && n.Op == token.AND {
					written[s] = true
				}
			case *ast.SelectorExpr:
				if written[n] {
					return true
				}
				sel := info.Selections[n]
				if sel == nil || sel.Kind() != types.FieldVal {
					return true
				}
				accessors, guarded := guardedFields[sel.Obj().Name()]
				if guarded && !accessors[fn] && partType(sel.Recv()) {
					reads = append(reads, guardedRead{n.Sel.Pos(), sel.Obj().Name()})
				}
			}
			return true
		}
	}
	for _, d := range f.Decls {
		fn := ""
		if fd, ok := d.(*ast.FuncDecl); ok {
			if obj, ok := info.Defs[fd.Name].(*types.Func); ok {
				fn = obj.FullName()
			}
		}
		ast.Inspect(d, visit(fn))
	}
	return reads
}

// partType reports whether t is codec.Part or a pointer to one.
func partType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Part" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "github.com/llmbridge/llmbridge/codec"
}
