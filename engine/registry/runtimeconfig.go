package registry

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// RuntimeConfig switches API groups and versions off (and back on), as
// kube-apiserver's --runtime-config does. The zero value serves everything
// the definitions serve. A switched-off version is loaded as not served:
// requests to it get 404, and discovery and OpenAPI leave it out. Turning a
// version on never serves one its definition declares not served.
type RuntimeConfig struct {
	entries map[string]bool // by key, as written
}

// ParseRuntimeConfig reads a comma-separated list of key=value, where value
// is true or false (a key alone means true) and key is one of:
//
//	group/version       one version of a named group: shop.example.com/v1beta1
//	group               every version of a named group: shop.example.com
//	api/version         one version of the core group: api/v1
//	api/ga, api/beta, api/alpha
//	                    every version of that stability (v1; v1beta1; v1alpha1)
//	api/all             every version of every group
//
// The most specific key that matches a version decides, in that order; the
// order of the list does not matter.
func ParseRuntimeConfig(s string) (RuntimeConfig, error) {
	c := RuntimeConfig{entries: map[string]bool{}}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, value, hasValue := strings.Cut(item, "=")
		on := true
		if hasValue {
			var err error
			if on, err = strconv.ParseBool(value); err != nil {
				return RuntimeConfig{}, fmt.Errorf("runtime-config %q: the value must be true or false", item)
			}
		}
		if err := checkRuntimeKey(key); err != nil {
			return RuntimeConfig{}, fmt.Errorf("runtime-config %q: %w", item, err)
		}
		c.entries[key] = on
	}
	return c, nil
}

func checkRuntimeKey(key string) error {
	parts := strings.Split(key, "/")
	for _, p := range parts {
		if p == "" || len(parts) > 2 {
			return fmt.Errorf("the key must be group, group/version, api/version or api/all")
		}
	}
	return nil
}

// Enabled reports whether version of group may be served.
func (c RuntimeConfig) Enabled(group, version string) bool {
	gv, g := group+"/"+version, group
	if group == "" {
		gv, g = "api/"+version, ""
	}
	for _, key := range []string{gv, g, "api/" + stability(version), "api/all"} {
		if on, ok := c.entries[key]; ok {
			return on
		}
	}
	return true
}

var (
	gaVersion    = regexp.MustCompile(`^v[0-9]+$`)
	betaVersion  = regexp.MustCompile(`^v[0-9]+beta[0-9]+$`)
	alphaVersion = regexp.MustCompile(`^v[0-9]+alpha[0-9]+$`)
)

// stability names a version's level as kube-apiserver's api/ga, api/beta
// and api/alpha keys mean it; "-" for a version that is none of them, which
// no key matches.
func stability(version string) string {
	switch {
	case gaVersion.MatchString(version):
		return "ga"
	case betaVersion.MatchString(version):
		return "beta"
	case alphaVersion.MatchString(version):
		return "alpha"
	}
	return "-"
}

// Unmatched returns, sorted, the keys that name a group or version no
// definition in s declares (served or not): a misspelt key switches
// nothing, and saying so is all that can be done, since a definition that
// matches it may be added later. The stability keys (api/all, api/ga, ...)
// name no group and are never unmatched.
func (c RuntimeConfig) Unmatched(s *Snapshot) []string {
	declared := map[string]bool{"api/all": true, "api/ga": true, "api/beta": true, "api/alpha": true}
	for _, r := range s.Resources() {
		group := r.Group
		if group == "" {
			group = "api"
		} else {
			declared[group] = true
		}
		for _, v := range r.Versions {
			declared[group+"/"+v.Name] = true
		}
	}
	var out []string
	for key := range c.entries {
		if !declared[key] {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// apply marks the definition's switched-off versions as not served.
func (c RuntimeConfig) apply(n *native) {
	for i := range n.Versions {
		if !c.Enabled(n.Group, n.Versions[i].Name) {
			n.Versions[i].Served = ptr(false)
		}
	}
}
