// The dashboard: plan and this month's usage, the burst limit, the keys with their actions, a
// new key (shown once, with a copy button that the script reveals; without the script the key
// is in a read-only field to select), and how to call the API with a key.
import type { AccountRecord, KeyRecord, NewKey } from '../../contract/api-types.js';
import { formatDay, formatShort, formatTime } from './format.js';
import { html } from './html.js';
import { renderPage } from './layout.js';
import type { RequestLogEntry } from '../../testing/request-log.js';

export interface DashboardView {
  account: AccountRecord;
  usage: { used: number; limit: number; remaining: number; reset: Date };
  requestsPerMinute: number;
  keys: KeyRecord[];
  newKey?: NewKey;
  notice?: string;
  error?: string;
  csrf: string;
  /** Where this daemon is reached, for the example request. */
  baseUrl: string;
  /** The daemon runs with --test-mode (test clock, forced answers). */
  testMode: boolean;
  /** The account's own latest /v1 requests, newest first. */
  recentRequests: RequestLogEntry[];
}

const PLAN_NAMES: Record<string, string> = { free: 'Free', starter: 'Starter', growth: 'Growth', custom: 'Custom' };
const number = (n: number) => n.toLocaleString('en-US');

export function dashboardPage(view: DashboardView): string {
  const { account, usage, keys, newKey, csrf } = view;
  const active = keys.filter((k) => !k.revoked_at);
  const body = html`<h1>Dashboard</h1>
${view.testMode ? html`<p class="notice" role="note" data-test-mode><strong>Test mode.</strong> This daemon runs with --test-mode: its clock can be moved and answers can be forced, for testing API clients.</p>` : ''}
${view.notice ? html`<p class="notice ok" role="status">${view.notice}</p>` : ''}
${view.error ? html`<p class="notice error" role="alert">${view.error}</p>` : ''}
${
  newKey
    ? html`<section class="newkey" aria-labelledby="newkey-title">
<h2 id="newkey-title">Your new API key “${newKey.name}”</h2>
<p>Copy it now and keep it somewhere safe: <strong>it is shown only this once</strong>. The daemon keeps only a hash of it.</p>
<div class="row"><div class="grow"><label class="muted small" for="new-key">API key</label>
<input id="new-key" type="text" readonly data-select value="${newKey.value}" aria-describedby="newkey-title" spellcheck="false" autocomplete="off"></div>
<button type="button" data-copy="new-key" hidden>Copy</button></div>
<p class="small muted" data-copy-hint="new-key">Select the key and copy it (Ctrl+C / ⌘C).</p>
</section>`
    : ''
}
<section class="card" aria-labelledby="plan-title">
<h2 id="plan-title">Plan and usage</h2>
<dl class="stats">
<div><dt>Plan</dt><dd>${PLAN_NAMES[account.plan] ?? account.plan}</dd></div>
<div><dt>Calls this month</dt><dd>${number(usage.used)} <small>of ${number(usage.limit)}</small></dd></div>
<div><dt>Quota resets</dt><dd>${formatDay(usage.reset)} <small>${formatTime(usage.reset)} UTC</small></dd></div>
<div><dt>Burst limit</dt><dd>${number(view.requestsPerMinute)} <small>requests / min, per key</small></dd></div>
</dl>
<progress max="${Math.max(usage.limit, 1)}" value="${Math.min(usage.used, usage.limit)}" aria-label="Calls used this month">${usage.used} of ${usage.limit}</progress>
<p class="muted small">${number(usage.remaining)} calls left this month. Each POST /v1/detect costs one call; the quota is
shared by all keys of the account.</p>
<p><a href="/verify">Verify files in your browser</a> <span class="muted small">(drop a file, see its card; one call per file)</span></p>
</section>

<section class="card" aria-labelledby="keys-title">
<h2 id="keys-title">API keys</h2>
${
  keys.length
    ? html`<div class="table-wrap"><table class="keys">
<thead><tr><th>Name</th><th>Key</th><th>Created (UTC)</th><th>Last used (UTC)</th><th>Status</th><th><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>
${keys.map(
  (k) => html`<tr class="${k.revoked_at ? 'revoked' : 'active'}" data-key-id="${k.id}">
<td data-label="Name" class="name">${k.name}</td>
<td data-label="Key" class="nowrap"><code>${k.prefix}…</code></td>
<td data-label="Created (UTC)" class="nowrap">${formatShort(k.created_at)}</td>
<td data-label="Last used (UTC)" class="nowrap">${k.last_used_at ? formatShort(k.last_used_at) : 'never'}</td>
<td data-label="Status">${
    k.revoked_at
      ? html`<span><span class="badge revoked">Revoked</span> <span class="muted small nowrap">${formatShort(k.revoked_at)}</span></span>`
      : html`<span class="badge active">Active</span>`
  }</td>
<td data-label="">${
    k.revoked_at
      ? ''
      : html`<form class="inline" method="post" action="/dashboard/keys/${k.id}/revoke" data-confirm="Revoke “${k.name}” (${k.prefix}…)? Requests with it will fail at once.">
<input type="hidden" name="csrf" value="${csrf}"><button class="danger" type="submit" aria-label="Revoke ${k.name}">Revoke</button></form>`
  }</td>
</tr>`,
)}
</tbody></table></div>`
    : ''
}
${active.length === 0 ? html`<p class="muted">No active key. Create one to call the API.</p>` : ''}
<form method="post" action="/dashboard/keys">
<input type="hidden" name="csrf" value="${csrf}">
<div class="row"><div class="grow"><label for="key-name">New key name <span class="muted small">(optional)</span></label>
<input id="key-name" name="name" type="text" maxlength="60" placeholder="e.g. ci, laptop" autocomplete="off"></div>
<button type="submit">Create key</button></div>
</form>
<p class="muted small">A lost key cannot be shown again: revoke it and create a new one.</p>
</section>

<section class="card" aria-labelledby="requests-title">
<h2 id="requests-title">Recent requests</h2>
${
  view.recentRequests.length
    ? html`<div class="table-wrap"><table class="requests">
<thead><tr><th>Time (UTC)</th><th>Request</th><th>Status</th><th>Key</th><th>Calls used</th><th>Duration</th><th>Request id</th></tr></thead>
<tbody>
${view.recentRequests.map(
  (r) => html`<tr data-request-id="${r.request_id}">
<td data-label="Time (UTC)" class="nowrap">${formatShort(r.time)}</td>
<td data-label="Request" class="nowrap"><code>${r.method} ${r.path}</code></td>
<td data-label="Status" class="nowrap">${String(r.status)}${r.error_type ? html` <span class="muted small">${r.error_type}</span>` : ''}${r.forced ? html` <span class="badge">forced</span>` : ''}</td>
<td data-label="Key" class="nowrap">${r.key_prefix ? html`<code>${r.key_prefix}…</code>` : ''}</td>
<td data-label="Calls used">${r.quota_used === null ? '' : number(r.quota_used)}</td>
<td data-label="Duration" class="nowrap">${String(r.duration_ms)} ms</td>
<td data-label="Request id"><code class="small">${r.request_id}</code></td>
</tr>`,
)}
</tbody></table></div>`
    : html`<p class="muted">No API requests with this account's keys since the daemon started.</p>`
}
<p class="muted small">The daemon keeps its last 1,000 API requests in memory (never bodies or keys); each response's Request-Id header names its row.</p>
</section>

<section class="card" aria-labelledby="use-title">
<h2 id="use-title">Call the API</h2>
<pre>curl ${view.baseUrl}/v1/detect \\
  -H "Authorization: Bearer $PROVENANCE_API_KEY" \\
  -F file=@photo.jpg</pre>
<p class="muted small">Reference: <a href="/docs">/docs</a> and <code>/v1/openapi.json</code>.</p>
</section>`;
  return renderPage({ title: 'Dashboard', body, user: { email: account.email, csrf } });
}
