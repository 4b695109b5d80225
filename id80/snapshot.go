package id80

// Snapshot is a generator's bookkeeping at one moment, with sno's field names
// and JSON keys, so a snapshot taken by either library restores the other.
// Take one when the generator goes offline and pass it in Config.Snapshot to
// resume without reissuing; one taken while the generator runs is stale at
// once and only good for metrics.
type Snapshot struct {
	Partition   Partition `json:"partition"`
	SequenceMin uint16    `json:"sequenceMin"`
	SequenceMax uint16    `json:"sequenceMax"`
	// Sequence is the last sequence number issued at WallHi.
	Sequence uint32 `json:"sequence"`
	// Now is the timestamp (4 ms units since Epoch) the snapshot was taken at.
	Now int64 `json:"now"`
	// WallHi is the last timestamp issued.
	WallHi int64 `json:"wallHi"`
	// WallSafe is the highest timestamp the other timeline reached.
	WallSafe int64 `json:"wallSafe"`
	// Drifts counts timeline switches; its lowest bit is the current
	// timeline (the tick-tock bit).
	Drifts uint32 `json:"drifts"`
}

// Snapshot returns the generator's bookkeeping.
func (g *Generator) Snapshot() Snapshot {
	st := g.seq.State()
	now := g.seq.TickOf(g.clock.Now().UnixNano())
	return Snapshot{
		Partition:   PartitionFromUint16(g.partition),
		SequenceMin: g.seqMin,
		SequenceMax: g.seqMax,
		Sequence:    uint32(st.Sequence),
		Now:         now,
		WallHi:      int64(st.Tick),
		WallSafe:    int64(st.Safe),
		Drifts:      g.drifts + uint32(g.seq.Stats().TickTocks),
	}
}
