// The pages' only stylesheet and only script, served from /assets/ (the Content-Security-Policy
// allows nothing inline). The script is an enhancement: every page works without it.

export const STYLESHEET = `
:root {
  --ink: #1b1f24; --muted: #5b6470; --line: #d9dee4; --bg: #f5f7f9; --card: #fff;
  --accent: #1f5fbf; --accent-ink: #fff; --ok: #176b38; --ok-bg: #e3f4e9;
  --warn-bg: #fff6dd; --warn-line: #e6c253; --bad: #a3261a; --bad-bg: #fdeceb;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--bg); line-height: 1.5;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; }
a { color: var(--accent); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: .92em; }
header.top { background: var(--card); border-bottom: 1px solid var(--line); }
header.top .bar { max-width: 60rem; margin: 0 auto; padding: .7rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; }
.brand { font-weight: 700; font-size: 1.1rem; color: var(--ink); text-decoration: none; }
.brand span { font-weight: 400; color: var(--muted); }
.who { display: flex; gap: .75rem; align-items: center; color: var(--muted); font-size: .95rem; overflow-wrap: anywhere; }
main { max-width: 60rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
main.narrow { max-width: 30rem; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 .75rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.1rem 1.25rem; margin: 0 0 1.25rem; }
.muted { color: var(--muted); }
.small { font-size: .9rem; }
label { display: block; font-weight: 600; margin: 0 0 .35rem; }
input[type=email], input[type=text] { width: 100%; font: inherit; padding: .55rem .7rem; border: 1px solid #b9c1ca; border-radius: 7px; background: #fff; }
input:focus, button:focus { outline: 3px solid #9cc0f5; outline-offset: 1px; }
button, .button { font: inherit; font-weight: 600; padding: .5rem 1rem; border-radius: 7px; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-ink); cursor: pointer; text-decoration: none; display: inline-block; white-space: nowrap; }
button.secondary { background: #fff; color: var(--ink); border-color: #b9c1ca; }
button.danger { background: #fff; color: var(--bad); border-color: #e3a59f; padding: .3rem .75rem; font-size: .9rem; }
button.link { background: none; border: none; color: var(--accent); padding: 0; font-weight: 400; text-decoration: underline; }
.row { display: flex; gap: .6rem; flex-wrap: wrap; align-items: flex-end; }
.row > .grow { flex: 1 1 14rem; }
form.inline { display: inline; margin: 0; }
.stack > * + * { margin-top: .9rem; }
.notice { border-radius: 8px; padding: .75rem 1rem; margin: 0 0 1.25rem; border: 1px solid var(--line); background: var(--card); }
.notice.ok { background: var(--ok-bg); border-color: #9fd3b1; }
.notice.error { background: var(--bad-bg); border-color: #eeb2ab; color: var(--bad); }
.newkey { background: var(--warn-bg); border: 1px solid var(--warn-line); border-radius: 10px; padding: 1rem 1.25rem; margin: 0 0 1.25rem; }
.newkey h2 { margin-bottom: .35rem; }
.newkey input { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .95rem; background: #fff; }
.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(8.5rem, 1fr)); gap: .75rem; margin: 0 0 1rem; }
.stats div { border: 1px solid var(--line); border-radius: 8px; padding: .6rem .8rem; }
.stats dt { color: var(--muted); font-size: .85rem; }
.stats dd { margin: .1rem 0 0; font-size: 1.15rem; font-weight: 650; }
.stats dd small { display: block; font-weight: 400; color: var(--muted); font-size: .85rem; }
progress { width: 100%; height: .75rem; border: none; border-radius: 6px; background: #e8ecf0; overflow: hidden; }
progress::-webkit-progress-bar { background: #e8ecf0; border-radius: 6px; }
progress::-webkit-progress-value { background: var(--accent); border-radius: 6px; }
progress::-moz-progress-bar { background: var(--accent); }
.table-wrap { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; margin: 0 0 1rem; }
th, td { text-align: left; padding: .55rem .5rem; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
tr.revoked td { color: var(--muted); }
.nowrap { white-space: nowrap; }
td.name { min-width: 8rem; overflow-wrap: anywhere; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.badge { display: inline-block; font-size: .8rem; font-weight: 600; padding: .1rem .55rem; border-radius: 999px; }
.badge.active { background: var(--ok-bg); color: var(--ok); }
.badge.revoked { background: #eceff2; color: var(--muted); }
pre { background: #f0f3f6; border: 1px solid var(--line); border-radius: 8px; padding: .75rem; overflow-x: auto; margin: .5rem 0 0; }
footer { max-width: 60rem; margin: 0 auto; padding: 0 1rem 2rem; color: var(--muted); font-size: .85rem; text-align: center; }
@media (max-width: 640px) {
  main { padding-top: 1rem; }
  .card, .newkey { padding: .9rem 1rem; }
  table.keys thead { display: none; }
  table.keys, table.keys tbody, table.keys tr, table.keys td { display: block; width: 100%; }
  table.keys tr { border: 1px solid var(--line); border-radius: 8px; padding: .4rem .75rem; margin: 0 0 .75rem; }
  table.keys td { border: none; padding: .2rem 0; display: flex; justify-content: space-between; gap: 1rem; }
  table.keys td::before { content: attr(data-label); color: var(--muted); font-size: .85rem; }
}
`;

export const SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  const field = document.getElementById(button.getAttribute('data-copy'));
  if (!field) continue;
  button.hidden = false;
  // The button replaces the "select and copy" hint that pages without the script show.
  for (const hint of document.querySelectorAll('[data-copy-hint]')) hint.hidden = true;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(field.value);
    } catch {
      field.select();
      document.execCommand('copy');
    }
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = 'Copy'; }, 2500);
  });
}
for (const field of document.querySelectorAll('input[data-select]')) {
  field.addEventListener('focus', () => field.select());
}
for (const form of document.querySelectorAll('form[data-confirm]')) {
  form.addEventListener('submit', (event) => {
    if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
  });
}
`;
