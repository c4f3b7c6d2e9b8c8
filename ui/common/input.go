package common

import "charm.land/bubbles/v2/textinput"

// TextInput is a dialog's one-line input in the app's styles: no cursor blink, the key style
// for the prompt when focused and muted otherwise, a muted placeholder.
func TextInput(c Common, prompt, placeholder string, limit int) textinput.Model {
	in := textinput.New()
	in.Prompt = prompt
	in.Placeholder = placeholder
	in.CharLimit = limit
	s := textinput.DefaultDarkStyles()
	s.Cursor.Blink = false
	s.Focused.Prompt = c.Styles.Status.Key
	s.Blurred.Prompt = c.Styles.Muted
	s.Focused.Placeholder = c.Styles.Muted
	s.Blurred.Placeholder = c.Styles.Muted
	in.SetStyles(s)
	return in
}
