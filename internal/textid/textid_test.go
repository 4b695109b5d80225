package textid

import (
	"errors"
	"testing"

	"github.com/floeid/floe"
)

func TestUnquote(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", `"abc"`, "abc", true},
		{"empty string", `""`, "", true},
		{"escaped", `"a\u0062c"`, "abc", true},
		{"bad escape", `"a\qc"`, "", false},
		{"number", `123`, "", false},
		{"one quote", `"`, "", false},
		{"unterminated", `"abc`, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Unquote([]byte(tc.in))
			if ok != tc.ok || string(got) != tc.want {
				t.Errorf("Unquote(%s) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
	if !IsNull([]byte("null")) || IsNull([]byte(`"null"`)) {
		t.Error("IsNull is wrong")
	}
}

func TestScanText(t *testing.T) {
	if b, null, err := ScanText("id80", "x"); string(b) != "x" || null || err != nil {
		t.Errorf("string: %q %v %v", b, null, err)
	}
	if b, null, err := ScanText("id80", []byte("y")); string(b) != "y" || null || err != nil {
		t.Errorf("[]byte: %q %v %v", b, null, err)
	}
	if _, null, err := ScanText("id80", nil); !null || err != nil {
		t.Errorf("nil: %v %v", null, err)
	}
	_, _, err := ScanText("id80", 3.5)
	var pe *floe.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, floe.ErrUnsupportedType) || pe.Input != "float64" {
		t.Errorf("float64: %v", err)
	}
}
