package admissionwebhook

import (
	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/labels"
)

// selects says sel matches the labels of obj (JSON); a missing object
// matches nothing, as in kube.
func selects(sel labels.Selector, obj []byte) bool {
	if obj == nil {
		return false
	}
	set := labels.Set{}
	gjson.GetBytes(obj, "metadata.labels").ForEach(func(k, v gjson.Result) bool {
		set[k.String()] = v.String()
		return true
	})
	return sel.Matches(set)
}
