package openapi

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"go.yaml.in/yaml/v3"
)

// yamlNode builds the YAML node tree that parsing a JSON document as YAML
// gives, as gnostic reads a document: what openapiv2.ParseDocument does,
// without running the YAML parser over the JSON (most of its cost, and
// under a lock global to the process).
func yamlNode(v gjson.Result) *yaml.Node {
	switch {
	case v.IsObject():
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		v.ForEach(func(key, value gjson.Result) bool {
			n.Content = append(n.Content, scalar("!!str", key.Str), yamlNode(value))
			return true
		})
		return n
	case v.IsArray():
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		v.ForEach(func(_, value gjson.Result) bool {
			n.Content = append(n.Content, yamlNode(value))
			return true
		})
		return n
	}
	switch v.Type {
	case gjson.String:
		return scalar("!!str", v.Str)
	case gjson.Number:
		return scalar(numberTag(v.Raw), v.Raw)
	case gjson.True, gjson.False:
		return scalar("!!bool", v.Raw)
	}
	return scalar("!!null", "null")
}

// numberTag is the tag YAML resolves a JSON number to: an integer that
// fits 64 bits is an int, anything else a float.
func numberTag(raw string) string {
	if strings.ContainsAny(raw, ".eE") {
		return "!!float"
	}
	if _, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return "!!int"
	}
	if _, err := strconv.ParseUint(raw, 10, 64); err == nil {
		return "!!int"
	}
	return "!!float"
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}
