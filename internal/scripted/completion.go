package scripted

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

type protocol int

const (
	protoAnthropic protocol = iota
	protoOpenAI
)

// reply is a step made concrete for one request: ids generated, usage
// resolved. Protocol writers render it.
type reply struct {
	id         string // Anthropic message id; empty: a new random one
	model      string
	thinking   string
	signature  string
	text       string
	calls      []replyCall
	stopReason string
	usage      Usage
	chunkSize  int
}

type replyCall struct {
	id    string
	name  string
	input string // compact JSON object
}

func (s *Server) serveCompletion(w http.ResponseWriter, r *http.Request, req *Request, proto protocol) {
	sel := s.selectStep(req.Body)
	if status, body, over := s.overflow(req, proto); over {
		req.Side, req.Step, req.Status, req.Overflow = sel.side, sel.index, status, true
		s.record(*req)
		writeError(w, proto, status, body, "")
		return
	}
	f, attempt := s.takeFault(sel)
	req.Side, req.Step, req.Attempt, req.Fault = sel.side, sel.index, attempt, f != nil
	dropNow := f != nil && f.DropAfterBytes != nil && *f.DropAfterBytes == 0
	switch {
	case dropNow:
		req.Status = 0
	case f != nil && f.Status != 0:
		req.Status = f.Status
	default:
		req.Status = http.StatusOK
	}
	s.record(*req)

	ctx := r.Context()
	if f != nil && f.FirstByteDelayMS > 0 {
		if err := sleepCtx(ctx, f.firstByteDelay()); err != nil {
			return
		}
	}
	if dropNow {
		abortConn(w)
		return
	}
	if f != nil && f.Stall == StallHeaders {
		<-ctx.Done()
		return
	}
	if f != nil && f.Status != 0 {
		writeFaultStatus(w, proto, f)
		return
	}
	rep := s.buildReply(sel.step, req, proto)
	out := newSink(w, ctx, f, proto)
	midStream := f != nil && f.MidStreamError
	var errBody json.RawMessage
	if f != nil {
		errBody = f.Body
	}
	var err error
	switch {
	case req.API == APIResponses && req.Stream():
		err = writeResponsesStream(w, out, rep, wantsEncrypted(req.Body), midStream)
	case req.API == APIResponses:
		err = writeWhole(w, out, responsesObject(rep, wantsEncrypted(req.Body)), midStream)
	case proto == protoAnthropic && req.Stream():
		err = writeAnthropicStream(w, out, rep, midStream, errBody)
	case proto == protoAnthropic:
		err = writeWhole(w, out, anthropicMessage(rep), midStream)
	case req.Stream():
		err = writeOpenAIStream(w, out, rep, includeUsage(req.Body), midStream)
	default:
		err = writeWhole(w, out, openAICompletion(rep), midStream)
	}
	if err == nil {
		out.finish()
	}
}

func (s *Server) buildReply(st *Step, req *Request, proto protocol) reply {
	rep := reply{
		model:      req.Model(),
		thinking:   st.Thinking,
		text:       st.Text,
		stopReason: st.stopReason(),
		chunkSize:  s.cfg.chunkSize,
		id:         s.cfg.messageID,
	}
	if rep.model == "" {
		rep.model = "scripted-model"
	}
	if st.Thinking != "" {
		rep.signature = Signature(st.Thinking)
	}
	outBytes := len(st.Text) + len(st.Thinking)
	for _, tc := range st.ToolCalls {
		c := replyCall{id: tc.ID, name: tc.Name, input: compactObject(tc.Input)}
		if c.id == "" && s.script.StepMarkers && req.Step >= 0 {
			c.id = markedToolID(proto, req.Step)
		} else if c.id == "" {
			c.id = newToolID(proto)
		}
		outBytes += len(c.input)
		rep.calls = append(rep.calls, c)
	}
	if st.Usage != nil {
		rep.usage = *st.Usage
	} else {
		rep.usage = Usage{InputTokens: estimateTokens(len(req.RawBody)), OutputTokens: estimateTokens(outBytes)}
	}
	return rep
}

func compactObject(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "{}"
	}
	return buf.String()
}

func includeUsage(body map[string]any) bool {
	opts, _ := body["stream_options"].(map[string]any)
	on, _ := opts["include_usage"].(bool)
	return on
}

// writeWhole sends a non-streaming JSON reply; a mid-stream fault cuts it
// in half and drops the connection.
func writeWhole(w http.ResponseWriter, out *sink, v any, midStream bool) error {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	setRequestID(w)
	w.WriteHeader(http.StatusOK)
	if midStream {
		out.dropAfter = len(data) / 2
	}
	return out.write(data)
}
