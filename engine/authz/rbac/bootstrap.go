package rbac

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/registry"
	"github.com/dynapi/dynapi/engine/resource"
)

// defaults are kube-apiserver's bootstrap roles that every user needs:
// cluster-admin (held by system:masters), discovery and the health and
// version paths for everyone authenticated, and the self reviews
// (kubectl auth can-i, whoami).
var defaults = []string{
	`{"kind":"ClusterRole","metadata":{"name":"cluster-admin"},"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]},{"nonResourceURLs":["*"],"verbs":["*"]}]}`,
	`{"kind":"ClusterRoleBinding","metadata":{"name":"cluster-admin"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:masters"}]}`,
	`{"kind":"ClusterRole","metadata":{"name":"system:discovery"},"rules":[{"nonResourceURLs":["/api","/api/*","/apis","/apis/*","/healthz","/livez","/readyz","/openapi","/openapi/*","/version","/version/"],"verbs":["get"]}]}`,
	`{"kind":"ClusterRoleBinding","metadata":{"name":"system:discovery"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:discovery"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:authenticated"}]}`,
	`{"kind":"ClusterRole","metadata":{"name":"system:basic-user"},"rules":[{"apiGroups":["authorization.k8s.io"],"resources":["selfsubjectaccessreviews","selfsubjectrulesreviews"],"verbs":["create"]},{"apiGroups":["authentication.k8s.io"],"resources":["selfsubjectreviews"],"verbs":["create"]}]}`,
	`{"kind":"ClusterRoleBinding","metadata":{"name":"system:basic-user"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:basic-user"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:authenticated"}]}`,
	`{"kind":"ClusterRole","metadata":{"name":"system:public-info-viewer"},"rules":[{"nonResourceURLs":["/healthz","/livez","/readyz","/version","/version/"],"verbs":["get"]}]}`,
	`{"kind":"ClusterRoleBinding","metadata":{"name":"system:public-info-viewer"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"system:public-info-viewer"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:authenticated"},{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:unauthenticated"}]}`,
}

// Bootstrap creates kube's default roles and bindings, then the RBAC
// objects of policy (YAML or JSON documents, or Lists of them: the
// --authorization-policy-file), each unless it exists: what an operator
// changed since is kept. Errors: BadRequest for a document that is not an
// RBAC object; those of Create.
func Bootstrap(ctx context.Context, service *resource.Service, snap *registry.Snapshot, policy []byte) error {
	docs := make([][]byte, 0, len(defaults))
	for _, d := range defaults {
		docs = append(docs, []byte(d))
	}
	fromFile, err := splitDocuments(policy)
	if err != nil {
		return err
	}
	for _, doc := range append(docs, fromFile...) {
		if err := ensure(ctx, service, snap, doc); err != nil {
			return err
		}
	}
	return nil
}

// splitDocuments reads YAML or JSON documents and unrolls Lists.
func splitDocuments(data []byte) ([][]byte, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out [][]byte
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, engine.Errorf(engine.CodeBadRequest, "authorization policy: %v", err)
		}
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		if items := gjson.GetBytes(raw, "items"); gjson.GetBytes(raw, "kind").String() == "List" {
			for _, it := range items.Array() {
				out = append(out, []byte(it.Raw))
			}
			continue
		}
		out = append(out, raw)
	}
}

// ensure creates one RBAC object unless it exists.
func ensure(ctx context.Context, service *resource.Service, snap *registry.Snapshot, doc []byte) error {
	kind := gjson.GetBytes(doc, "kind").String()
	res, ok := snap.ResourceByKind(Group, kind)
	if !ok {
		return engine.Errorf(engine.CodeBadRequest, "authorization policy: %q is not an RBAC kind (%s)", kind, Group)
	}
	_, ver, ok := snap.Lookup(Group, "v1", res.Plural)
	if !ok {
		return engine.Errorf(engine.CodeBadRequest, "authorization policy: %s/v1 is not served", Group)
	}
	body, err := withAPIVersion(doc)
	if err != nil {
		return err
	}
	t := resource.Target{Resource: res, Version: ver, Namespace: gjson.GetBytes(doc, "metadata.namespace").String()}
	_, err = service.Create(ctx, t, body, resource.WriteOptions{})
	if engine.ErrorCode(err) == engine.CodeAlreadyExists {
		return nil
	}
	if err != nil {
		return fmt.Errorf("authorization policy: create %s %s: %w", kind, gjson.GetBytes(doc, "metadata.name"), err)
	}
	return nil
}

func withAPIVersion(doc []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		return nil, engine.Errorf(engine.CodeBadRequest, "authorization policy: %v", err)
	}
	if _, ok := m["apiVersion"]; !ok {
		m["apiVersion"] = Group + "/v1"
	}
	return json.Marshal(m)
}
