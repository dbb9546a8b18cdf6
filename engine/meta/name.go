package meta

import "math/rand/v2"

// generatedSuffixChars are the characters Kubernetes' name generator uses:
// no vowels (no accidental words) and no look-alikes.
const generatedSuffixChars = "bcdfghjklmnpqrstvwxz2456789"

// maxGeneratedNameLength keeps base+suffix within a DNS subdomain's 63-byte
// label budget, as k8s.io/apiserver/pkg/storage/names does.
const maxGeneratedNameLength = 58

// GenerateName appends five random characters to base, truncating base so
// the result stays a valid name.
func GenerateName(base string) string {
	if len(base) > maxGeneratedNameLength {
		base = base[:maxGeneratedNameLength]
	}
	suffix := make([]byte, 5)
	for i := range suffix {
		suffix[i] = generatedSuffixChars[rand.IntN(len(generatedSuffixChars))]
	}
	return base + string(suffix)
}
