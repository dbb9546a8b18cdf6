package kubeproto

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dynapi/dynapi/engine"
)

// WatchMediaType is the Content-Type of a watch answered in protobuf: a
// stream of length-prefixed metav1.WatchEvent frames.
const WatchMediaType = MediaType + ";stream=watch"

// Encodes reports whether objects of gvk, and their lists, have a protobuf
// form: whether FromJSON and List encode them. Custom resources have none.
func Encodes(gvk engine.GroupVersionKind) bool {
	_, ok := kinds[typeKey{gvk.APIVersion(), gvk.Kind}]
	return ok
}

// FromJSON encodes obj, a JSON object whose apiVersion and kind Encodes,
// in MediaType: the magic prefix, then a runtime.Unknown envelope naming
// the kind around the object's protobuf, as kube-apiserver writes it.
// The errors (a kind without a protobuf form, an object its type cannot
// hold) are the server's own faults: plain errors.
func FromJSON(obj []byte) ([]byte, error) {
	tm, payload, err := marshal(obj)
	if err != nil {
		return nil, err
	}
	return inEnvelope(tm, payload), nil
}

// marshal turns obj into the protobuf of its kind's generated type, by way
// of that type's JSON decoding, and returns the kind it named.
func marshal(obj []byte) (runtime.TypeMeta, []byte, error) {
	head := gjson.GetManyBytes(obj, "apiVersion", "kind")
	tm := runtime.TypeMeta{APIVersion: head[0].String(), Kind: head[1].String()}
	newMessage, ok := kinds[typeKey{tm.APIVersion, tm.Kind}]
	if !ok {
		return tm, nil, fmt.Errorf("encode %s %s as protobuf: the kind has no protobuf form", tm.APIVersion, tm.Kind)
	}
	m := newMessage()
	if err := json.Unmarshal(obj, m); err != nil {
		return tm, nil, fmt.Errorf("encode %s %s as protobuf: %w", tm.APIVersion, tm.Kind, err)
	}
	payload, err := m.Marshal()
	if err != nil {
		return tm, nil, fmt.Errorf("encode %s %s as protobuf: %w", tm.APIVersion, tm.Kind, err)
	}
	return tm, payload, nil
}

// inEnvelope puts payload, the protobuf of a tm, in its envelope after the magic.
func inEnvelope(tm runtime.TypeMeta, payload []byte) []byte {
	env := runtime.Unknown{TypeMeta: tm, Raw: payload}
	out := make([]byte, len(magic)+env.Size())
	copy(out, magic)
	_, _ = env.MarshalToSizedBuffer(out[len(magic):]) // sized by Size: cannot fail
	return out
}

// List builds a list in MediaType item by item, holding the items'
// protobuf only. Every k8s.io/api list (ConfigMapList, LeaseList, ...) is
// the same message: ListMeta as field 1 and the items as field 2, each an
// item of the kind, so that no list type is needed.
type List struct {
	typeMeta runtime.TypeMeta
	items    []byte
}

// NewList starts a list of kind listKind (ConfigMapList) in apiVersion.
func NewList(apiVersion, listKind string) *List {
	return &List{typeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: listKind}}
}

// Add appends one item, a JSON object whose kind Encodes. Errors: as
// FromJSON.
func (l *List) Add(item []byte) error {
	_, payload, err := marshal(item)
	if err != nil {
		return err
	}
	l.items = appendField(l.items, 2, payload)
	return nil
}

// Bytes ends the list with meta, the JSON of its ListMeta, and returns it
// in MediaType. Errors: meta that is not a ListMeta.
func (l *List) Bytes(meta []byte) ([]byte, error) {
	var lm metav1.ListMeta
	if err := json.Unmarshal(meta, &lm); err != nil {
		return nil, fmt.Errorf("encode %s metadata as protobuf: %w", l.typeMeta.Kind, err)
	}
	m, err := lm.Marshal()
	if err != nil {
		return nil, fmt.Errorf("encode %s metadata as protobuf: %w", l.typeMeta.Kind, err)
	}
	payload := appendField(make([]byte, 0, len(m)+binary.MaxVarintLen64+1+len(l.items)), 1, m)
	return inEnvelope(l.typeMeta, append(payload, l.items...)), nil
}

// appendField appends a length-delimited protobuf field (wire type 2).
func appendField(b []byte, number uint64, data []byte) []byte {
	b = binary.AppendUvarint(b, number<<3|2)
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

// WatchEvent frames one event of a watch in WatchMediaType, as
// kube-apiserver's watch writes it: the frame's length (4 bytes,
// big-endian), then a metav1.WatchEvent whose object is obj (a JSON object
// whose kind Encodes) in MediaType. Errors: as FromJSON.
func WatchEvent(eventType string, obj []byte) ([]byte, error) {
	body, err := FromJSON(obj)
	if err != nil {
		return nil, err
	}
	ev := metav1.WatchEvent{Type: eventType, Object: runtime.RawExtension{Raw: body}}
	out := make([]byte, 4+ev.Size())
	binary.BigEndian.PutUint32(out, uint32(len(out)-4))
	_, _ = ev.MarshalToSizedBuffer(out[4:]) // sized by Size: cannot fail
	return out, nil
}
