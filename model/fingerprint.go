package model

import (
	"encoding/binary"
	"hash/maphash"
)

// Fingerprint hashes every field of the execution with seed, so a record that arrives again
// unchanged (a refresh's overlap, a reloaded file) can be told from one whose status, timing
// or data changed without keeping the record. Equal executions have equal fingerprints; a
// changed field changes it but for a 2^-64 chance.
func (e *Execution) Fingerprint(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var n [8]byte
	num := func(v int64) {
		binary.LittleEndian.PutUint64(n[:], uint64(v))
		h.Write(n[:])
	}
	str := func(s string) { // length-prefixed, so adjacent fields cannot trade bytes
		num(int64(len(s)))
		h.WriteString(s)
	}
	raw := func(b []byte) {
		num(int64(len(b)))
		h.Write(b)
	}
	for _, s := range []string{e.ID, e.ToolSlug, e.ToolkitSlug, e.UserID, e.ConnectedAccountID, e.Status, e.Level,
		e.Message, e.RequestID, e.SessionID, e.TraceID, e.SDKVersion, e.ToolVersion, e.Source.Host, e.Source.Framework, e.Source.Language,
		e.Type} {
		str(s)
	}
	for _, t := range [...]int64{e.Timestamp.UnixNano(), e.StartTime.UnixNano(), e.EndTime.UnixNano(), int64(e.Duration),
		int64(e.RetryCount)} {
		num(t)
	}
	// Zero times and far times both hash by their Unix seconds as well, which UnixNano leaves
	// undefined outside 1678–2262.
	num(e.Timestamp.Unix())
	num(e.StartTime.Unix())
	num(e.EndTime.Unix())
	flags := int64(0)
	for i, b := range []bool{e.HasDuration, e.Detailed, e.Error != nil, e.Parent != nil, e.Delivery != nil, e.Approval != nil} {
		if b {
			flags |= 1 << i
		}
	}
	num(flags)
	num(int64(e.ArgsSum))
	raw(e.Arguments)
	raw(e.Response)
	if e.Error != nil {
		str(e.Error.Message)
		str(string(e.Error.Kind))
		num(int64(e.Error.HTTPStatus))
	}
	if e.Parent != nil {
		str(e.Parent.LogID)
		str(e.Parent.ToolSlug)
	}
	if d := e.Delivery; d != nil {
		str(d.EventID)
		num(int64(d.Attempt))
		str(d.TriggerID)
		str(d.Error)
		str(d.EndpointID)
	}
	if a := e.Approval; a != nil {
		str(a.RequestState)
		raw(a.Responses)
	}
	return h.Sum64()
}
