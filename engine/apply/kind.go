package apply

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Spec describes a kind for field tracking.
type Spec struct {
	Group, Kind string
	Versions    []Version
	// Convert converts an object (JSON) between two versions of the kind.
	// It is called only when managedFields recorded through one version
	// are compared with a write through another.
	Convert func(obj []byte, from, to string) ([]byte, error)
}

// Version is one version of a kind.
type Version struct {
	Name string
	// Schema is the version's openAPIV3Schema as JSON; nil when it has
	// none (every field is then atomic, as for a kind without schema).
	Schema []byte
	// Status says whether the version serves a status subresource: the
	// main resource then does not own status, and /status owns only it.
	Status bool
}

// Kind holds what field tracking needs of one kind. It is safe for
// concurrent use; its type information is built on first use.
type Kind struct {
	spec     Spec
	versions map[string]versionInfo

	once     sync.Once
	tc       managedfields.TypeConverter
	managers map[managerKey]*managedfields.FieldManager
	err      error
}

type managerKey struct{ version, subresource string }

// versionInfo is what fastCreate needs of a version.
type versionInfo struct {
	Version
	plain bool // see plainSchema
}

// NewKind returns a Kind for spec. It is cheap: the type information is
// not built until a write needs it.
func NewKind(spec Spec) *Kind {
	k := &Kind{spec: spec, versions: make(map[string]versionInfo, len(spec.Versions))}
	for _, v := range spec.Versions {
		k.versions[v.Name] = versionInfo{Version: v, plain: plainSchema(v.Schema)}
	}
	return k
}

// manager returns the FieldManager of a version and subresource ("" or
// "status").
func (k *Kind) manager(version, subresource string) (*managedfields.FieldManager, error) {
	k.once.Do(k.build)
	if k.err != nil {
		return nil, k.err
	}
	fm, ok := k.managers[managerKey{version, subresource}]
	if !ok {
		return nil, fmt.Errorf("managed fields: no version %q (subresource %q) of %s", version, subresource, k.spec.Kind)
	}
	return fm, nil
}

// TypeConverter returns the structured-merge-diff types of every version
// of the kind, for a MutatingAdmissionPolicy's ApplyConfiguration.
// Errors: the schemas' that do not convert.
func (k *Kind) TypeConverter() (managedfields.TypeConverter, error) {
	k.once.Do(k.build)
	return k.tc, k.err
}

// build compiles the type information of every version and one
// FieldManager per version and subresource.
func (k *Kind) build() {
	tc, err := newTypeConverter(k.spec)
	if err != nil {
		k.err = err
		return
	}
	k.tc = tc
	conv := &converter{convert: k.spec.Convert}
	k.managers = make(map[managerKey]*managedfields.FieldManager)
	for _, v := range k.spec.Versions {
		gv := schema.GroupVersion{Group: k.spec.Group, Version: v.Name}
		for _, sub := range []string{"", "status"} {
			fm, err := managedfields.NewDefaultCRDFieldManager(tc, conv, nopDefaulter{}, creater{},
				gv.WithKind(k.spec.Kind), gv, sub, resetFields(gv, sub, v.Status))
			if err != nil {
				k.err = fmt.Errorf("managed fields of %s %s: %w", k.spec.Kind, v.Name, err)
				return
			}
			k.managers[managerKey{v.Name, sub}] = fm
		}
	}
}

// resetFields are the fields a write of subresource does not own, as
// kube-apiserver's custom resource strategies declare them: the main
// resource does not own status when a status subresource is served, and
// /status does not own spec.
func resetFields(gv schema.GroupVersion, subresource string, status bool) map[fieldpath.APIVersion]fieldpath.Filter {
	var reset *fieldpath.Set
	switch {
	case subresource == "status":
		reset = fieldpath.NewSet(fieldpath.MakePathOrDie("spec"))
	case status:
		reset = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	default:
		return nil
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{
		fieldpath.APIVersion(gv.String()): fieldpath.NewExcludeSetFilter(reset),
	}
}
