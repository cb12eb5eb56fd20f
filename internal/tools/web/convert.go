package web

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
)

// toMarkdown turns a response body into text for the model: HTML becomes
// Markdown, other text passes through, binary content is refused.
func toMarkdown(contentType string, body []byte, base *url.URL) (string, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt == "" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		origin := base.Scheme + "://" + base.Host
		md, err := htmltomarkdown.ConvertString(string(body), converter.WithDomain(origin))
		if err != nil {
			return "", fmt.Errorf("convert HTML to Markdown: %w", err)
		}
		return strings.TrimSpace(md), nil
	case isText(mt):
		if !utf8.Valid(body) {
			return strings.ToValidUTF8(string(body), "\uFFFD"), nil
		}
		return string(body), nil
	}
	return "", fmt.Errorf("content of type %q is not text; WebFetch reads HTML and text documents only", mt)
}

func isText(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"),
		strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"),
		mt == "application/json", mt == "application/xml", mt == "application/javascript",
		mt == "application/x-javascript", mt == "application/ecmascript", mt == "application/x-yaml",
		mt == "application/yaml", mt == "application/toml", mt == "application/x-sh":
		return true
	}
	return false
}
