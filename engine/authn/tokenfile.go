package authn

import (
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/dynapi/dynapi/engine"
)

// TokenFile authenticates static bearer tokens, kube-apiserver's
// --token-auth-file: a CSV file of token,user,uid[,"group1,group2"] lines.
type TokenFile struct {
	users map[[sha256.Size]byte]*engine.User
}

var _ Authenticator = (*TokenFile)(nil)

// LoadTokenFile reads a token file.
func LoadTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read token file: %w", err)
	}
	defer f.Close()
	t, err := ParseTokens(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTokens reads the CSV of a token file, as kube's tokenfile package
// does: at least three columns; blank lines and lines starting with # are
// skipped; a token given twice is an error.
func ParseTokens(r io.Reader) (*TokenFile, error) {
	c := csv.NewReader(r)
	c.FieldsPerRecord, c.Comment, c.TrimLeadingSpace = -1, '#', true
	t := &TokenFile{users: map[[sha256.Size]byte]*engine.User{}}
	for line := 1; ; line++ {
		rec, err := c.Read()
		if errors.Is(err, io.EOF) {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
		if len(rec) < 3 {
			return nil, fmt.Errorf("line %d: want token,user,uid[,groups], got %d columns", line, len(rec))
		}
		if rec[0] == "" || rec[1] == "" {
			return nil, fmt.Errorf("line %d: empty token or user", line)
		}
		key := sha256.Sum256([]byte(rec[0]))
		if _, dup := t.users[key]; dup {
			return nil, fmt.Errorf("line %d: duplicate token", line)
		}
		u := &engine.User{Name: rec[1], UID: rec[2]}
		if len(rec) > 3 && rec[3] != "" {
			u.Groups = strings.Split(rec[3], ",")
		}
		t.users[key] = u
	}
}

// Authenticate reads the bearer token. Tokens are looked up by their hash,
// so that the time the lookup takes tells nothing of a token's bytes.
func (t *TokenFile) Authenticate(r *http.Request) (*engine.User, bool, error) {
	token, ok := Bearer(r)
	if !ok {
		return nil, false, nil
	}
	u, ok := t.users[sha256.Sum256([]byte(token))]
	if !ok {
		return nil, false, errors.New("unknown token")
	}
	return u, true, nil
}
