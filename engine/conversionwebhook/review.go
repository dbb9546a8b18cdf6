package conversionwebhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"
)

// The versions of ConversionReview kube-apiserver speaks.
const (
	reviewGroup = "apiextensions.k8s.io"
	reviewV1    = "v1"
	reviewBeta  = "v1beta1"
)

// errNoReviewVersion is kube's answer for a definition whose
// conversionReviewVersions lists no version it knows.
var errNoReviewVersion = errors.New("no supported conversion review versions")

// reviewVersion is the first of versions kube knows, as kube picks it.
func reviewVersion(versions []string) (string, error) {
	for _, v := range versions {
		if v == reviewV1 || v == reviewBeta {
			return v, nil
		}
	}
	return "", errNoReviewVersion
}

// encodeRequest is the body of a call: a ConversionReview as kube sends
// it, with an empty response. It is written out rather than marshalled:
// the objects are valid JSON already (checked at the edge, or stored), and
// a page of them is most of the body.
func encodeRequest(version, uid, desired string, objs [][]byte) []byte {
	size := 256
	for _, o := range objs {
		size += len(o) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, `{"kind":"ConversionReview","apiVersion":`...)
	b = strconv.AppendQuote(b, reviewGroup+"/"+version) // ASCII names: Go's quoting is JSON's
	b = append(b, `,"request":{"uid":`...)
	b = strconv.AppendQuote(b, uid)
	b = append(b, `,"desiredAPIVersion":`...)
	b = strconv.AppendQuote(b, desired)
	b = append(b, `,"objects":[`...)
	for i, o := range objs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, o...)
	}
	return append(b, `]},"response":{"uid":"","convertedObjects":null,"result":{"metadata":{}}}}`...)
}

// convertedObjects reads a response (valid JSON) as kube's
// getConvertedObjectsFromResponse does, with its words: a v1 review must be
// one and carry the request's uid (a v1beta1 one is not checked for
// either). The objects are slices of body.
func convertedObjects(version, uid string, body []byte) ([][]byte, error) {
	review := gjson.ParseBytes(body)
	if version == reviewV1 {
		apiVersion, kind := review.Get("apiVersion").String(), review.Get("kind").String()
		if apiVersion != reviewGroup+"/"+reviewV1 || kind != "ConversionReview" {
			return nil, fmt.Errorf("expected webhook response of %s/%s, Kind=ConversionReview, got %s",
				reviewGroup, reviewV1, gvkString(apiVersion, kind))
		}
	}
	response := review.Get("response")
	if !response.IsObject() {
		return nil, errors.New("no response provided")
	}
	if got := response.Get("uid").String(); version == reviewV1 && got != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, got)
	}
	if status := response.Get("result.status").String(); status != "Success" {
		if message := response.Get("result.message").String(); message != "" {
			return nil, errors.New(message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", status)
	}
	var objs [][]byte
	response.Get("convertedObjects").ForEach(func(_, v gjson.Result) bool {
		objs = append(objs, rawOf(body, v))
		return true
	})
	return objs, nil
}

// rawOf is v's text, sliced out of body when gjson tells where it is.
func rawOf(body []byte, v gjson.Result) []byte {
	if v.Index > 0 {
		return body[v.Index : v.Index+len(v.Raw) : v.Index+len(v.Raw)]
	}
	return []byte(v.Raw)
}

// syntaxError is encoding/json's error for a body that is not JSON, as
// client-go's decoding of a response quotes it.
func syntaxError(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// gvkString is apimachinery's GroupVersionKind.String for an apiVersion and
// a kind: "group/version, Kind=kind" ("/version" for the core group).
func gvkString(apiVersion, kind string) string {
	group, version := splitAPIVersion(apiVersion)
	return group + "/" + version + ", Kind=" + kind
}

// splitAPIVersion splits "group/version"; "v1" is the core group's.
func splitAPIVersion(apiVersion string) (group, version string) {
	for i := len(apiVersion) - 1; i >= 0; i-- {
		if apiVersion[i] == '/' {
			return apiVersion[:i], apiVersion[i+1:]
		}
	}
	return "", apiVersion
}
