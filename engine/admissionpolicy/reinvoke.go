package admissionpolicy

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
)

// reinvocationKey names one invocation: policy, binding and param.
type reinvocationKey struct {
	policy, binding, param types.NamespacedName
}

func keyOf(inv invocation) reinvocationKey {
	k := reinvocationKey{policy: types.NamespacedName{Name: inv.hook.policy.Name},
		binding: types.NamespacedName{Name: inv.binding.Name}}
	if inv.param != nil {
		if a, err := meta.Accessor(inv.param); err == nil {
			k.param = types.NamespacedName{Namespace: a.GetNamespace(), Name: a.GetName()}
		}
	}
	return k
}

// reinvocation is kube's policyReinvokeContext (unexported there): what
// the MutatingAdmissionPolicy plug-in keeps between the chain's runs.
type reinvocation struct {
	last            runtime.Object
	ran, reinvoking map[reinvocationKey]bool
}

// pluginName keys the plug-in's state in the reinvocation context.
const pluginName = "MutatingAdmissionPolicy"

func reinvocationOf(a admission.Attributes) *reinvocation {
	rc := a.GetReinvocationContext()
	if v, ok := rc.Value(pluginName).(*reinvocation); ok {
		return v
	}
	v := &reinvocation{ran: map[reinvocationKey]bool{}, reinvoking: map[reinvocationKey]bool{}}
	rc.SetValue(pluginName, v)
	return v
}

func (r *reinvocation) shouldReinvoke(k reinvocationKey) bool { return r.reinvoking[k] }

// changedSince reports whether a step after the plug-in changed obj.
func (r *reinvocation) changedSince(obj runtime.Object) bool {
	return !apiequality.Semantic.DeepEqual(r.last, obj)
}

// setLast remembers the plug-in's output: result, else the input.
func (r *reinvocation) setLast(result, input runtime.Object) {
	out := result
	if out == nil {
		out = input
	}
	if out == nil {
		r.last = nil
		return
	}
	r.last = out.DeepCopyObject()
}

// invoked records an IfNeeded policy that ran.
func (r *reinvocation) invoked(k reinvocationKey) { r.ran[k] = true }

// requireReinvoking marks every IfNeeded policy that ran for a second run.
func (r *reinvocation) requireReinvoking() {
	for k := range r.ran {
		r.reinvoking[k] = true
	}
	clear(r.ran)
}
