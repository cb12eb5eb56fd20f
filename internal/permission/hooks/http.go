package hooks

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
)

// maxHTTPBody bounds what an http hook may answer.
const maxHTTPBody = 1 << 20

// post sends the input to an http hook. As in Claude Code: a 2xx answer's
// body is the hook's JSON output (empty: no opinion); any other status, a
// body that is not JSON, and a failed connection are non-blocking errors,
// so only an explicit JSON decision can block.
func (r *Runner) post(ctx context.Context, h Handler, body []byte) result {
	timeout := h.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return result{err: fmt.Errorf("hook %q: %w", h.URL, err)}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.Headers {
		req.Header.Set(k, r.expandHeader(v, h.AllowedEnvVars))
	}
	resp, err := r.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return result{err: fmt.Errorf("hook %q stopped after %s: %w", h.URL, timeout, ctx.Err())}
		}
		return result{err: fmt.Errorf("hook %q: %w", h.URL, err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxHTTPBody))
	if err != nil {
		return result{err: fmt.Errorf("hook %q: read answer: %w", h.URL, err)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return result{err: fmt.Errorf("hook %q answered %s: %s", h.URL, resp.Status, strings.TrimSpace(string(data)))}
	}
	return result{stdout: string(data)}
}

// expandHeader replaces $VAR and ${VAR} with the variable's value when the
// hook lists it in allowedEnvVars, and with "" otherwise.
func (r *Runner) expandHeader(v string, allowed []string) string {
	return os.Expand(v, func(name string) string {
		if !slices.Contains(allowed, name) {
			return ""
		}
		return r.getenv(name)
	})
}

func (r *Runner) getenv(name string) string {
	for i := len(r.env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(r.env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}
