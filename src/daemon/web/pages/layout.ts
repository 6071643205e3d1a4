// The frame every page shares: title, viewport for phones, the stylesheet, and the top bar with
// the signed-in address and a sign-out form (a POST with its CSRF token, never a GET link).
import { html, type SafeHtml } from './html.js';

export interface Frame {
  title: string;
  body: SafeHtml;
  /** Signed in: the address and the CSRF token for the sign-out form. */
  user?: { email: string; csrf: string };
  narrow?: boolean;
}

export function renderPage({ title, body, user, narrow }: Frame): string {
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · provenance</title>
<link rel="stylesheet" href="/assets/style.css">
<script src="/assets/pages.js" defer></script>
</head>
<body>
<header class="top"><div class="bar">
<a class="brand" href="${user ? '/dashboard' : '/signin'}">provenance <span>local daemon</span></a>
${
  user
    ? html`<div class="who"><span>${user.email}</span>
<form class="inline" method="post" action="/signout"><input type="hidden" name="csrf" value="${user.csrf}"><button class="secondary" type="submit">Sign out</button></form></div>`
    : html`<div class="who"><a href="/docs">API docs</a></div>`
}
</div></header>
<main class="${narrow ? 'narrow' : ''}">
${body}
</main>
<footer>Served by <code>provenance daemon</code>. API reference: <a href="/docs">/docs</a>.</footer>
</body>
</html>
`}`;
}
