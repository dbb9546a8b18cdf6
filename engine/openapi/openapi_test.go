package openapi

import "testing"

func TestSchemaName(t *testing.T) {
	tests := []struct{ group, version, kind, want string }{
		{"shop.example.com", "v1", "Widget", "com.example.shop.v1.Widget"},
		{"", "v1", "Namespace", "io.k8s.api.core.v1.Namespace"},
		{"single", "v2", "Thing", "single.v2.Thing"},
	}
	for _, tt := range tests {
		if got := schemaName(tt.group, tt.version, tt.kind); got != tt.want {
			t.Errorf("schemaName(%q, %q, %q) = %q, want %q", tt.group, tt.version, tt.kind, got, tt.want)
		}
	}
}
