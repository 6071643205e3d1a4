// The Verify page (issue 25): drop or pick files, each is checked as one POST /v1/detect would
// check it (one call of the month's quota, the same burst window), and its card is shown, drawn
// by the report's own renderer (src/report/card.ts), as `check --html` draws it.
import { html } from './html.js';
import { renderPage } from './layout.js';
import { formatDay } from './format.js';

export interface VerifyView {
  email: string;
  csrf: string;
  usage: { used: number; limit: number; remaining: number; reset: Date };
  /** The largest file the page takes, in bytes. */
  maxBytes: number;
}

const number = (n: number) => n.toLocaleString('en-US');

export function verifyPage(view: VerifyView): string {
  const { usage } = view;
  const mb = Math.round(view.maxBytes / (1024 * 1024));
  const body = html`<div id="verify">
<p><a href="/dashboard">← Dashboard</a></p>
<h1>Verify files</h1>
<p id="cost" class="notice"><strong>Each file you check costs one call</strong> of this month's quota, as a POST /v1/detect does:
<span id="quota" data-used="${usage.used}" data-limit="${usage.limit}">${number(usage.remaining)} of ${number(usage.limit)} calls left</span> (the quota resets on ${formatDay(usage.reset)}).
Files are checked by this daemon and not kept; the largest it takes is ${mb} MB.</p>
<div id="drop" class="dropzone" data-max="${view.maxBytes}">
<label for="files">Choose pictures, audio or video to check</label>
<input type="file" id="files" name="files" multiple>
<p class="muted small">or drop files anywhere on this box.</p>
</div>
<input type="hidden" id="csrf" value="${view.csrf}">
<p id="status" role="status" aria-live="polite" class="muted small"></p>
<div id="results" aria-label="Results"></div>
<noscript><p class="notice error">This page sends each file with JavaScript; with it switched off, use the CLI (provenance check) or POST /v1/detect.</p></noscript>
</div>
<script src="/assets/verify.js" defer></script>`;
  // The card's own stylesheet after the pages' one (the frame is shared; only this page needs it).
  const STYLE = '<link rel="stylesheet" href="/assets/style.css">';
  return renderPage({ title: 'Verify', body, user: { email: view.email, csrf: view.csrf } }).replace(STYLE, `${STYLE}<link rel="stylesheet" href="/assets/card.css">`);
}

/**
 * The page's script: read each chosen or dropped file, POST its bytes to /verify/detect with the
 * session's CSRF token, put the returned card (HTML the daemon rendered and escaped) on the page,
 * and update the calls left. No framework: a file input, drag and drop and fetch are the browser's.
 */
export const VERIFY_SCRIPT = `"use strict";
(function(){
var input=document.getElementById("files"),drop=document.getElementById("drop"),results=document.getElementById("results"),
status=document.getElementById("status"),quota=document.getElementById("quota"),csrf=document.getElementById("csrf").value,queue=Promise.resolve(),
max=+drop.getAttribute("data-max");
function say(t){status.textContent=t}
function show(html,name){var d=document.createElement("div");d.className="verify-result";d.innerHTML=html;results.insertBefore(d,results.firstChild);
 var h=d.querySelector("h3");if(h){h.tabIndex=-1}say("Checked "+name+".")}
function fail(name,msg){var p=document.createElement("p");p.className="notice error";p.textContent=name+": "+msg;results.insertBefore(p,results.firstChild);say(name+": "+msg)}
function send(file){return function(){say("Checking "+file.name+"…");
 if(file.size>max){fail(file.name,"larger than the "+Math.round(max/1048576)+" MB this page takes; nothing was sent, no call counted");return Promise.resolve()}
 return fetch("/verify/detect",{method:"POST",credentials:"same-origin",headers:{"content-type":"application/octet-stream","x-csrf-token":csrf,"x-file-name":encodeURIComponent(file.name)},body:file})
 .then(function(r){return r.json().catch(function(){return{error:{message:"the daemon answered HTTP "+r.status}}}).then(function(b){return{ok:r.ok,b:b}})})
 .then(function(x){if(x.b.quota){quota.textContent=x.b.quota.remaining.toLocaleString("en-US")+" of "+x.b.quota.limit.toLocaleString("en-US")+" calls left";quota.setAttribute("data-used",x.b.quota.used)}
  if(x.ok)show(x.b.html,file.name);else fail(file.name,x.b.error?x.b.error.message:"the check failed")})
 .catch(function(e){fail(file.name,"the daemon could not be reached ("+e.message+")")})}}
function take(files){for(var i=0;i<files.length;i++)queue=queue.then(send(files[i]))}
input.addEventListener("change",function(){take(input.files);input.value=""});
["dragenter","dragover"].forEach(function(t){drop.addEventListener(t,function(e){e.preventDefault();drop.classList.add("over")})});
["dragleave","drop"].forEach(function(t){drop.addEventListener(t,function(){drop.classList.remove("over")})});
drop.addEventListener("drop",function(e){e.preventDefault();if(e.dataTransfer&&e.dataTransfer.files.length)take(e.dataTransfer.files)});
})();`;

export const VERIFY_CSS = `
.dropzone{border:2px dashed #8a96a3;border-radius:10px;padding:1.25rem;margin:0 0 1rem;text-align:center;background:var(--card,#fff)}
.dropzone.over{border-color:var(--accent,#1f5fbf);background:#eef4fd}
.dropzone input[type=file]{max-width:100%}
.verify-result .card{margin:0 0 1rem}
@media (prefers-color-scheme:dark){
body:has(#verify){--ink:#e8e8e8;--muted:#b0b0b0;--line:#3a3a3a;--bg:#121212;--card:#1c1c1c;--accent:#8ab4f8;--accent-ink:#121212;--ok-bg:#12301d;--bad-bg:#3a1512;--warn-bg:#33290f;color:var(--ink);background:var(--bg)}
body:has(#verify) header.top{background:var(--card)}
body:has(#verify) .brand{color:var(--ink)}
body:has(#verify) .dropzone.over{background:#1d2a3d}
body:has(#verify) .notice.error{color:#ff8a80}
body:has(#verify) button.secondary{background:var(--card);color:var(--ink)}
}
`;
