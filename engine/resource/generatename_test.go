package resource

import (
	"context"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/dynapi/dynapi/engine"
)

// TestGenerateNameRetries: a generated name that is taken is generated
// again, up to maxGenerateNameAttempts times, as kube-apiserver 1.32+ does;
// a name the client chose is never changed.
func TestGenerateNameRetries(t *testing.T) {
	tests := []struct {
		name  string
		names []string // what GenerateName returns, in turn
		body  string
		code  engine.Code
		want  string
	}{
		{name: "second name free", names: []string{"g", "g", "gen-b"}, body: gadget("", ``, ``, `"generateName":"gen-"`), want: "gen-b"},
		{name: "every name taken", names: []string{"g"}, body: gadget("", ``, ``, `"generateName":"gen-"`), code: engine.CodeAlreadyExists},
		{name: "a chosen name is not retried", names: []string{"gen-b"}, body: gadget("g", ``, ``, `"generateName":"gen-"`), code: engine.CodeAlreadyExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPipeline(t, nil)
			calls := 0
			p.service.GenerateName = func(string) string {
				calls++
				return tt.names[min(calls, len(tt.names))-1]
			}
			res, err := p.service.Create(context.Background(), p.target, []byte(tt.body), WriteOptions{})
			want(t, err, tt.code)
			if tt.code == engine.CodeAlreadyExists && tt.names[0] == "g" && calls != maxGenerateNameAttempts {
				t.Errorf("%d names generated, want %d", calls, maxGenerateNameAttempts)
			}
			if tt.want == "" {
				return
			}
			if got := gjson.GetBytes(res.Object, "metadata.name").String(); got != tt.want || !p.stored(tt.want).Exists() {
				t.Fatalf("created %q (%s)", got, res.Object)
			}
		})
	}
}
