package id128

import "time"

// Parts is an ID taken apart into its fields.
type Parts struct {
	// Time is the millisecond of the ID as a UTC time.
	Time time.Time
	// Tick is the 48-bit time field: Unix milliseconds.
	Tick uint64
	// Counter is the 18-bit counter: the ID's place among its generator's
	// IDs of the same millisecond.
	Counter uint32
	// Worker is the 16-bit worker ID of the generator.
	Worker uint16
	// Random is the 40 random bits.
	Random uint64
}

// Parts returns the fields of id.
func (id ID) Parts() Parts {
	return Parts{
		Time:    id.Time(),
		Tick:    id.Tick(),
		Counter: id.Counter(),
		Worker:  id.Worker(),
		Random:  id.Random(),
	}
}
