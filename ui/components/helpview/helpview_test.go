package helpview

import (
	"strings"
	"testing"
	"time"

	"github.com/exectriage/exectriage/ui/common"
	"github.com/exectriage/exectriage/ui/keys"
	"github.com/exectriage/exectriage/ui/styles"
	"github.com/exectriage/exectriage/ui/theme"
)

// The help screen is drawn once per size and keys, and again whenever either changes: a
// binding turned off (or back on) and a new size show at once.
func TestViewFollowsSizeAndKeys(t *testing.T) {
	k := keys.Default()
	m := New(common.Common{Styles: styles.New(theme.Default()), Keys: &k, Now: time.Now})
	m.SetSize(120, 40)
	first := m.View()
	if again := m.View(); again != first {
		t.Fatal("the same size and keys drew a different screen")
	}
	k.Retry.SetEnabled(false)
	if off := m.View(); off == first {
		t.Fatal("retry turned off is still listed")
	}
	k.Retry.SetEnabled(true)
	if on := m.View(); on != first {
		t.Fatal("retry turned back on did not give the first screen back")
	}
	m.SetSize(80, 24)
	if small := m.View(); small == first || common.Width(strings.Split(small, "\n")[0]) > 80 {
		t.Fatalf("the new size was not drawn:\n%s", small)
	}
}
