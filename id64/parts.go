package id64

import "time"

// Parts are the fields of an ID under one Layout, as Layout.Parts returns
// them and Layout.Compose takes them. Node repeats Datacenter and Worker
// together (Datacenter<<WorkerBits | Worker), and Time repeats Tick as the
// instant the tick starts, so a caller can use either form.
type Parts struct {
	Time       time.Time `json:"time"`       // start of the tick, Epoch + Tick*Unit
	Tick       uint64    `json:"tick"`       // units since the layout's epoch
	Datacenter uint64    `json:"datacenter"` // 0 when the layout has no datacenter bits
	Worker     uint64    `json:"worker"`     // worker ID, or the whole node when the node is not split
	Node       uint64    `json:"node"`       // Datacenter<<WorkerBits | Worker
	Sequence   uint64    `json:"sequence"`   // position within the node's tick
}
