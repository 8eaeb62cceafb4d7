// Command fieldgen writes the field table of the codec package in the
// working directory to fields_gen.go, from its decoders' //field:
// annotations (see package fieldgen). Each family package runs it with go
// generate.
package main

import (
	"fmt"
	"os"

	"github.com/llmbridge/llmbridge/codec/internal/fieldgen"
)

func main() {
	pkg := os.Getenv("GOPACKAGE")
	if pkg == "" {
		fmt.Fprintln(os.Stderr, "fieldgen: run it with go generate (GOPACKAGE is not set)")
		os.Exit(2)
	}
	if err := fieldgen.Write(".", pkg); err != nil {
		fmt.Fprintln(os.Stderr, "fieldgen:", err)
		os.Exit(1)
	}
}
