// Command gen writes the built-in definitions of package builtin from
// Kubernetes' published OpenAPI v3 (api/openapi-spec/v3 of the
// k8s.io/kubernetes module): each kind's schema with every $ref resolved
// inline into a structural schema, x-kubernetes-* extensions kept.
//
//	go run ./gen -out definitions [-spec DIR]
//
// Without -spec it reads the module from Go's module cache, downloading it
// (go mod download k8s.io/kubernetes@<-version>) if needed.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("out", "definitions", "folder to write the definition files in")
	spec := flag.String("spec", "", "api/openapi-spec/v3 folder of Kubernetes (default: the module's, from the module cache)")
	version := flag.String("version", "v1.37.0", "k8s.io/kubernetes version to read the OpenAPI of")
	flag.Parse()
	if *spec == "" {
		dir, err := moduleDir("k8s.io/kubernetes@" + *version)
		if err != nil {
			log.Fatal(err)
		}
		*spec = filepath.Join(dir, "api", "openapi-spec", "v3")
	}
	docs := map[string]*document{}
	for _, k := range kinds {
		doc, ok := docs[k.spec]
		if !ok {
			var err error
			if doc, err = readDocument(filepath.Join(*spec, k.spec)); err != nil {
				log.Fatal(err)
			}
			docs[k.spec] = doc
		}
		if err := write(filepath.Join(*out, k.file), k, doc, *version); err != nil {
			log.Fatalf("%s: %v", k.file, err)
		}
	}
}

// moduleDir downloads a module (a no-op when it is in the cache) and
// returns its folder.
func moduleDir(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	cmd.Dir = os.TempDir() // outside this module: no go.mod change
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(b, &info); err != nil || info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %v%s", module, err, info.Error)
	}
	return info.Dir, nil
}

// write writes one definition file.
func write(file string, k kind, doc *document, version string) error {
	schema, err := doc.resolve(k.schema)
	if err != nil {
		return err
	}
	def, err := render(k, schema, version)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, def, 0o644)
}

// quoteList renders a YAML flow list of plain words.
func quoteList(words []string) string { return "[" + strings.Join(words, ", ") + "]" }
