// Package encryption encrypts stored bodies at rest as kube-apiserver's
// --encryption-provider-config does: it reads an EncryptionConfiguration
// (apiserver.config.k8s.io/v1), checks it with Kubernetes' own validation,
// and builds, per resource, Kubernetes' own value transformers (aesgcm,
// aescbc, secretbox, identity), so that a ciphertext is byte for byte what
// kube-apiserver writes into etcd: "k8s:enc:aescbc:v1:key1:" and the
// cipher's output. The first provider of a resource encrypts; every one is
// tried, by its prefix, to decrypt. It is the only package of dynapi that
// imports k8s.io/apiserver's storage/value packages; the store
// (engine/postgres) sees a Transformer per resource and nothing else.
//
// The kms provider is refused: a KMS v2 plugin needs kube's gRPC client,
// its health probes and its DEK cache (k8s.io/kms, client-go and
// OpenTelemetry come with them), which is more than this server should carry.
package encryption

import (
	"errors"
	"fmt"
	"os"

	"github.com/dynapi/dynapi/engine"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/apis/apiserver"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/storage/value"
	"sigs.k8s.io/yaml"
)

// Config is a loaded EncryptionConfiguration: the transformer of each
// resource it names. It is immutable and safe for concurrent use.
type Config struct {
	// byResource holds exact resources and the wildcards "*.group"
	// (Resource "*") and "*.*", as kube-apiserver resolves them.
	byResource map[schema.GroupResource]*Transformer
}

// Load reads and parses the EncryptionConfiguration at path. Errors: the
// file's, and Parse's, with the path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("error reading encryption provider configuration file %q: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("encryption provider configuration file %q is empty", path)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("encryption provider configuration file %q: %w", path, err)
	}
	return c, nil
}

// Parse reads an EncryptionConfiguration (YAML or JSON). Errors: unknown
// fields, another kind or apiVersion, what kube-apiserver's validation
// refuses (with its field paths and wording), keys that do not decode,
// and any kms provider.
func Parse(data []byte) (*Config, error) {
	var v1 apiserverv1.EncryptionConfiguration
	if err := yaml.UnmarshalStrict(data, &v1); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if v1.Kind != "EncryptionConfiguration" || v1.APIVersion != apiserverv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("want kind EncryptionConfiguration of apiVersion %s, got kind %q of apiVersion %q",
			apiserverv1.SchemeGroupVersion, v1.Kind, v1.APIVersion)
	}
	var cfg apiserver.EncryptionConfiguration
	if err := apiserverv1.Convert_v1_EncryptionConfiguration_To_apiserver_EncryptionConfiguration(&v1, &cfg, nil); err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	if err := validation.ValidateEncryptionConfiguration(&cfg, false).ToAggregate(); err != nil {
		return nil, err
	}
	return build(&cfg)
}

// build makes the transformer of each resource entry, as kube-apiserver's
// encryptionconfig does: the providers of every entry naming a resource,
// in order, behind one prefix switch. Errors: a rule masked by an earlier
// wildcard, a kms provider, a key that does not make a cipher.
func build(cfg *apiserver.EncryptionConfiguration) (*Config, error) {
	lists := map[schema.GroupResource][]value.PrefixTransformer{}
	for i, rc := range cfg.Resources {
		providers, err := prefixTransformers(rc)
		if err != nil {
			return nil, fmt.Errorf("resources[%d]: %w", i, err)
		}
		for _, name := range rc.Resources {
			gr := schema.ParseGroupResource(name)
			if err := masked(lists, gr); err != nil {
				return nil, err
			}
			lists[gr] = append(lists[gr], providers...)
		}
	}
	c := &Config{byResource: make(map[schema.GroupResource]*Transformer, len(lists))}
	for gr, list := range lists {
		c.byResource[gr] = &Transformer{value: value.NewPrefixTransformers(errors.New("no matching prefix found"), list...)}
	}
	return c, nil
}

// anyGroupAnyResource is the "*.*" rule.
var anyGroupAnyResource = schema.GroupResource{Group: "*", Resource: "*"}

// masked refuses a rule that an earlier "*.group" or "*.*" already covers,
// as kube-apiserver does.
func masked(lists map[schema.GroupResource][]value.PrefixTransformer, gr schema.GroupResource) error {
	for _, wild := range []schema.GroupResource{{Group: gr.Group, Resource: "*"}, anyGroupAnyResource} {
		if _, ok := lists[wild]; ok {
			return fmt.Errorf("resource %q is masked by earlier rule %q", grYAMLString(gr), grYAMLString(wild))
		}
	}
	return nil
}

// grYAMLString renders a rule as the configuration writes it ("*." for
// every resource of the core group).
func grYAMLString(gr schema.GroupResource) string {
	if gr.Group == "" && gr.Resource == "*" {
		return "*."
	}
	return gr.String()
}

// For returns the transformer of gr's bodies, nil when the configuration
// names neither gr nor a wildcard covering it: those bodies are stored as
// they are, at no cost. A nil Config names nothing.
func (c *Config) For(gr engine.GroupResource) *Transformer {
	if c == nil {
		return nil
	}
	if t := c.byResource[schema.GroupResource{Group: gr.Group, Resource: gr.Resource}]; t != nil {
		return t
	}
	if t := c.byResource[schema.GroupResource{Group: gr.Group, Resource: "*"}]; t != nil {
		return t
	}
	return c.byResource[anyGroupAnyResource]
}
