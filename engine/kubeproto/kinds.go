package kubeproto

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// message is a generated k8s.io/api type: it reads its own protobuf payload,
// and its TypeMeta receives apiVersion and kind, which the payload lacks.
type message interface {
	runtime.Object
	Unmarshal(data []byte) error
}

// typeKey names a kind as the protobuf envelope does.
type typeKey struct{ apiVersion, kind string }

// kinds holds the kinds ToJSON decodes. Add a built-in kind in one line.
var kinds = map[typeKey]func() message{
	{"v1", "Namespace"}: func() message { return new(corev1.Namespace) },
}
