package retry

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/exectriage/exectriage/model"
)

// model.IsAttemptID (which triage names exectriage's own retries by) says what the uuid-based
// reference says: every id NewAttemptID makes, and no other UUID or near miss.
func TestAttemptIDShapeMatchesTheReference(t *testing.T) {
	ref := func(s string) bool {
		u, err := uuid.Parse(s)
		return err == nil && len(s) == 36 && u.Version() == 4 && strings.HasPrefix(s[24:], attemptMark)
	}
	cases := []string{"", "not-a-uuid", "e7a9", strings.Repeat("x", 36)}
	for range 2000 {
		cases = append(cases, NewAttemptID(), uuid.NewString())
	}
	a := NewAttemptID()
	cases = append(cases, strings.ToUpper(a[:24])+a[24:], a[:14]+"1"+a[15:], a[:24]+"e7a8"+a[28:], "{"+a[1:35]+"}", a[:8]+"x"+a[9:])
	for _, s := range cases {
		if got, want := model.IsAttemptID(s), ref(s); got != want {
			t.Errorf("IsAttemptID(%q) = %v, the reference says %v", s, got, want)
		}
	}
}
