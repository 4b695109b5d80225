package workerid

import (
	"strings"
	"testing"
)

func TestValidName(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"default", true},
		{"orders.v2", true},
		{"A-Z_0-9", true},
		{"...", true},
		{".hidden", true},
		{strings.Repeat("x", 64), true},
		{"", false},
		{".", false},
		{"..", false},
		{strings.Repeat("x", 65), false},
		{"a/b", false},
		{"a b", false},
		{"é", false},
		{"a\x00", false},
	}
	for _, tt := range tests {
		if got := ValidName(tt.name); got != tt.want {
			t.Errorf("ValidName(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
