package testkit

import (
	"unsafe"

	"github.com/exectriage/exectriage/model"
)

// Refills is a consumer of a load that keeps each batch until the next one arrives and then
// hands it back (as the TUI's pages wait for its analysis), counting the batches that came
// in an array it had handed back.
type Refills struct {
	recycle    func([]model.Execution)
	handedBack map[*model.Execution]bool
	held       []model.Execution
	// Batches is how many batches it took; Refilled, how many of them were arrays it had
	// handed back.
	Batches, Refilled int
}

// NewRefills returns a consumer handing batches back with recycle.
func NewRefills(recycle func([]model.Execution)) *Refills {
	return &Refills{recycle: recycle, handedBack: map[*model.Execution]bool{}}
}

// Take takes the next batch and hands the one before it back.
func (r *Refills) Take(b []model.Execution) {
	r.Batches++
	if r.handedBack[unsafe.SliceData(b)] {
		r.Refilled++
	}
	if r.held != nil {
		r.handedBack[unsafe.SliceData(r.held)] = true
		r.recycle(r.held)
	}
	r.held = b
}

// Held is the batch it keeps: the last one taken.
func (r *Refills) Held() []model.Execution { return r.held }
