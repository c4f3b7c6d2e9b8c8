package data

import (
	"fmt"
	"testing"

	"github.com/exectriage/exectriage/model"
)

// TestStoreKeepsAtMostMaxDetails: full records are forgotten oldest first, except the one a
// retry is using.
func TestStoreKeepsAtMostMaxDetails(t *testing.T) {
	s := NewStore()
	s.Retrying["log_0"] = true
	for i := range MaxDetails + 50 {
		id := fmt.Sprintf("log_%d", i)
		s.PutDetail(id, model.Execution{ID: id, Detailed: true})
	}
	if len(s.Details) != MaxDetails {
		t.Fatalf("%d details kept, want %d", len(s.Details), MaxDetails)
	}
	if !s.Full("log_0") {
		t.Error("the record a retry uses was forgotten")
	}
	if s.Full("log_1") || !s.Full(fmt.Sprintf("log_%d", MaxDetails+49)) {
		t.Error("not the oldest records were forgotten")
	}
}
