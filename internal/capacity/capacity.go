// Package capacity grows a slice's capacity ahead of the appends that will fill it, without
// writing the new room: slices.Grow appends zeroed elements, which writes (and so makes
// resident) every page of the room at once, whereas a fresh allocation from memory the
// process has not used yet stays untouched until written. A guess a little high then costs
// address space, not memory.
package capacity

// Grow returns s with room for at least more elements past its length: s itself when it has
// them, else a new array holding a copy of s.
func Grow[S ~[]E, E any](s S, more int) S {
	if more <= 0 || cap(s)-len(s) >= more {
		return s
	}
	t := make(S, len(s), len(s)+more)
	copy(t, s)
	return t
}
