package server

import (
	"errors"
	"testing"

	"github.com/floeid/floe/id64"
)

// TestCheck gives Check and New the same configurations: Check refuses
// exactly what New refuses, with the same error, and leaves the store
// untouched.
func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{name: "one sequence", cfg: Config{Sequences: []SequenceConfig{{Name: "default", Worker: 3}}}},
		{name: "three formats", cfg: Config{Sequences: []SequenceConfig{{Name: "default"}, {Name: "a", Format: Format80, Node: 7}, {Name: "b", Format: Format96, Node: 1}}}},
		{name: "no sequence", cfg: Config{}, wantErr: true},
		{name: "worker out of range", cfg: Config{Sequences: []SequenceConfig{{Name: "default", Layout: id64.Twitter, Worker: 32}}}, wantErr: true},
		{name: "datacenter out of range", cfg: Config{Sequences: []SequenceConfig{{Name: "default", Datacenter: 32}}}, wantErr: true},
		{name: "id128", cfg: Config{Sequences: []SequenceConfig{{Name: "default"}, {Name: "u", Format: Format128, Node: 65535}}}},
		{name: "id128 worker above 65535", cfg: Config{Sequences: []SequenceConfig{{Name: "default"}, {Name: "u", Format: Format128, Node: 65536}}}, wantErr: true},
		{name: "id96 node 0", cfg: Config{Sequences: []SequenceConfig{{Name: "default"}, {Name: "b", Format: Format96}}}, wantErr: true},
		{name: "a bad name", cfg: Config{Sequences: []SequenceConfig{{Name: "a/b"}}}, wantErr: true},
		{name: "a name twice", cfg: Config{Sequences: []SequenceConfig{{Name: "default"}, {Name: "default", Format: Format80}}}, wantErr: true},
		{name: "one token for two sequences", cfg: Config{Sequences: []SequenceConfig{{Name: "default", Tokens: []string{"t"}}, {Name: "a", Format: Format80, Tokens: []string{"t"}}}}, wantErr: true},
		{name: "a short window", cfg: Config{Sequences: []SequenceConfig{{Name: "default"}}, Window: MinWindow - 1}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newMemStore()
			cfg := tt.cfg
			cfg.Store, cfg.Logger = store, quietLogger()
			err := Check(cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Check = %v, want an error: %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrConfig) {
				t.Errorf("Check = %v, want ErrConfig", err)
			}
			if n := len(store.recs); n != 0 {
				t.Errorf("Check wrote %d records", n)
			}
			s, newErr := New(cfg)
			if s != nil {
				s.Close()
			}
			if (newErr == nil) != (err == nil) || (err != nil && newErr.Error() != err.Error()) {
				t.Errorf("Check = %v, New = %v: want the same", err, newErr)
			}
		})
	}
}
