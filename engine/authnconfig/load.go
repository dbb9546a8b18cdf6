// Package authnconfig reads kube-apiserver's --authentication-config
// file, an apiserver.config.k8s.io AuthenticationConfiguration (v1, or
// v1beta1/v1alpha1 as kube still reads them): JWT issuers with their claim
// rules and mappings, and the anonymous settings. It decodes and validates
// with Kubernetes' own types and validation, builds one authn.JWT per
// issuer, and follows the file as kube does: a change takes effect without
// a restart, a bad one is logged and counted and leaves the previous
// configuration in force.
package authnconfig

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/install"

	"github.com/dynapi/dynapi/engine/authn"
	"github.com/dynapi/dynapi/engine/schema/cel"
)

var (
	scheme = runtime.NewScheme()
	// codecs decode strictly, as kube's: an unknown or duplicate field is
	// an error, not ignored.
	codecs = serializer.NewCodecFactory(scheme, serializer.EnableStrict)
)

func init() { install.Install(scheme) }

// Parse decodes an AuthenticationConfiguration (YAML or JSON) and
// validates it as kube does; disallowedIssuers are the service-account
// issuers, which no JWT entry may name. Errors: empty data, a document of
// another kind or with unknown fields, and every validation problem with
// its field path.
func Parse(data []byte, disallowedIssuers []string) (*apiserver.AuthenticationConfiguration, error) {
	if len(data) == 0 {
		return nil, errors.New("empty config data")
	}
	obj, err := runtime.Decode(codecs.UniversalDecoder(), data)
	if err != nil {
		return nil, err
	}
	c, ok := obj.(*apiserver.AuthenticationConfiguration)
	if !ok {
		return nil, fmt.Errorf("expected AuthenticationConfiguration, got %T", obj)
	}
	if err := cel.ValidateAuthentication(c, disallowedIssuers); err != nil {
		return nil, err
	}
	return c, nil
}

// build returns the authenticators of c's JWT entries, in order.
func build(c *apiserver.AuthenticationConfiguration, disallowedIssuers []string) (authn.Union, error) {
	u := make(authn.Union, 0, len(c.JWT))
	for _, a := range c.JWT {
		rules, err := cel.CompileJWT(a, disallowedIssuers)
		if err != nil {
			return nil, err
		}
		j, err := authn.NewJWT(a, rules)
		if err != nil {
			return nil, err
		}
		u = append(u, j)
	}
	return u, nil
}
