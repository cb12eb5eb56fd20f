package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tandem-agent/tandem/internal/event"
	"github.com/tandem-agent/tandem/internal/permission"
	"github.com/tandem-agent/tandem/internal/permit"
)

// An MCP server's question (kind elicitation) is a form: tab and the
// arrows move between fields, text is typed into the field on screen,
// space toggles a yes/no and left/right pick an enum's choice; enter
// accepts (checked first: a wrong field is named and the form stays),
// ctrl+d declines and esc cancels. In URL mode the page's address is
// shown for the user to open; enter accepts, d declines, esc cancels.
// Everything shown came from the server and is stripped of terminal
// controls here.

// elicitState is the form's progress: the field with the cursor, the text
// of each field (its default to start with) and the last check's error.
type elicitState struct {
	field  int
	values []string    // a multi-select's: its chosen values, comma separated
	opt    map[int]int // a multi-select field's option under the cursor
	err    string
}

// elicitForm decodes the question on screen and fills in the fields'
// starting text from their defaults, once.
func (m *model) elicitForm(req event.Event) (permit.ElicitRequest, permit.Form, error) {
	e, form, err := permit.ParseElicitation(req.Input)
	if err != nil {
		return e, form, err
	}
	if m.dlg.el.values == nil {
		m.dlg.el.values = make([]string, len(form.Fields))
		for i, f := range form.Fields {
			switch d := f.Default.(type) {
			case nil:
				if f.Type == "boolean" {
					m.dlg.el.values[i] = "false"
				}
			case string:
				m.dlg.el.values[i] = d
			case []any:
				var items []string
				for _, x := range d {
					items = append(items, fmt.Sprint(x))
				}
				m.dlg.el.values[i] = strings.Join(items, ",")
			default:
				m.dlg.el.values[i] = fmt.Sprint(d)
			}
		}
	}
	return e, form, nil
}

func (m *model) elicitKey(req event.Event, k tea.KeyPressMsg) tea.Cmd {
	ks := k.String()
	cancel := func() tea.Cmd { return m.answer(permission.Answer{Decision: permission.Cancel}) }
	e, form, err := m.elicitForm(req)
	if err != nil {
		// A question tandem cannot show is declined, saying why.
		return m.answer(permission.Answer{Decision: permission.DenyCall, Message: err.Error()})
	}
	if e.Mode == permit.ElicitURL {
		switch strings.ToLower(ks) {
		case "enter", "a":
			return m.answer(permission.Answer{Decision: permission.AllowOnce})
		case "d":
			return m.answer(permission.Answer{Decision: permission.DenyCall})
		case "esc":
			return cancel()
		}
		return nil
	}
	st := &m.dlg.el
	n := len(form.Fields)
	switch ks {
	case "esc":
		return cancel()
	case "ctrl+d":
		return m.answer(permission.Answer{Decision: permission.DenyCall})
	case "enter":
		return m.submitElicit(req, form)
	case "tab", "down":
		if n > 0 {
			st.field = (st.field + 1) % n
		}
		return nil
	case "shift+tab", "up":
		if n > 0 {
			st.field = (st.field + n - 1) % n
		}
		return nil
	}
	if n == 0 {
		return nil
	}
	f := form.Fields[st.field]
	v := &st.values[st.field]
	switch {
	case f.Multi:
		if st.opt == nil {
			st.opt = map[int]int{}
		}
		o := st.opt[st.field]
		switch ks {
		case "left":
			st.opt[st.field] = (o + len(f.Enum) - 1) % len(f.Enum)
		case "right":
			st.opt[st.field] = (o + 1) % len(f.Enum)
		case "space":
			chosen := splitChoices(*v)
			if i := slices.Index(chosen, f.Enum[o]); i >= 0 {
				chosen = slices.Delete(chosen, i, i+1)
			} else {
				chosen = append(chosen, f.Enum[o])
			}
			*v = strings.Join(chosen, ",")
		}
	case f.Type == "boolean":
		if ks == "space" || ks == "left" || ks == "right" {
			*v = strconv.FormatBool(*v != "true")
		}
	case len(f.Enum) > 0:
		step := map[string]int{"space": 1, "right": 1, "left": -1}[ks]
		if step != 0 {
			i := slices.Index(f.Enum, *v)
			if i < 0 && step < 0 {
				i = 0
			}
			*v = f.Enum[(i+step+len(f.Enum))%len(f.Enum)]
		}
	case ks == "backspace":
		if r := []rune(*v); len(r) > 0 {
			*v = string(r[:len(r)-1])
		}
	case k.Text != "":
		*v += k.Text
	}
	return nil
}

