package id80

import "testing"

func TestPartition_Uint16(t *testing.T) {
	tests := []struct {
		name string
		p    Partition
		u    uint16
	}{
		{"zero", Partition{}, 0},
		{"low byte", Partition{0, 1}, 1},
		{"high byte", Partition{1, 0}, 256},
		{"letters", Partition{'P', 1}, 0x5001},
		{"max", Partition{0xff, 0xff}, MaxPartition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Uint16(); got != tt.u {
				t.Errorf("Uint16() = %#x, want %#x", got, tt.u)
			}
			if got := PartitionFromUint16(tt.u); got != tt.p {
				t.Errorf("PartitionFromUint16(%#x) = %v, want %v", tt.u, got, tt.p)
			}
		})
	}
}
