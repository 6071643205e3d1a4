// The sign-in pages: the form, "check your inbox", the page a link opens (its "Sign in as"
// button), a link that cannot be used (with a form for a new one), refusals (rate limits, bad
// form) and the generic error page.
import { html, type SafeHtml } from './html.js';
import { renderPage } from './layout.js';

export interface SigninFormState {
  csrf: string;
  email?: string;
  next?: string;
  button?: string;
}

export function signinForm({ csrf, email, next, button = 'Send me a sign-in link' }: SigninFormState): SafeHtml {
  return html`<form method="post" action="/signin" class="stack">
<input type="hidden" name="csrf" value="${csrf}">
${next && next !== '/dashboard' ? html`<input type="hidden" name="next" value="${next}">` : ''}
<div><label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${email ?? ''}" placeholder="you@example.com"></div>
<div><button type="submit">${button}</button></div>
</form>`;
}

export function signinPage(state: SigninFormState & { notice?: string; error?: string }): string {
  return renderPage({
    title: 'Sign in',
    narrow: true,
    body: html`${state.notice ? html`<p class="notice ok" role="status">${state.notice}</p>` : ''}
${state.error ? html`<p class="notice error" role="alert">${state.error}</p>` : ''}
<section class="card">
<h1>Sign in</h1>
<p class="muted">Enter your e-mail address and we will send you a one-time sign-in link. No password. The first time
you sign in, an account on the free plan is created and its first API key is shown.</p>
${signinForm(state)}
</section>`,
  });
}

/** The same page whether or not the address has an account (only the address typed differs). */
export function sentPage({ email, outbox }: { email: string; outbox: boolean }): string {
  return renderPage({
    title: 'Check your inbox',
    narrow: true,
    body: html`<section class="card">
<h1>Check your inbox</h1>
<p>We sent a sign-in link to <strong>${email}</strong>. Open it in this browser and press its “Sign in” button.</p>
<p class="muted">The link works once and expires in 15 minutes. Nothing there? Check your spam folder, or
<a href="/signin">ask for a new link</a>.</p>
${
  outbox
    ? html`<p class="muted small">This daemon runs offline: the mail is saved in
<code>&lt;data-dir&gt;/outbox/</code>; <code>provenance daemon outbox --last</code> prints its link (a daemon started on a terminal also prints it there).</p>`
    : ''
}
</section>`,
  });
}

/**
 * What a sign-in link opens: a button that signs in (a POST with the token and a CSRF token).
 * Opening the link alone signs no one in: another site could send a signed-in browser to the
 * other site's own link and so swap it into that account (login CSRF); it cannot press this
 * button, whose form needs the double-submit token of this browser's own cookie.
 */
export function confirmPage({ email, token, csrf, signedInAs }: { email: string; token: string; csrf: string; signedInAs?: string }): string {
  return renderPage({
    title: 'Sign in',
    narrow: true,
    body: html`<section class="card">
<h1>Sign in</h1>
<p>This sign-in link is for <strong>${email}</strong>.</p>
${
  signedInAs
    ? html`<p class="notice" role="status">This browser is signed in as <strong>${signedInAs}</strong>; signing in as ${email} ends that session.</p>`
    : ''
}
<form method="post" action="/signin/verify" class="stack">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="token" value="${token}">
<div><button type="submit">Sign in as ${email}</button></div>
</form>
<p class="muted small">Did not ask for this link? Close this page: nothing happens until the button is pressed. The link
works once, for 15 minutes.</p>
</section>`,
  });
}

export type LinkProblem = 'unknown' | 'used' | 'expired';

const PROBLEM: Record<LinkProblem, { title: string; text: string }> = {
  used: { title: 'This sign-in link has already been used', text: 'A sign-in link works only once.' },
  expired: { title: 'This sign-in link has expired', text: 'A sign-in link works for 15 minutes.' },
  unknown: {
    title: 'This sign-in link is not valid',
    text: 'It may have been copied incompletely, or the daemon was reset since it was sent.',
  },
};

export function linkProblemPage({ problem, csrf, email, signedIn }: { problem: LinkProblem; csrf: string; email?: string; signedIn: boolean }): string {
  const { title, text } = PROBLEM[problem];
  return renderPage({
    title,
    narrow: true,
    body: html`<section class="card">
<h1>${title}</h1>
<p>${text} Ask for a new one below.</p>
${signedIn ? html`<p>You are already signed in on this browser: <a href="/dashboard">go to your dashboard</a>.</p>` : ''}
${signinForm({ csrf, email, button: 'Send me a new link' })}
</section>`,
  });
}

/** A sign-in request the daemon refused (rate limit, bad form), with the form to try again. */
export function refusedPage({ title, message, csrf, email }: { title: string; message: string; csrf: string; email?: string }): string {
  return renderPage({
    title,
    narrow: true,
    body: html`<p class="notice error" role="alert">${message}</p>
<section class="card">
<h1>Sign in</h1>
${signinForm({ csrf, email })}
</section>`,
  });
}

export function errorPage({ title, message, user }: { title: string; message: string; user?: { email: string; csrf: string } }): string {
  return renderPage({
    title,
    narrow: true,
    user,
    body: html`<section class="card">
<h1>${title}</h1>
<p>${message}</p>
<p><a href="${user ? '/dashboard' : '/signin'}">${user ? 'Back to the dashboard' : 'Go to the sign-in page'}</a></p>
</section>`,
  });
}
