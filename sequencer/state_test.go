package sequencer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/floeid/floe/sequencer"
)

func TestSequencer_Wait(t *testing.T) {
	sq := open(t, sequencer.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st, err := sq.Wait(ctx, sequencer.Detached); !errors.Is(err, context.Canceled) || st != sequencer.Serving {
		t.Errorf("Wait with an ended context = %s, %v", st, err)
	}
	if err := sq.Detach(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Detach with an ended context = %v, want context.Canceled", err)
	}
	if st, _ := sq.State(); st != sequencer.Serving {
		t.Errorf("state %s after a Detach with an ended context, want serving", st)
	}
	changed := sq.Changes()
	if err := sq.Detach(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Error("Changes not closed by Detach")
	}
	sq.Close(context.Background())
	if st, err := sq.Wait(context.Background(), sequencer.Serving); !errors.Is(err, sequencer.ErrClosed) || st != sequencer.Closed {
		t.Errorf("Wait for serving on a closed sequencer = %s, %v; want closed and ErrClosed", st, err)
	}
}
