package server

import "errors"

// Check returns the error New would return for cfg's settings and
// sequences, without claiming a worker ID or reading or writing the store,
// so that a program can refuse a bad configuration before it binds a port
// or touches its state. cfg.Store and cfg.Sources may be nil.
func Check(cfg Config) error {
	cfg.setDefaults()
	if err := cfg.validate(); err != nil {
		return err
	}
	if cfg.Store == nil {
		cfg.Store = unusedStore{}
	}
	for _, sc := range cfg.Sequences {
		// newSequence writes nothing and claims nothing: that is open's.
		if _, err := newSequence(sc, &cfg); err != nil {
			return err
		}
	}
	return nil
}

// unusedStore stands in for the store Check never uses.
type unusedStore struct{}

var errUnusedStore = errors.New("floe: Check's store is not for use")

func (unusedStore) Load(string) (Record, bool, error) { return Record{}, false, errUnusedStore }
func (unusedStore) Save(string, Record) error         { return errUnusedStore }
