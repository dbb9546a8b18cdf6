package conversionwebhook

import (
	"encoding/json"
	"errors"
	"fmt"
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

// request is a ConversionReview as kube sends it: with an empty response.
type request struct {
	Kind       string          `json:"kind"`
	APIVersion string          `json:"apiVersion"`
	Request    reviewRequest   `json:"request"`
	Response   json.RawMessage `json:"response"`
}

type reviewRequest struct {
	UID               string            `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

// emptyResponse is how kube's client encodes the request's empty response.
var emptyResponse = json.RawMessage(`{"uid":"","convertedObjects":null,"result":{"metadata":{}}}`)

// encodeRequest is the body of a call.
func encodeRequest(version, uid, desired string, objs [][]byte) ([]byte, error) {
	raw := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		raw[i] = o
	}
	return json.Marshal(request{Kind: "ConversionReview", APIVersion: reviewGroup + "/" + version,
		Request: reviewRequest{UID: uid, DesiredAPIVersion: desired, Objects: raw}, Response: emptyResponse})
}

// response is the part of a ConversionReview read back.
type response struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Response   *struct {
		UID              string            `json:"uid"`
		ConvertedObjects []json.RawMessage `json:"convertedObjects"`
		Result           struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"result"`
	} `json:"response"`
}

// convertedObjects reads a response as kube's getConvertedObjectsFromResponse
// does, with its words: a v1 review must be one and carry the request's uid
// (a v1beta1 one is not checked for either).
func convertedObjects(version, uid string, body []byte) ([]json.RawMessage, error) {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	if version == reviewV1 {
		if got := gvkString(r.APIVersion, r.Kind); r.APIVersion != reviewGroup+"/"+reviewV1 || r.Kind != "ConversionReview" {
			return nil, fmt.Errorf("expected webhook response of %s/%s, Kind=ConversionReview, got %s", reviewGroup, reviewV1, got)
		}
	}
	if r.Response == nil {
		return nil, errors.New("no response provided")
	}
	if version == reviewV1 && r.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
	}
	if res := r.Response.Result; res.Status != "Success" {
		if res.Message != "" {
			return nil, errors.New(res.Message)
		}
		return nil, fmt.Errorf("response.result.status was '%s', not 'Success'", res.Status)
	}
	return r.Response.ConvertedObjects, nil
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
