package theme

import (
	"strings"
	"testing"
)

func TestOverride(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]string
		wantErr string
		want    func(Theme) bool
	}{
		{"hex", map[string]string{"accent": "#7D56F4"}, "", func(t Theme) bool { return t.Accent == "#7D56F4" }},
		{"short hex and ansi", map[string]string{"danger": "#f00", "ok": "42"}, "", func(t Theme) bool { return t.Danger == "#f00" && t.OK == "42" }},
		{"snake case key", map[string]string{"border_focus": "#123456"}, "", func(t Theme) bool { return t.BorderFocus == "#123456" }},
		{"unknown name", map[string]string{"sparkle": "#fff"}, `unknown colour "sparkle"`, nil},
		{"not a colour", map[string]string{"accent": "blue; rm -rf"}, "is not a colour", nil},
		{"escape sequence", map[string]string{"accent": "\x1b[31m"}, "is not a colour", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Default().Override(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if got != Default() {
					t.Error("a failed override changed the theme")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.want(got) {
				t.Errorf("got %+v", got)
			}
		})
	}
}
