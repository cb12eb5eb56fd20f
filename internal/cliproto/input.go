package cliproto

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tandem-agent/tandem/internal/message"
)

// maxLine bounds one stdin line (a user message with images can be large).
const maxLine = 64 << 20

// serveStream reads stream-json from stdin: user messages become turns,
// run one at a time in arrival order; control requests are answered as
// they come, even while a turn runs. It returns when stdin closes and the
// queued turns are done.
func (d *driver) serveStream(ctx context.Context) int {
	queue := make(chan userInput, 64)
	done := make(chan int)
	go func() {
		code := 0
		for in := range queue {
			if in.failed != nil {
				// Where the input failed, in order with the turns before it.
				code = d.fatal(in.failed)
				continue
			}
			if c := d.runTurn(ctx, in); c != 0 {
				code = c
			}
		}
		done <- code
	}()
	r := bufio.NewReaderSize(d.o.Stdin, 1<<20)
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			d.handleLine(ctx, line, queue)
		}
		var long *lineTooLongError
		if errors.As(err, &long) {
			// The line is dropped; the host gets an error result for it
			// and the exit code says a message was lost.
			queue <- userInput{failed: long}
			err = long.next
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				d.warn("read stdin: %v", err)
			}
			break
		}
	}
	close(queue)
	code := <-done
	d.ctl.close()
	return code
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			// Drop the rest of the line.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			return nil, &lineTooLongError{next: err}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return []byte(strings.TrimSpace(string(buf))), err
		}
	}
}

// lineTooLongError is a stdin line over maxLine, dropped; next is the
// read's own outcome after it (nil: more lines may follow).
type lineTooLongError struct{ next error }

func (e *lineTooLongError) Error() string {
	return fmt.Sprintf("a stdin line is longer than %d MiB and was dropped: send large content (images, files) in smaller messages or as file paths", maxLine>>20)
}

func (d *driver) handleLine(ctx context.Context, line []byte, queue chan<- userInput) {
	if line[0] != '{' {
		d.warn("stdin line is not a JSON object; ignored")
		return
	}
	var env struct {
		Type      string          `json:"type"`
		RequestID string          `json:"request_id"`
		Request   json.RawMessage `json:"request"`
		Message   json.RawMessage `json:"message"`
		UUID      string          `json:"uuid"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		d.warn("stdin line: %v; ignored", err)
		return
	}
	switch env.Type {
	case "user":
		in, err := userContent(env.Message)
		if err != nil {
			d.warn("user message: %v; ignored", err)
			return
		}
		in.uuid = env.UUID
		queue <- in
	case "control_request":
		d.handleControl(ctx, env.RequestID, env.Request)
	case "control_response":
		if err := d.ctl.deliver(line); err != nil {
			d.warn("%v", err)
		}
	case "control_cancel_request", "keep_alive", "update_environment_variables":
		// Nothing of tandem's waits on the host's own requests.
	default:
		d.warn("stdin message of type %q is not one tandem handles; ignored", env.Type)
	}
}

// userContent reads a user message's content: a string, or text and image
// blocks. The message's session_id ("default" from the Python SDK) is not
// used: the process has one session.
func userContent(raw json.RawMessage) (userInput, error) {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return userInput{}, err
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		if strings.TrimSpace(s) == "" {
			return userInput{}, fmt.Errorf("the content is empty")
		}
		return userInput{text: s}, nil
	}
	var blocks []struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
	}
	if err := json.Unmarshal(m.Content, &blocks); err != nil {
		return userInput{}, fmt.Errorf("content is neither a string nor content blocks: %w", err)
	}
	var in userInput
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "image":
			if b.Source.Type != "base64" {
				return userInput{}, fmt.Errorf("an image must be base64 data (source type %q)", b.Source.Type)
			}
			in.images = append(in.images, message.Block{Type: message.Image, MediaType: b.Source.MediaType, ImageData: b.Source.Data})
		}
	}
	in.text = strings.Join(texts, "\n")
	if strings.TrimSpace(in.text) == "" && len(in.images) == 0 {
		return userInput{}, fmt.Errorf("the content has no text or image")
	}
	return in, nil
}
