// Images attached to the next message: pasted into the prompt or dropped
// on the composer, shown as thumbnails (each removable), sent as the
// message body's images (base64 data URLs the server checks again:
// type, size). Files that are not images are refused with a note.
import { el } from './render.js';

const TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX_BYTES = 3750 * 1024; // the server's bound (internal/attach)
const MAX_IMAGES = 20;

export function attachments(composer, prompt, say) {
  const strip = el('ul', { id: 'attachments', class: 'attachments', 'aria-label': 'Attached images' });
  strip.hidden = true;
  composer.insertBefore(strip, prompt);
  let items = []; // {name, data}

  const render = () => {
    strip.replaceChildren(...items.map((it, i) => el('li', { class: 'attachment' },
      el('img', { src: it.data, alt: it.name }),
      el('button', { type: 'button', class: 'link', title: 'Remove ' + it.name, 'aria-label': 'Remove ' + it.name,
        text: '×', onclick: () => { items.splice(i, 1); render(); } }))));
    strip.hidden = !items.length;
  };

  const add = (files) => {
    for (const f of files) {
      if (!TYPES.includes(f.type)) { say(`${f.name || 'That file'} is not a PNG, JPEG, GIF or WebP image; only images can be attached.`, 'warn'); continue; }
      if (f.size > MAX_BYTES) { say(`${f.name} is larger than 3750 KiB: attach a smaller copy.`, 'warn'); continue; }
      if (items.length >= MAX_IMAGES) { say(`At most ${MAX_IMAGES} images go with one message.`, 'warn'); break; }
      const r = new FileReader();
      r.onload = () => { items.push({ name: f.name || 'pasted image', data: r.result }); render(); };
      r.onerror = () => say(`Could not read ${f.name}: ${r.error}`, 'error');
      r.readAsDataURL(f);
    }
  };

  prompt.addEventListener('paste', (e) => {
    const files = [...(e.clipboardData?.files || [])];
    if (!files.length) return; // text: the textarea's own paste
    e.preventDefault();
    add(files);
  });
  composer.addEventListener('dragover', (e) => {
    if ([...(e.dataTransfer?.types || [])].includes('Files')) { e.preventDefault(); composer.classList.add('dropping'); }
  });
  composer.addEventListener('dragleave', () => composer.classList.remove('dropping'));
  composer.addEventListener('drop', (e) => {
    composer.classList.remove('dropping');
    const files = [...(e.dataTransfer?.files || [])];
    if (!files.length) return;
    e.preventDefault();
    add(files);
  });

  return {
    // take empties the strip and returns the images for a message body.
    take() { const out = items.map((it) => ({ data: it.data })); const kept = items; items = []; render(); return { images: out, undo: () => { items = kept; render(); } }; },
    count: () => items.length,
  };
}

// imageThumbs shows a stored prompt's images under its bubble.
export function imageThumbs(blocks) {
  const imgs = blocks.filter((b) => b.type === 'image' && TYPES.includes(b.media_type));
  if (!imgs.length) return null;
  return el('div', { class: 'thumbs' }, ...imgs.map((b) => el('img', { src: `data:${b.media_type};base64,${b.image_data}`, alt: 'attached image' })));
}
