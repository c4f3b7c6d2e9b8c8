package model

import "hash/crc32"

// castagnoli is CRC-32C's table (computed in hardware where the CPU has it).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ArgsSumOf is the checksum of an execution's arguments as carried (Execution.ArgsSum): never
// 0 for arguments, 0 for none.
func ArgsSumOf(args []byte) uint32 {
	if len(args) == 0 {
		return 0
	}
	return max(crc32.Checksum(args, castagnoli), 1)
}

// ArgumentsSum is e's ArgsSum, from its arguments when a parse did not set it.
func (e *Execution) ArgumentsSum() uint32 {
	if e.ArgsSum != 0 {
		return e.ArgsSum
	}
	return ArgsSumOf(e.Arguments)
}
