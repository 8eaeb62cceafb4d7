package rules

import (
	"flag"
	"os"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/models.md from the table")

// TestModelsDoc holds docs/models.md to the table; go test ./codec/rules
// -update rewrites it.
func TestModelsDoc(t *testing.T) {
	const path = "../../docs/models.md"
	want := Builtin().Markdown()
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not the table's documentation; run go test ./codec/rules -run TestModelsDoc -update", path)
	}
}
