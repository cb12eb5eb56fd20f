// Trades the token for an HttpOnly cookie; the page never stores it.
const form = document.getElementById('login-form');
const input = document.getElementById('token');
const errorEl = document.getElementById('login-error');

async function login(token) {
  const resp = await fetch('/api/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token }),
  });
  if (resp.ok) {
    location.replace('/');
    return;
  }
  let msg = 'Sign-in failed.';
  try { msg = (await resp.json()).error.message; } catch { /* keep default */ }
  errorEl.textContent = msg;
  input.select();
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  login(input.value.trim());
});

// `tandem serve` may print a link with #token=...; use it once and drop it.
const m = location.hash.match(/token=([^&]+)/);
if (m) {
  history.replaceState(null, '', location.pathname);
  login(decodeURIComponent(m[1]));
}

// Offer OpenID Connect sign-in when the server has it (serve.oidc).
fetch('/auth/oidc/enabled').then((r) => r.json()).then((d) => {
  if (d.enabled) document.getElementById('oidc').hidden = false;
}).catch(() => {});
