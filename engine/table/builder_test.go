package table

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/dynapi/dynapi/engine"
)

func TestNewErrors(t *testing.T) {
	t.Parallel()
	badInclude := field.Invalid(field.NewPath("includeObject"), "Everything",
		"must be 'Metadata', 'Object', 'None', or empty")
	tests := []struct {
		name, apiVersion, include string
		code                      engine.Code
		message                   string
	}{
		{"v1", APIVersionV1, "Object", "", ""},
		{"v1beta1", APIVersionV1beta1, "None", "", ""},
		{"default include", APIVersionV1, "", "", ""},
		{"unknown include", APIVersionV1, "Everything", engine.CodeBadRequest,
			"Unable to convert to Table as requested: " + badInclude.Error()},
		{"include is case sensitive", APIVersionV1, "object", engine.CodeBadRequest, ""},
		{"other version", "meta.k8s.io/v2", "", engine.CodeNotAcceptable,
			"no Table exists in group version meta.k8s.io/v2"},
	}
	for _, tt := range tests {
		_, err := New(nil, tt.apiVersion, tt.include, time.Now())
		if code := engine.ErrorCode(err); code != tt.code {
			t.Errorf("%s: code %q, want %q (%v)", tt.name, code, tt.code, err)
		}
		if tt.message != "" && (err == nil || err.Error() != tt.message) {
			t.Errorf("%s: message %v, want %q", tt.name, err, tt.message)
		}
	}
}

// The column descriptions must stay those of the apimachinery kube-apiserver
// is built with.
func TestDescriptionsMatchObjectMetaDocs(t *testing.T) {
	t.Parallel()
	docs := metav1.ObjectMeta{}.SwaggerDoc()
	if nameDescription != docs["name"] {
		t.Errorf("nameDescription = %q, want %q", nameDescription, docs["name"])
	}
	if creationTimestampDescription != docs["creationTimestamp"] {
		t.Errorf("creationTimestampDescription = %q, want %q", creationTimestampDescription, docs["creationTimestamp"])
	}
}
