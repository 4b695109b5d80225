package id96

// The 64-bit cast drops the node of an ID and keeps the rest, as guid's
// ToL does:
//
//	63   61 60                                  14 13       0
//	+------+--------------------------------------+----------+
//	| c    | tick                                 | seq      |
//	| 3    | 47 bits                              | 14 bits  |
//	+------+--------------------------------------+----------+
//
// It is guid's 64-bit (L) form: the value is K.Lo of guid's ToL, and the
// 8-byte big-endian form of it is guid's Bytes of that K.

// Uint64 returns the 64-bit cast of id: the drift code, the whole tick and
// the sequence, without the node. It is guid's ToL(id).Lo.
//
// The cast is unique only among IDs of one node: IDs of two nodes with the
// same tick and sequence cast to the same value. Casts of one drift code
// sort by time, then sequence.
func (id ID) Uint64() uint64 {
	return uint64(id.Drift())<<61 | id.Tick()<<seqBits | uint64(id.Sequence())
}

// FromUint64 returns the ID of the 64-bit cast v on node: the inverse of
// Uint64 for IDs of that node, and guid's FromL with a clock of that node.
// Every 64-bit value is the cast of an ID. Use node 0 when the node is not
// known; Node then reports 0.
func FromUint64(v uint64, node uint32) ID {
	return newID(Drift(v>>61), v>>seqBits, node, uint16(v))
}
