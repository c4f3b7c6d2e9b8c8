// Package styles builds every Lip Gloss style exectriage draws with from one theme.Theme, so
// the config file's [theme] recolours the whole program and components never name colours.
// It has no dependencies inside ui/, so every component can import it.
package styles

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/exectriage/exectriage/ui/theme"
)

// Styles is the one set of styles, grouped by where they are used.
type Styles struct {
	Theme theme.Theme

	Text   lipgloss.Style
	Muted  lipgloss.Style
	Accent lipgloss.Style
	Bold   lipgloss.Style
	Danger lipgloss.Style
	Warn   lipgloss.Style
	OK     lipgloss.Style
	Info   lipgloss.Style

	Header struct {
		App       lipgloss.Style
		Live      lipgloss.Style
		Demo      lipgloss.Style
		File      lipgloss.Style
		Count     lipgloss.Style
		Flagged   lipgloss.Style
		Label     lipgloss.Style
		SparkExec lipgloss.Style
		SparkFlag lipgloss.Style
		Progress  lipgloss.Style
	}

	List struct {
		ColumnHeader lipgloss.Style
		Row          lipgloss.Style
		Selected     lipgloss.Style
		Flagged      lipgloss.Style // the text of a flagged row (besides its "!" marker)
		Marker       lipgloss.Style // the "!" flag column
		Group        lipgloss.Style // a duplicate group's header row
		Member       lipgloss.Style
		Match        lipgloss.Style // filter match positions
		Empty        lipgloss.Style
	}

	Badge struct {
		Ambiguous lipgloss.Style
		Rejected  lipgloss.Style
		Failed    lipgloss.Style
		Waiting   lipgloss.Style // a session call waiting for approval
		Dup       lipgloss.Style
		Retried   lipgloss.Style
		Retrying  lipgloss.Style
		Verified  lipgloss.Style
		Found     lipgloss.Style
		Marked    lipgloss.Style
	}

	Pane struct {
		Border      lipgloss.Style
		BorderFocus lipgloss.Style
		Title       lipgloss.Style
		TitleFocus  lipgloss.Style
		Label       lipgloss.Style
		Value       lipgloss.Style
		Section     lipgloss.Style
		Code        lipgloss.Style
	}

	Status struct {
		Error lipgloss.Style
		Warn  lipgloss.Style
		Info  lipgloss.Style
		Mode  lipgloss.Style
		Key   lipgloss.Style
	}

	Dialog struct {
		Box          lipgloss.Style
		DangerBox    lipgloss.Style
		Title        lipgloss.Style
		Label        lipgloss.Style
		Button       lipgloss.Style
		ButtonActive lipgloss.Style
		Refused      lipgloss.Style
		Hint         lipgloss.Style
	}

	Help help.Styles
}

