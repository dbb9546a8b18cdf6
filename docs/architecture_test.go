package docs

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"regexp"
	"testing"
)

// stamp is the line render-architecture.sh writes into the picture.
var stamp = regexp.MustCompile(`<!-- rendered from architecture\.dot sha256:([0-9a-f]{64}) -->`)

// TestArchitectureImage fails when architecture.svg was not rendered from
// architecture.dot as it stands: run docs/render-architecture.sh.
func TestArchitectureImage(t *testing.T) {
	source, err := os.ReadFile("architecture.dot")
	if err != nil {
		t.Fatal(err)
	}
	image, err := os.ReadFile("architecture.svg")
	if err != nil {
		t.Fatal(err)
	}
	m := stamp.FindSubmatch(image)
	if m == nil {
		t.Fatal("architecture.svg has no source stamp: render it with docs/render-architecture.sh")
	}
	sum := sha256.Sum256(source)
	if got := hex.EncodeToString(sum[:]); string(m[1]) != got {
		t.Fatalf("architecture.svg was rendered from another architecture.dot (sha256 %s, now %s): run docs/render-architecture.sh", m[1], got)
	}
}
