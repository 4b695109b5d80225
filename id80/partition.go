package id80

// Partition is the fixed identifier of a generator, stored in bytes 6 and 7
// of an ID, big-endian. Partition{'P', 1} and PartitionFromUint16(0x5001)
// are the same partition.
type Partition [2]byte

// MaxPartition is the largest partition as a number: Partition{255, 255}.
const MaxPartition = 1<<16 - 1

// PartitionFromUint16 returns the partition whose big-endian number is u.
func PartitionFromUint16(u uint16) Partition {
	return Partition{byte(u >> 8), byte(u)}
}

// Uint16 returns the partition as a big-endian number.
func (p Partition) Uint16() uint16 {
	return uint16(p[0])<<8 | uint16(p[1])
}
