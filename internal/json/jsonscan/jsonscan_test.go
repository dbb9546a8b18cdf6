package jsonscan

import "testing"

func TestSkipValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		i, want    int
	}{
		{"short string", `"ab",1`, 0, 4},
		{"long string", `"` + "0123456789abcdefghij" + `",1`, 0, 22},
		{"escaped quotes", `"a\"b\\",1`, 0, 8},
		{"escaped quote after 16 bytes", `"0123456789abcdef\"x",1`, 0, 21},
		{"number", `12.5e3,`, 0, 6},
		{"literal before a bracket", `true]`, 0, 4},
		{"object with brackets in strings", `{"a":"}]","b":[1,{"c":"{"}]},`, 0, 28},
		{"list", ` [1, [2, 3]] `, 1, 12},
		{"unterminated", `{"a":[1,2`, 0, 9},
		{"past the end", `1`, 1, 1},
	}
	for _, tt := range tests {
		if got := SkipValue(tt.text, tt.i); got != tt.want {
			t.Errorf("%s: SkipValue(%q, %d) = %d, want %d", tt.name, tt.text, tt.i, got, tt.want)
		}
	}
}

func TestClose(t *testing.T) {
	t.Parallel()
	text := `{"a":1,"b":{"c":"}"},"d":[]} tail`
	if got := Close(text, 7); got != 28 {
		t.Errorf("Close from inside the object = %d, want 28", got)
	}
}

func TestSkipSpace(t *testing.T) {
	t.Parallel()
	if got := SkipSpace(" \n\t\r x", 0); got != 5 {
		t.Errorf("SkipSpace = %d, want 5", got)
	}
}
