package fs

import (
	"bytes"
	"strings"
)

const bom = "\uFEFF"

// fileDoc is a text file as the matchers see it: without its byte order
// mark and with LF line endings, remembering both so that writing it back
// keeps the file's conventions whatever the model sent.
type fileDoc struct {
	bom  bool
	crlf bool
	text string
}

// decodeDoc normalises raw. A file is treated as CRLF only when every line
// break is CRLF; a mixed file is left as it is (the tolerant matchers cope
// with stray carriage returns) so that unrelated lines keep their endings.
func decodeDoc(raw []byte) fileDoc {
	var d fileDoc
	if bytes.HasPrefix(raw, []byte(bom)) {
		d.bom = true
		raw = raw[len(bom):]
	}
	s := string(raw)
	crlf := strings.Count(s, "\r\n")
	if crlf > 0 && crlf == strings.Count(s, "\n") {
		d.crlf = true
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	d.text = s
	return d
}

// encode turns text (LF endings) back into the file's bytes.
func (d fileDoc) encode(text string) []byte {
	if d.crlf {
		text = strings.ReplaceAll(text, "\n", "\r\n")
	}
	if d.bom {
		text = bom + text
	}
	return []byte(text)
}

// normalizeInput puts a model's string in the matchers' form: LF endings and
// no byte order mark.
func normalizeInput(s string) string {
	s = strings.TrimPrefix(s, bom)
	return strings.ReplaceAll(s, "\r\n", "\n")
}
