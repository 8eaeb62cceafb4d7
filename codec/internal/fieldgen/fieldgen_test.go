package fieldgen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedTablesAreCurrent checks that each family's fields_gen.go is
// what its decoders' annotations say (go generate ./codec/... rewrites
// them).
func TestGeneratedTablesAreCurrent(t *testing.T) {
	for _, pkg := range []string{"chat", "responses", "anthropic", "gemini", "bedrock"} {
		dir := filepath.Join("..", "..", pkg)
		want, err := Generate(dir, pkg)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "fields_gen.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("codec/%s/fields_gen.go is out of date; run go generate ./codec/...", pkg)
		}
	}
}

// TestAnnotations checks the annotation grammar on a small source.
func TestAnnotations(t *testing.T) {
	write := func(src string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := write(`package p

//fields:all
func top(k string) {
	switch k {
	case "a", "b": //field:hint
	case "c": //field:mapped; c (x): capability
	case "d": //field:-
	}
}

//fields:prefix d[].
func nested(k string, n int) {
	switch k {
	case "e": //field:capability
	case "f":
	}
	if n > 0 { //field:d[] (big): capability
	}
}
`)
	rows, err := Rows(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Path+"="+r.Class)
	}
	want := "a=hint b=hint c=mapped c (x)=capability d[].e=capability d[] (big)=capability"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %v, want %s", got, want)
	}
	for name, src := range map[string]string{
		"unannotated case": "package p\n//fields:all\nfunc f(k string) {\n\tswitch k {\n\tcase \"a\":\n\t}\n}\n",
		"unknown class":    "package p\nfunc f(k string) {\n\tswitch k {\n\tcase \"a\": //field:maybe\n\t}\n}\n",
		"bare off a case":  "package p\nfunc f() {\n\t_ = 1 //field:hint\n}\n",
		"row twice":        "package p\nfunc f(k string) {\n\tswitch k {\n\tcase \"a\": //field:hint\n\tcase \"b\": //field:a: hint\n\t}\n}\n",
	} {
		if _, err := Rows(write(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
