package postgres

import (
	"testing"

	"github.com/dynapi/dynapi/engine"
)

// FuzzContinue: any continue token and resourceVersion is read or refused
// with 400; what is read re-encodes to a token that reads the same.
func FuzzContinue(f *testing.F) {
	f.Add(continueToken{RV: 5, Namespace: "default", Name: "a", Resource: "widgets"}.encode(), "", "")
	f.Add("", "12", "Exact")
	f.Add("", "0", "NotOlderThan")
	f.Add("eyJydiI6MX0", "", "")
	f.Add("!!", "-1", "Bogus")
	f.Fuzz(func(t *testing.T, token, rv, match string) {
		_, _, err := parseListState(engine.ListOptions{Continue: token, ResourceVersion: rv, ResourceVersionMatch: match, Limit: 1})
		if err != nil && engine.ErrorCode(err) != engine.CodeBadRequest {
			t.Fatalf("parseListState(%q, %q, %q): %v", token, rv, match, err)
		}
		ct, err := decodeContinue(token)
		if err != nil {
			return
		}
		again, err := decodeContinue(ct.encode())
		if err != nil || again != ct {
			t.Fatalf("token %q reads %+v, re-encoded %+v, %v", token, ct, again, err)
		}
	})
}
