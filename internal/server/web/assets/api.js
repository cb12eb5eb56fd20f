// Thin JSON client for the tandem API. The cookie carries the token; the
// Origin header (sent by the browser) proves the request is ours.
export class APIError extends Error {
  constructor(status, code, message, trust) {
    super(message);
    this.status = status;
    this.code = code;
    this.trust = trust; // on folder_not_trusted: {dir, findings}
  }
}

// A page signed in with OpenID Connect sends its CSRF token (from
// /api/me) on every state change; a token sign-in has none.
let csrf = null;
async function csrfToken() {
  if (csrf === null) {
    try {
      const r = await fetch('/api/me');
      csrf = r.ok ? ((await r.json()).csrf_token || '') : '';
    } catch { csrf = ''; }
  }
  return csrf;
}

export async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (method !== 'GET' && method !== 'HEAD') {
    const t = await csrfToken();
    if (t) opts.headers['X-CSRF-Token'] = t;
  }
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const resp = await fetch(path, opts);
  if (resp.status === 401) {
    location.replace('/login');
    throw new APIError(401, 'unauthorized', 'Signed out');
  }
  if (resp.status === 204) return null;
  let data = null;
  try { data = await resp.json(); } catch { /* empty body */ }
  if (!resp.ok) {
    const e = (data && data.error) || {};
    throw new APIError(resp.status, e.code || 'http_' + resp.status, e.message || resp.statusText, e.trust);
  }
  return data;
}
