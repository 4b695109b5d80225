package sequencer_test

import (
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
)

func TestSnowcast(t *testing.T) {
	epoch := time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		nodes     int
		wantIDs   int
		wantNodes bool // the error is id64.ErrSnowcastNodes
	}{
		{"fewest nodes", 128, 128, false},
		{"most nodes", 8192, 8192, false},
		{"rounded up to a power of two", 1000, 1024, false},
		{"too few nodes", 127, 0, true},
		{"too many nodes", 8193, 0, true},
		{"no nodes", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := sequencer.Snowcast(epoch, tt.nodes)
			if tt.wantNodes {
				if !errors.Is(err, sequencer.ErrDefinition) || !errors.Is(err, id64.ErrSnowcastNodes) {
					t.Fatalf("Snowcast(%d) = %v, want ErrDefinition and id64.ErrSnowcastNodes", tt.nodes, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := d.WorkerIDs(); got != tt.wantIDs {
				t.Errorf("WorkerIDs() = %d, want %d", got, tt.wantIDs)
			}
			if !d.Layout.Epoch.Equal(epoch) {
				t.Errorf("epoch %v, want %v", d.Layout.Epoch, epoch)
			}
		})
	}
}

func TestDefinition_Validate(t *testing.T) {
	tests := []struct {
		name string
		def  sequencer.Definition
		ok   bool
	}{
		{"zero is id64 twitter", sequencer.Definition{}, true},
		{"id64 twitter", sequencer.Definition{Format: sequencer.Format64, Layout: id64.Twitter}, true},
		{"id80", sequencer.Definition{Format: sequencer.Format80}, true},
		{"id96", sequencer.Definition{Format: sequencer.Format96}, true},
		{"id128", sequencer.Definition{Format: sequencer.Format128}, true},
		{"layout for id128", sequencer.Definition{Format: sequencer.Format128, Layout: id64.Twitter}, false},
		{"unknown format", sequencer.Definition{Format: "id65"}, false},
		{"layout for id80", sequencer.Definition{Format: sequencer.Format80, Layout: id64.Twitter}, false},
		{"invalid layout", sequencer.Definition{Layout: id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 60, SequenceBits: 1}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.def.Validate()
			if got := err == nil; got != tt.ok {
				t.Fatalf("Validate() = %v, want ok %v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, sequencer.ErrDefinition) {
				t.Errorf("error %v is not ErrDefinition", err)
			}
		})
	}
}

func TestParseSpec(t *testing.T) {
	snow, err := sequencer.Snowcast(time.Time{}, 1024)
	if err != nil {
		t.Fatal(err)
	}
	valid := map[string]sequencer.Definition{
		"twitter":  {},
		"snowcast": snow,
		"id80":     {Format: sequencer.Format80},
		"id96":     {Format: sequencer.Format96},
		"id128":    {Format: sequencer.Format128},
	}
	specs := make(map[string]string)
	for name, d := range valid {
		s, err := d.Spec()
		if err != nil {
			t.Fatalf("%s: Spec(): %v", name, err)
		}
		specs[name] = s
	}
	if got, want := specs["id80"], `{"format":"id80"}`; got != want {
		t.Errorf("id80 spec %s, want %s", got, want)
	}
	if got, want := specs["id128"], `{"format":"id128"}`; got != want {
		t.Errorf("id128 spec %s, want %s", got, want)
	}
	tests := []struct {
		name string
		spec string
		ok   bool
	}{
		{"twitter", specs["twitter"], true},
		{"snowcast-1024", specs["snowcast"], true},
		{"id80", specs["id80"], true},
		{"id96", specs["id96"], true},
		{"id128", specs["id128"], true},
		{"layout for id128", `{"format":"id128","layout":{}}`, false},
		{"empty", "", false},
		{"not JSON", "id64", false},
		{"unknown field", `{"format":"id64","nodes":5}`, false},
		{"unknown format", `{"format":"id65"}`, false},
		{"layout for id80", `{"format":"id80","layout":{}}`, false},
		{"id64 without its layout", `{"format":"id64"}`, false},
		{"not canonical: spaces", " " + specs["id80"], false},
		{"trailing data", specs["id80"] + "{}", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := sequencer.ParseSpec(tt.spec)
			if got := err == nil; got != tt.ok {
				t.Fatalf("ParseSpec(%q) = %+v, %v; want ok %v", tt.spec, d, err, tt.ok)
			}
			if err != nil {
				if !errors.Is(err, sequencer.ErrDefinition) {
					t.Errorf("error %v is not ErrDefinition", err)
				}
				return
			}
			if got, err := d.Spec(); err != nil || got != tt.spec {
				t.Errorf("Spec(ParseSpec(%q)) = %q, %v; want the spec back", tt.spec, got, err)
			}
		})
	}
}

func TestDefinition_WorkerIDs(t *testing.T) {
	wide := id64.Layout{Epoch: id64.Twitter.Epoch, Unit: time.Millisecond, TimeBits: 40, WorkerBits: 20, SequenceBits: 3}
	tests := []struct {
		name string
		def  sequencer.Definition
		want int
	}{
		{"twitter: 10 node bits", sequencer.Definition{}, 1024},
		{"capped at 65536", sequencer.Definition{Layout: wide}, sequencer.MaxWorkerIDs},
		{"id80 partitions", sequencer.Definition{Format: sequencer.Format80}, 65536},
		{"id96 nodes", sequencer.Definition{Format: sequencer.Format96}, 65536},
		{"id128 worker IDs", sequencer.Definition{Format: sequencer.Format128}, 65536},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.def.WorkerIDs(); got != tt.want {
				t.Errorf("WorkerIDs() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDefinition_End(t *testing.T) {
	tests := []struct {
		name string
		d    sequencer.Definition
		want string
	}{
		{"id64 twitter", sequencer.Definition{}, "2080-07-10T17:30:30.209Z"},
		{"id80", sequencer.Definition{Format: sequencer.Format80}, "2079-09-07T15:47:35.552Z"},
		// Past what a time.Duration since the epoch holds (2262).
		{"id96", sequencer.Definition{Format: sequencer.Format96}, "2554-07-21T23:34:33.709551616Z"},
		// The 48-bit time field's end; generators stop in 2262.
		{"id128", sequencer.Definition{Format: sequencer.Format128}, "10889-08-02T05:31:50.656Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.End().UTC().Format(time.RFC3339Nano); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