// New builds the styles for a theme.
func New(t theme.Theme) *Styles {
	c := theme.Color
	s := &Styles{Theme: t}
	base := lipgloss.NewStyle()

	s.Text = base.Foreground(c(t.Text))
	s.Muted = base.Foreground(c(t.Muted))
	s.Accent = base.Foreground(c(t.Accent))
	s.Bold = base.Bold(true)
	s.Danger = base.Foreground(c(t.Danger))
	s.Warn = base.Foreground(c(t.Warn))
	s.OK = base.Foreground(c(t.OK))
	s.Info = base.Foreground(c(t.Info))

	s.Header.App = base.Bold(true).Foreground(c(t.Accent))
	s.Header.Live = base.Bold(true).Foreground(c(t.OK))
	s.Header.Demo = base.Bold(true).Foreground(c(t.Warn))
	s.Header.File = base.Bold(true).Foreground(c(t.Info))
	s.Header.Count = base.Bold(true).Foreground(c(t.Text))
	s.Header.Flagged = base.Bold(true).Foreground(c(t.Danger))
	s.Header.Label = base.Foreground(c(t.Muted))
	s.Header.SparkExec = base.Foreground(c(t.Accent))
	s.Header.SparkFlag = base.Foreground(c(t.Danger))
	s.Header.Progress = base.Foreground(c(t.Info))

	s.List.ColumnHeader = base.Bold(true).Foreground(c(t.Muted))
	s.List.Row = base.Foreground(c(t.Text))
	s.List.Selected = base.Bold(true).Foreground(c(t.SelectedFG)).Background(c(t.SelectedBG))
	s.List.Flagged = base.Foreground(c(t.Danger))
	s.List.Marker = base.Bold(true).Foreground(c(t.Danger))
	s.List.Group = base.Bold(true).Foreground(c(t.Warn))
	s.List.Member = base.Foreground(c(t.Text))
	s.List.Match = base.Underline(true).Foreground(c(t.Highlight))
	s.List.Empty = base.Italic(true).Foreground(c(t.Muted))

	s.Badge.Ambiguous = base.Bold(true).Foreground(c(t.Danger))
	s.Badge.Rejected = base.Bold(true).Foreground(c(t.Warn))
	s.Badge.Failed = base.Foreground(c(t.Muted))
	s.Badge.Waiting = base.Italic(true).Foreground(c(t.Info))
	s.Badge.Dup = base.Foreground(c(t.Warn))
	s.Badge.Retried = base.Bold(true).Foreground(c(t.OK))
	s.Badge.Retrying = base.Bold(true).Foreground(c(t.Info))
	s.Badge.Verified = base.Foreground(c(t.OK))
	s.Badge.Found = base.Foreground(c(t.Info))
	s.Badge.Marked = base.Foreground(c(t.Muted))

	s.Pane.Border = base.Foreground(c(t.Border))
	s.Pane.BorderFocus = base.Foreground(c(t.BorderFocus))
	s.Pane.Title = base.Foreground(c(t.Muted))
	s.Pane.TitleFocus = base.Bold(true).Foreground(c(t.Accent))
	s.Pane.Label = base.Foreground(c(t.Muted))
	s.Pane.Value = base.Foreground(c(t.Text))
	s.Pane.Section = base.Bold(true).Foreground(c(t.Accent))
	s.Pane.Code = base.Foreground(c(t.Text))

	s.Status.Error = base.Bold(true).Foreground(c(t.Danger))
	s.Status.Warn = base.Foreground(c(t.Warn))
	s.Status.Info = base.Foreground(c(t.Info))
	s.Status.Mode = base.Foreground(c(t.Muted))
	s.Status.Key = base.Bold(true).Foreground(c(t.Accent))

	s.Dialog.Box = base.Border(lipgloss.RoundedBorder()).BorderForeground(c(t.BorderFocus)).Padding(0, 1)
	s.Dialog.DangerBox = s.Dialog.Box.BorderForeground(c(t.Danger))
	s.Dialog.Title = base.Bold(true).Foreground(c(t.Accent))
	s.Dialog.Label = base.Foreground(c(t.Muted))
	s.Dialog.Button = base.Foreground(c(t.Muted)).Padding(0, 1)
	s.Dialog.ButtonActive = base.Bold(true).Reverse(true).Padding(0, 1)
	s.Dialog.Refused = base.Bold(true).Foreground(c(t.Danger))
	s.Dialog.Hint = base.Italic(true).Foreground(c(t.Muted))

	s.Help = help.Styles{
		Ellipsis:       base.Foreground(c(t.Muted)),
		ShortKey:       base.Foreground(c(t.Accent)),
		ShortDesc:      base.Foreground(c(t.Muted)),
		ShortSeparator: base.Foreground(c(t.Border)),
		FullKey:        base.Foreground(c(t.Accent)),
		FullDesc:       base.Foreground(c(t.Text)),
		FullSeparator:  base.Foreground(c(t.Border)),
	}
	return s
}
