package model

// ParseRecordReference exposes the reference parser to the benchmarks.
var ParseRecordReference = parseRecordSlow
