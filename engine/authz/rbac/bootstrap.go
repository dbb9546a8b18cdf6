package rbac

import (
	"bytes"
	"context"
	_ "embed"
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

// bootstrapPolicy is kube-apiserver's bootstrap roles and bindings, as
// far as dynapi serves what they grant.
//
//go:embed bootstrap.yaml
var bootstrapPolicy []byte

// Bootstrap reconciles kube's bootstrap roles and bindings (creates those
// missing; puts back in the others what the policy has and they lack,
// unless annotated rbac.authorization.kubernetes.io/autoupdate=false),
// then creates the RBAC objects of policy (YAML or JSON documents, or
// Lists of them: the --authorization-policy-file) unless they exist: what
// an operator changed since is kept. Errors: BadRequest for a document
// that is not an RBAC object; those of the writes.
func Bootstrap(ctx context.Context, service *resource.Service, snap *registry.Snapshot, policy []byte) error {
	defaults, err := splitDocuments(bootstrapPolicy)
	if err != nil {
		return err
	}
	for _, doc := range defaults {
		if err := reconcile(ctx, service, snap, doc); err != nil {
			return err
		}
	}
	fromFile, err := splitDocuments(policy)
	if err != nil {
		return err
	}
	for _, doc := range fromFile {
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
	t, body, err := target(snap, doc)
	if err != nil {
		return err
	}
	_, err = service.Create(ctx, t, body, resource.WriteOptions{})
	if engine.ErrorCode(err) == engine.CodeAlreadyExists {
		return nil
	}
	if err != nil {
		return fmt.Errorf("authorization policy: create %s %s: %w", gjson.GetBytes(doc, "kind"), gjson.GetBytes(doc, "metadata.name"), err)
	}
	return nil
}

// reconcileAttempts bounds the retries of a bootstrap object that other
// processes, starting too, write at the same time.
const reconcileAttempts = 5

// reconcile creates one bootstrap object, or reconciles the stored one
// with it.
func reconcile(ctx context.Context, service *resource.Service, snap *registry.Snapshot, doc []byte) error {
	t, body, err := target(snap, doc)
	if err != nil {
		return err
	}
	name := gjson.GetBytes(doc, "metadata.name").String()
	for range reconcileAttempts {
		err = reconcileOnce(ctx, service, t, name, body)
		if code := engine.ErrorCode(err); code != engine.CodeConflict && code != engine.CodeAlreadyExists && code != engine.CodeNotFound {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("bootstrap policy: reconcile %s %s: %w", t.Resource.Kind, name, err)
	}
	return nil
}

func reconcileOnce(ctx context.Context, service *resource.Service, t resource.Target, name string, expected []byte) error {
	stored, err := service.Get(ctx, t, name)
	if engine.ErrorCode(err) == engine.CodeNotFound {
		_, err = service.Create(ctx, t, expected, resource.WriteOptions{})
		return err
	}
	if err != nil {
		return err
	}
	body, c, err := reconciled(t.Resource.Kind, stored, expected)
	switch {
	case err != nil || c == unchanged:
		return err
	case c == recreate:
		if _, err := service.Delete(ctx, t, name, resource.DeleteOptions{
			PreconditionResourceVersion: gjson.GetBytes(stored, "metadata.resourceVersion").String()}); err != nil {
			return err
		}
		_, err = service.Create(ctx, t, body, resource.WriteOptions{})
		return err
	}
	_, err = service.Update(ctx, t, name, body, resource.WriteOptions{})
	return err
}

// target is where an RBAC document is stored, and its body with an
// apiVersion. Errors: BadRequest for a document that is not an RBAC
// object.
func target(snap *registry.Snapshot, doc []byte) (resource.Target, []byte, error) {
	kind := gjson.GetBytes(doc, "kind").String()
	res, ok := snap.ResourceByKind(Group, kind)
	if !ok {
		return resource.Target{}, nil, engine.Errorf(engine.CodeBadRequest, "authorization policy: %q is not an RBAC kind (%s)", kind, Group)
	}
	_, ver, ok := snap.Lookup(Group, "v1", res.Plural)
	if !ok {
		return resource.Target{}, nil, engine.Errorf(engine.CodeBadRequest, "authorization policy: %s/v1 is not served", Group)
	}
	body, err := withAPIVersion(doc)
	if err != nil {
		return resource.Target{}, nil, err
	}
	return resource.Target{Resource: res, Version: ver, Namespace: gjson.GetBytes(doc, "metadata.namespace").String()}, body, nil
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
