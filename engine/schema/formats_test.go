package schema

import "testing"

func TestFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		format  string
		valid   []string
		invalid []string
	}{
		{"bsonobjectid", []string{"507f1f77bcf86cd799439011"}, []string{"507f1f77bcf86cd79943901", "zz7f1f77bcf86cd799439011"}},
		{"uri", []string{"https://example.com/a?b=c", "urn:isbn:123"}, []string{"relative/path", ""}},
		{"email", []string{"a@example.com", "Name <a@b.c>"}, []string{"not an email", "a@"}},
		{"hostname", []string{"example.com", "a-b.c", "localhost", "bücher.de"}, []string{"-bad", "a..b", "", "under_score"}},
		{"ipv4", []string{"10.0.0.1"}, []string{"::1", "256.0.0.1", "10.0.0"}},
		{"ipv6", []string{"::1", "fe80::1"}, []string{"10.0.0.1", "::g"}},
		{"cidr", []string{"10.0.0.0/8", "fd00::/8"}, []string{"10.0.0.0", "10.0.0.0/33"}},
		{"mac", []string{"00:1a:2b:3c:4d:5e"}, []string{"00:1a:2b"}},
		{"uuid", []string{"123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000"}, []string{"123e4567", "g23e4567-e89b-12d3-a456-426614174000"}},
		{"uuid3", []string{"a3bb189e-8bf9-3888-9912-ace4e6543002"}, []string{"a3bb189e-8bf9-4888-9912-ace4e6543002"}},
		{"uuid4", []string{"f47ac10b-58cc-4372-a567-0e02b2c3d479"}, []string{"f47ac10b-58cc-4372-c567-0e02b2c3d479"}},
		{"uuid5", []string{"886313e1-3b8a-5372-9b90-0c9aee199e5d"}, []string{"886313e1-3b8a-4372-9b90-0c9aee199e5d"}},
		{"isbn10", []string{"0321751043", "0-321-75104-3", "080442957X"}, []string{"0321751044", "03217510", "03217X1043"}},
		{"isbn13", []string{"978-0321751041"}, []string{"978-0321751042"}},
		{"isbn", []string{"0321751043", "9780321751041"}, []string{"123"}},
		{"creditcard", []string{"4111 1111 1111 1111", "5555-5555-5555-4444"}, []string{"4111 1111 1111 1112", "1234"}},
		{"ssn", []string{"123-45-6789", "123456789"}, []string{"12-345-6789"}},
		{"hexcolor", []string{"#fff", "A0B1C2"}, []string{"#ffff", "#ggg"}},
		{"rgbcolor", []string{"rgb(255, 0, 10)"}, []string{"rgb(256,0,0)", "rgb(1,2)"}},
		{"byte", []string{"aGVsbG8=", ""}, []string{"%%%", "aGVsbG8"}},
		{"password", []string{"", "anything"}, nil},
		{"date", []string{"2024-02-29"}, []string{"2023-02-29", "2024-1-1"}},
		{"duration", []string{"1h30m", "3 days", "2 weeks 1 d", "500ms", "10 µs"}, []string{"soon", "1 fortnight", ""}},
		{"date-time", []string{"2024-05-01T10:00:00Z", "2024-05-01t10:00:00.123+02:00", "2024-05-01T10:00:00", "2024-05-01 10:00:00"}, []string{"2024-05-01", "yesterday"}},
	}
	for _, tt := range tests {
		check := lookupFormat(tt.format)
		if check == nil {
			t.Errorf("format %q not supported", tt.format)
			continue
		}
		for _, v := range tt.valid {
			if !check(v) {
				t.Errorf("%s: %q rejected", tt.format, v)
			}
		}
		for _, v := range tt.invalid {
			if check(v) {
				t.Errorf("%s: %q accepted", tt.format, v)
			}
		}
	}
}

func TestFormatsIgnored(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"int32", "int64", "float", "double", "k8s-short-name", ""} {
		if lookupFormat(f) != nil {
			t.Errorf("format %q is validated; kube-apiserver ignores it", f)
		}
	}
	if !formatChecker(lookupFormat("uuid"))(42) {
		t.Error("a format rejected a non-string")
	}
}
