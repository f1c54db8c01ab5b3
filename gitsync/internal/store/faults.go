package store

// Faults makes an Objects fail the way a failing disk would. It exists for
// the crash and full-disk tests of gitsync, which run in another package
// and so need an exported seam; production never sets one.
type Faults struct {
	// Write, when not nil, fails every object write, loose or packed,
	// with this error, as a full disk would.
	Write error
	// BeforeCreate, when set, runs before each attempt to create an
	// object's temporary file, with the object's folder.
	BeforeCreate func(dir string)
}

// SetFaults makes o fail as f says from now on; nil ends the faults. It is
// for tests only; like every other use of o, it must not run during one.
func (o *Objects) SetFaults(f *Faults) { o.faults = f }

// write is the error an object write fails with; nil lets it run.
func (f *Faults) write() error {
	if f == nil {
		return nil
	}
	return f.Write
}

// beforeCreate is the function createInDir runs before each attempt, if
// any.
func (f *Faults) beforeCreate() func(dir string) {
	if f == nil {
		return nil
	}
	return f.BeforeCreate
}