// submitElicit checks the form's text with the rule the broker applies
// and, when it passes, accepts with the values; otherwise the fields at
// fault are named and the form stays open.
func (m *model) submitElicit(req event.Event, form permit.Form) tea.Cmd {
	st := &m.dlg.el
	values := map[string]any{}
	var errs []string
	for i, f := range form.Fields {
		v, err := f.Parse(st.values[i])
		if err != nil {
			errs = append(errs, f.Label()+": "+err.Error())
			continue
		}
		if v != nil {
			values[f.Name] = v
		}
	}
	if len(errs) > 0 {
		st.err = "the form is not valid: " + strings.Join(errs, "; ")
		return nil
	}
	raw, _ := json.Marshal(values)
	if _, err := permission.ElicitContent(req.Input, raw); err != nil {
		st.err = err.Error()
		return nil
	}
	return m.answer(permission.Answer{Decision: permission.AllowOnce, UpdatedInput: raw})
}

func (m *model) elicitView(req event.Event, width int) []string {
	th := m.th
	w := width - 4
	key := func(k string) string { return th.bold.Render("[" + k + "]") }
	e, form, err := m.elicitForm(req)
	title := th.warn.Bold(true).Render("MCP server "+sanitize(e.Server, false)) + th.dim.Render(" asks")
	if err != nil {
		return box([]string{title, th.err.Render(sanitize(err.Error(), false)), key("any key") + " decline"}, width, th)
	}
	body := []string{title}
	body = append(body, wrap(sanitize(e.Message, true), w)...)
	body = append(body, "")
	armed := m.dialogArmed()
	if e.Mode == permit.ElicitURL {
		body = append(body, "Open this page in your browser:", th.bold.Render(sanitize(e.URL, false)), "")
		if !armed {
			return box(append(body, th.dim.Render("answers open in a moment; until then keys go to your prompt")), width, th)
		}
		return box(append(body, wrap(key("enter")+" accept (opened it)  "+key("d")+" decline  "+key("esc")+" cancel", w)...), width, th)
	}
	st := m.dlg.el
	for i, f := range form.Fields {
		cur := i == st.field
		mark := "  "
		if cur {
			mark = th.warn.Render("› ")
		}
		label := th.bold.Render(sanitize(f.Label(), false))
		if f.Required {
			label += th.warn.Render(" *")
		}
		v := st.values[i]
		var val string
		switch {
		case f.Multi:
			chosen := splitChoices(v)
			var opts []string
			for j, ev := range f.Enum {
				box := "[ ] "
				if slices.Contains(chosen, ev) {
					box = "[x] "
				}
				o := box + sanitize(f.OptionLabel(j), false)
				if cur && j == st.opt[i] {
					o = th.bold.Render("‹" + o + "›")
				}
				opts = append(opts, o)
			}
			val = strings.Join(opts, "  ")
		case f.Type == "boolean":
			val = "[ ] no"
			if v == "true" {
				val = "[x] yes"
			}
		case len(f.Enum) > 0:
			val = "‹ choose ›"
			if j := slices.Index(f.Enum, v); j >= 0 {
				val = "‹ " + sanitize(f.OptionLabel(j), false) + " ›"
			}
		default:
			val = sanitize(v, false)
			if cur {
				val += "█"
			}
			val = "[" + val + "]"
		}
		body = append(body, wrap(mark+label+": "+val, w)...)
		if f.Description != "" {
			body = append(body, wrap("    "+th.dim.Render(sanitize(f.Description, false)), w)...)
		}
	}
	if st.err != "" {
		body = append(body, "")
		body = append(body, wrap(th.err.Render(sanitize(st.err, false)), w)...)
	}
	body = append(body, "")
	if !armed {
		return box(append(body, th.dim.Render("answers open in a moment; until then keys go to your prompt")), width, th)
	}
	return box(append(body, wrap(key("tab")+" next field  "+key("space")+"/"+key("←→")+" choose  "+key("enter")+" accept  "+key("ctrl+d")+" decline  "+key("esc")+" cancel", w)...), width, th)
}

func splitChoices(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
