package fs

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/gif"  // DecodeConfig for GIF dimensions
	_ "image/jpeg" // DecodeConfig for JPEG dimensions
	_ "image/png"  // DecodeConfig for PNG dimensions
	"os"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/tandem-agent/tandem/internal/message"
	"github.com/tandem-agent/tandem/internal/regular"
	"github.com/tandem-agent/tandem/internal/tool"
)

const (
	// maxImageBytes keeps the base64 form under the 5 MB per-image limit
	// providers apply.
	maxImageBytes = 3750 << 10
	// pdfDefaultPages is how many pages a PDF read without pages returns;
	// pdfMaxPages is the most one call may ask for.
	pdfDefaultPages = 10
	pdfMaxPages     = 20
	maxPDFBytes     = 64 << 20
)

func readImage(env *tool.Env, req readRequest, info os.FileInfo, mediaType string) (tool.Result, error) {
	if req.pages != "" {
		return tool.ErrorResult(fmt.Sprintf("The pages parameter only applies to PDF files; %s is an image (%s).", req.abs, mediaType)), nil
	}
	if info.Size() > maxImageInput {
		return tool.ErrorResult(fmt.Sprintf("Image %s is %s, more than the %s Read will shrink. Make a smaller copy first (e.g. `convert %s -resize 25%% /tmp/smaller.png` with the Bash tool) and read that.",
			req.abs, humanSize(info.Size()), humanSize(maxImageInput), req.abs)), nil
	}
	data, err := regular.ReadFile(req.real)
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("Cannot read %s: %v", req.abs, err)), nil
	}
	TrackerFrom(env).RecordContent(req.real, info, data)
	desc := fmt.Sprintf("Image %s (%s, %s", req.abs, mediaType, humanSize(info.Size()))
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		desc += fmt.Sprintf(", %dx%d", cfg.Width, cfg.Height)
	}
	data, mediaType, note, err := fitImage(data, mediaType)
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("Image %s is too large to attach and could not be shrunk (%v). Make a smaller copy with the Bash tool and read that.", req.abs, err)), nil
	}
	if note != "" {
		desc += "; " + note
	}
	desc += ") is attached."
	img := message.Block{Type: message.Image, MediaType: mediaType, ImageData: base64.StdEncoding.EncodeToString(data)}
	return tool.Result{Content: desc, Images: []message.Block{img},
		Meta: map[string]any{"file_path": req.abs, "media_type": mediaType, "bytes": info.Size()}}, nil
}

func readPDF(ctx context.Context, env *tool.Env, req readRequest, info os.FileInfo) (tool.Result, error) {
	if info.Size() > maxPDFBytes {
		return tool.ErrorResult(fmt.Sprintf("PDF %s is %s; the most Read handles is %s. Extract text with `pdftotext -f 1 -l 5 %s -` via the Bash tool instead.",
			req.abs, humanSize(info.Size()), humanSize(maxPDFBytes), req.abs)), nil
	}
	data, err := regular.ReadFile(req.real)
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("Cannot read %s: %v", req.abs, err)), nil
	}
	TrackerFrom(env).RecordContent(req.real, info, data)
	doc, numPages, err := openPDF(data)
	if err != nil {
		return tool.ErrorResult(fmt.Sprintf("Cannot parse PDF %s: %v. It may be damaged or encrypted; try `pdftotext` with the Bash tool.", req.abs, err)), nil
	}
	first, last, msg := pageRange(req.pages, numPages)
	if msg != "" {
		return tool.ErrorResult(fmt.Sprintf("%s (file %s)", msg, req.abs)), nil
	}
	var b strings.Builder
	empty := true
	for p := first; p <= last; p++ {
		if err := ctx.Err(); err != nil {
			return tool.Result{}, fmt.Errorf("read PDF %s: %w", req.abs, err)
		}
		text := pageText(doc, p)
		if strings.TrimSpace(text) != "" {
			empty = false
		}
		fmt.Fprintf(&b, "--- Page %d of %d ---\n%s\n", p, numPages, strings.Trim(text, "\n"))
		if b.Len() > maxReadOutput {
			last = p
			break
		}
	}
	out := b.String()
	if len(out) > maxReadOutput {
		out = truncateRunes(out, maxReadOutput) + "\n... [output truncated]"
	}
	if empty {
		out += fmt.Sprintf("\n(No text could be extracted from pages %d-%d; the PDF may hold scanned images. Render a page with `pdftoppm -png -f %d -l %d %s /tmp/page` via the Bash tool and Read the PNG.)", first, last, first, first, req.abs)
	}
	if req.pages == "" && last < numPages {
		out += fmt.Sprintf("\n(Showing pages %d-%d of %d. Use the pages parameter, e.g. pages=\"%d-%d\", to read more.)", first, last, numPages, last+1, min(last+pdfMaxPages, numPages))
	}
	return tool.Result{Content: out, Meta: map[string]any{"file_path": req.abs, "pages": numPages, "first_page": first, "last_page": last}}, nil
}

// openPDF parses the document. The parser panics on some malformed files;
// a damaged PDF must give the model an error, not end the session.
func openPDF(data []byte) (doc *pdf.Reader, pages int, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, pages, err = nil, 0, fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	doc, err = pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, 0, err
	}
	pages = doc.NumPage()
	if pages <= 0 {
		return nil, 0, fmt.Errorf("the PDF declares no pages")
	}
	return doc, pages, nil
}

func pageText(doc *pdf.Reader, n int) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprintf("[text of this page could not be extracted: %v]", r)
		}
	}()
	p := doc.Page(n)
	if p.V.IsNull() {
		return ""
	}
	t, err := p.GetPlainText(nil)
	if err != nil {
		return fmt.Sprintf("[text of this page could not be extracted: %v]", err)
	}
	return t
}

// pageRange parses "3", "1-5" or "" (the first pages) against numPages.
func pageRange(spec string, numPages int) (first, last int, msg string) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return 1, min(numPages, pdfDefaultPages), ""
	}
	lo, hi, isRange := strings.Cut(spec, "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(lo))
	last, err2 := first, error(nil)
	if isRange {
		last, err2 = strconv.Atoi(strings.TrimSpace(hi))
	}
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Sprintf("invalid pages %q: use a page number like \"3\" or a range like \"1-5\"", spec)
	case first < 1 || last < first:
		return 0, 0, fmt.Sprintf("invalid pages %q: pages start at 1 and a range must not run backwards", spec)
	case first > numPages:
		return 0, 0, fmt.Sprintf("invalid pages %q: the PDF has %d pages", spec, numPages)
	case min(last, numPages)-first+1 > pdfMaxPages:
		return 0, 0, fmt.Sprintf("invalid pages %q: at most %d pages per call; split the range (e.g. \"%d-%d\")", spec, pdfMaxPages, first, first+pdfMaxPages-1)
	}
	return first, min(last, numPages), ""
}
