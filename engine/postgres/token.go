package postgres

import (
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/dynapi/dynapi/engine"
)

// continueToken is where a paginated List resumes: after the key
// (namespace, name, resource) of the last object returned, at the list's
// resourceVersion. Clients treat it as opaque.
type continueToken struct {
	RV        int64  `json:"rv"`
	Namespace string `json:"ns,omitempty"`
	Name      string `json:"name"`
	Resource  string `json:"res,omitempty"`
	// Left is how many objects of the list follow the key at RV: counted
	// once, at the first page, and carried from page to page, so that
	// every page's remainingItemCount is exact without counting again.
	// Nil in tokens that do not carry it: the next page counts.
	Left *int64 `json:"left,omitempty"`
}

// encode renders the token as base64url of its JSON.
func (t continueToken) encode() string {
	data, _ := json.Marshal(t) // strings and an integer: cannot fail
	return base64.RawURLEncoding.EncodeToString(data)
}

// decodeContinue parses a token made by encode. Errors: BadRequest.
func decodeContinue(s string) (continueToken, error) {
	t, err := parseContinue(s)
	if err != nil {
		return continueToken{}, engine.Errorf(engine.CodeBadRequest, "continue key is not valid: %v", err)
	}
	return t, nil
}

// parseContinue is decodeContinue with the error in its own words.
func parseContinue(s string) (continueToken, error) {
	var t continueToken
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, err
	}
	if t.RV <= 0 || t.Name == "" {
		return t, errors.New("missing resourceVersion or name")
	}
	return t, nil
}
