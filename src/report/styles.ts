// The styles of the card and of the scan report. Plain CSS, light and dark
// (prefers-color-scheme), readable from 320 px wide. The report inlines both; the daemon serves
// the card's at /assets/card.css (its pages allow no inline style).

export const CARD_CSS = `
.card{border:1px solid var(--pv-line);border-radius:6px;padding:.75rem;margin:.5rem 0;background:var(--pv-card);color:var(--pv-fg);overflow-wrap:anywhere}
.card header{display:flex;gap:.75rem;align-items:flex-start;flex-wrap:wrap}
.card h3{font-size:1rem;margin:0}
.card h4{font-size:.9rem;margin:.75rem 0 .25rem;font-family:ui-monospace,monospace}
.card .meta,.card .dim{color:var(--pv-dim);font-size:.85rem;margin:.25rem 0}
.card code{font-size:.8rem}
.card .head{margin:.25rem 0}
.card dl.rows{display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.2rem .75rem;margin:.5rem 0}
.card dt{color:var(--pv-dim)}
.card dd{margin:0}
.card ul{margin:.25rem 0;padding-left:1.1rem}
.card ul.ings{list-style:none;padding-left:.9rem;border-left:2px solid var(--pv-line)}
.card li.ing{margin:.35rem 0;display:block}
.card li.ing>img{vertical-align:middle;margin-right:.5rem}
.card .ai-yes,.card li.ing.ai>span{color:var(--pv-warn);font-weight:600}
.card .verdict{margin:.3rem 0;font-weight:600}
.card .verdict-generated,.card .verdict-contains{color:var(--pv-warn)}
.card .verdict-none_found{color:var(--pv-dim);font-weight:400}
.card .verdict-disagree{color:var(--pv-bad)}
.file-thumb,.claim-thumb{max-width:160px;max-height:160px;border-radius:4px;background:var(--pv-line)}
.ing-thumb{max-width:64px;max-height:64px;border-radius:3px}
.card figure.claim{margin:.5rem 0;display:inline-block}
.card figcaption{font-size:.75rem;color:var(--pv-dim)}
.res{display:inline-block;padding:0 .4rem;border-radius:3px;font-size:.8rem;font-weight:600;border:1px solid currentColor}
.res-found{color:var(--pv-ok)}
.res-not_found{color:var(--pv-dim);font-weight:400}
.res-unavailable{color:var(--pv-warn)}
.res-error,.v-invalid{color:var(--pv-bad)}
.v-trusted,.trust-yes{color:var(--pv-ok)}
.trust-no{color:var(--pv-warn);font-weight:600}
@media (max-width:480px){.card dl.rows{grid-template-columns:1fr}.card dt{font-weight:600}}
`;

export const BASE_CSS = `
:root{color-scheme:light dark;--pv-bg:#fff;--pv-fg:#1b1b1b;--pv-dim:#595959;--pv-line:#d0d0d0;--pv-card:#fafafa;--pv-ok:#17652b;--pv-warn:#8a4b00;--pv-bad:#b00020;--pv-accent:#0b57d0}
@media (prefers-color-scheme:dark){:root{--pv-bg:#121212;--pv-fg:#e8e8e8;--pv-dim:#a8a8a8;--pv-line:#3a3a3a;--pv-card:#1c1c1c;--pv-ok:#6fd28a;--pv-warn:#ffb74d;--pv-bad:#ff8a80;--pv-accent:#8ab4f8}}
`;

export const REPORT_CSS = `
*{box-sizing:border-box}
body{margin:0;background:var(--pv-bg);color:var(--pv-fg);font:15px/1.45 system-ui,sans-serif}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.3rem;margin:.25rem 0}
h2{font-size:1.05rem;margin:1rem 0 .5rem}
a{color:var(--pv-accent)}
.caveat,.scan-meta{color:var(--pv-dim);font-size:.9rem}
#chart table{border-collapse:collapse;width:100%}
#chart td:last-child{width:45%}#chart th,#chart td{text-align:left;padding:.15rem .4rem;font-size:.85rem;vertical-align:middle}
#chart th{font-family:ui-monospace,monospace;font-weight:600;white-space:nowrap}
.bar{display:flex;height:.9rem;min-width:6rem;border-radius:2px;overflow:hidden;background:var(--pv-line)}
.bar i{display:block;height:100%}
.b-found{background:var(--pv-ok)}.b-not_found{background:var(--pv-dim);opacity:.45}.b-unavailable{background:var(--pv-warn)}.b-error{background:var(--pv-bad)}
.legend span{margin-right:1rem;font-size:.85rem;white-space:nowrap}
.legend i{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:-1px}
.tools{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:end;margin:.5rem 0;position:sticky;top:0;background:var(--pv-bg);padding:.5rem 0;z-index:1;border-bottom:1px solid var(--pv-line)}
.tools fieldset{border:0;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.25rem .75rem}
.tools legend{font-weight:600;font-size:.85rem;padding:0;margin-bottom:.15rem}
.tools label{font-size:.9rem;white-space:nowrap}
.tools input[type=search],.tools select{font:inherit;padding:.2rem .4rem;max-width:100%;background:var(--pv-bg);color:var(--pv-fg);border:1px solid var(--pv-dim);border-radius:3px}
:focus-visible{outline:3px solid var(--pv-accent);outline-offset:2px}
/* Rows are blocks, not list items: hiding 1,000 list items makes Chrome renumber the list each time (2.6 s against 16 ms). */
#rows{list-style:none;margin:0;padding:0}
#rows>li{display:block;content-visibility:auto;contain-intrinsic-size:auto 4.5rem;border-bottom:1px solid var(--pv-line)}
#rows>li[hidden]{display:none}
#rows summary{display:flex;gap:.75rem;align-items:center;padding:.4rem .25rem;cursor:pointer;flex-wrap:wrap;list-style:none}
#rows summary::-webkit-details-marker{display:none}
#rows summary::before{content:"▸";color:var(--pv-dim)}
#rows details[open]>summary::before{content:"▾"}
.thumb{width:64px;height:64px;flex:none;display:flex;align-items:center;justify-content:center;background:var(--pv-card);border-radius:3px;font-size:1.6rem;color:var(--pv-dim)}
.thumb img{max-width:64px;max-height:64px}
.name{flex:1 1 12rem;min-width:0;overflow-wrap:anywhere;font-weight:600}
.type{color:var(--pv-dim);font-size:.85rem;flex:0 0 auto}
.badges{display:flex;flex-wrap:wrap;gap:.25rem;flex:1 1 14rem}
.badges .res{font-weight:400}
.badges .res-found{font-weight:600}
#rows details>.card{margin:.25rem 0 .75rem 1.5rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:480px){#chart tr{display:grid;grid-template-columns:1fr;padding:.2rem 0}#chart thead tr{display:none}#chart td:last-child{width:auto}main{padding:.5rem}#rows details>.card{margin-left:0}.tools{position:static}}
`;
