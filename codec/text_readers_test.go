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

// textAccessors are the only functions that may read a Part's Text field
// itself: everything else reads it through Part.TextValue, because a
// decoded part may hold its text still escaped (Part.SetEscapedText).
var textAccessors = map[string]bool{
	"(*github.com/llmbridge/llmbridge/codec.Part).TextValue":   true,
	"(*github.com/llmbridge/llmbridge/codec.Part).TextLiteral": true,
	"(*github.com/llmbridge/llmbridge/codec.Part).JSONText":    true,
	"(*github.com/llmbridge/llmbridge/codec.Part).escapedText": true,
	"(*github.com/llmbridge/llmbridge/codec.Part).TextSize":    true,
	"(*github.com/llmbridge/llmbridge/codec.Part).HasText":     true,
}

// listedPackage is what TestTextReaders reads of `go list -json`.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Export     string
	Module     *struct{ Path string }
}

// TestTextReaders fails when code of the module (tests aside) reads
// Part.Text other than through Part.TextValue: a part decoded from a body
// may hold its text as the escaped literal it came in, and a reader of
// the field would see the escapes. Writing the field (assigning it, or
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
			for _, pos := range textReads(f, info) {
				t.Errorf("%s reads Part.Text: read it with Part.TextValue", fset.Position(pos))
			}
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("checked %d packages, expected the whole module", checked)
	}
}

// textReads returns where f reads the Text field of a codec.Part outside
// the accessors. Assigning the field (=, :=, or through its address) is
// a write; anything else, += included, reads it.
func textReads(f *ast.File, info *types.Info) []token.Pos {
	written := map[*ast.SelectorExpr]bool{}
	var reads []token.Pos
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
				if written[n] || textAccessors[fn] {
					return true
				}
				sel := info.Selections[n]
				if sel == nil || sel.Kind() != types.FieldVal || sel.Obj().Name() != "Text" {
					return true
				}
				if partType(sel.Recv()) {
					reads = append(reads, n.Sel.Pos())
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
