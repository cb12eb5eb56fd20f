package tui

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdown renders assistant text for the terminal on goldmark's parser.
// A full renderer (glamour) links a syntax highlighter whose package init
// alone costs tens of milliseconds and megabytes at every start of the
// binary, `tandem --version` included; this one draws what answers use:
// headings, emphasis, code, lists, quotes, links, rules.
type markdown struct {
	th *theme
	p  parser.Parser
}

func newMarkdown(th *theme) *markdown {
	return &markdown{th: th, p: parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)}
}

func (md *markdown) render(src string, width int) string {
	width = max(width, 10)
	b := []byte(src)
	doc := md.p.Parse(text.NewReader(b))
	r := mdRender{th: md.th, src: b}
	return strings.Join(r.blocks(doc, width), "\n")
}

type mdRender struct {
	th  *theme
	src []byte
}

// blocks renders the block children of n, a blank line between them
// (tight list items stay together).
func (r *mdRender) blocks(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		lines := r.block(c, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 && !(c.Kind() == ast.KindTextBlock || c.PreviousSibling() != nil && c.PreviousSibling().Kind() == ast.KindTextBlock) {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

func (r *mdRender) block(n ast.Node, width int) []string {
	th := r.th
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return wrap(r.inlines(n), width)
	case *ast.Heading:
		st := th.bold
		if n.Level <= 2 {
			st = th.accent.Bold(true)
		}
		return prefixed(wrap(r.inlines(n), width), "", "", st)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var out []string
		if f, ok := n.(*ast.FencedCodeBlock); ok {
			if lang := string(f.Language(r.src)); lang != "" {
				out = append(out, th.dim.Render(lang))
			}
		}
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			l := strings.TrimRight(string(seg.Value(r.src)), "\n")
			out = append(out, th.dim.Render("│ ")+th.code.Render(clip(l, width-2)))
		}
		return out
	case *ast.Blockquote:
		return prefixed(r.blocks(n, width-2), th.dim.Render("│ "), th.dim.Render("│ "), th.faint)
	case *ast.List:
		var out []string
		i := n.Start
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			marker := "• "
			if n.IsOrdered() {
				marker = fmt.Sprintf("%d. ", i)
				i++
			}
			pad := strings.Repeat(" ", len(marker))
			body := r.blocks(it, width-len(marker))
			if len(body) == 0 {
				body = []string{""}
			}
			if !n.IsTight && len(out) > 0 {
				out = append(out, "")
			}
			out = append(out, prefixedRaw(body, th.accent.Render(marker), pad)...)
		}
		return out
	case *ast.ThematicBreak:
		return []string{th.dim.Render(strings.Repeat("─", min(width, 40)))}
	case *ast.HTMLBlock:
		var out []string
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			out = append(out, strings.TrimRight(string(seg.Value(r.src)), "\n"))
		}
		return out
	}
	return r.blocks(n, width)
}

// inlines renders the inline children of n as one styled string; soft
// line breaks stay line breaks (tables and verses keep their shape).
func (r *mdRender) inlines(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(&b, c)
	}
	return b.String()
}

func (r *mdRender) inline(b *strings.Builder, n ast.Node) {
	th := r.th
	switch n := n.(type) {
	case *ast.Text:
		b.Write(n.Segment.Value(r.src))
		if n.HardLineBreak() || n.SoftLineBreak() {
			b.WriteByte('\n')
		}
	case *ast.String:
		b.Write(n.Value)
	case *ast.CodeSpan:
		var s strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if t, ok := c.(*ast.Text); ok {
				s.Write(t.Segment.Value(r.src))
			}
		}
		if th.plain {
			b.WriteString("`" + s.String() + "`")
		} else {
			b.WriteString(th.code.Render(s.String()))
		}
	case *ast.Emphasis:
		st := th.italic
		if n.Level >= 2 {
			st = th.bold
		}
		b.WriteString(st.Render(r.inlines(n)))
	case *ast.Link:
		label := r.inlines(n)
		b.WriteString(th.link.Render(label))
		if dest := string(n.Destination); dest != "" && dest != label {
			b.WriteString(th.dim.Render(" (" + dest + ")"))
		}
	case *ast.AutoLink:
		b.WriteString(th.link.Render(string(n.URL(r.src))))
	case *ast.Image:
		b.WriteString(th.dim.Render("[image: " + r.inlines(n) + "]"))
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
	default:
		b.WriteString(r.inlines(n))
	}
}
