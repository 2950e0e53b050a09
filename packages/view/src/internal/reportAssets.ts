/** The report's inline style sheet: no fonts, images or anything else fetched. */
export const REPORT_CSS = `
:root{--fg:#1f2328;--muted:#6e7781;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;
--queued:#9aa5b1;--running:#2f81f7;--completed:#1a7f37;--failed:#cf222e;--timeout:#bf8700;--cancelled:#57606a;--lost:#8250df}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header,main{max-width:1200px;margin:0 auto;padding:0 20px}
header{padding-top:16px;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 8px;word-break:break-all}
h2{font-size:16px;margin:24px 0 8px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:0 0 8px}
dt{color:var(--muted)}dd{margin:0;word-break:break-all}
.totals{margin:8px 0 12px}
.muted,.desc{color:var(--muted)}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.badge{display:inline-block;padding:0 6px;border-radius:9px;font-size:12px;color:#fff;background:var(--muted)}
.s-queued{background:var(--queued)}.s-running{background:var(--running)}.s-completed{background:var(--completed)}
.s-failed{background:var(--failed)}.s-timeout{background:var(--timeout)}.s-cancelled{background:var(--cancelled)}.s-lost{background:var(--lost)}
.tag{border:1px solid var(--line);border-radius:4px;padding:0 4px;font-size:12px}
.idx{color:var(--muted);font-variant-numeric:tabular-nums}
a.handle{font-weight:600;text-decoration:none;color:inherit}a.handle:hover{text-decoration:underline}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px;border-left:1px solid var(--line)}
ul.tree{border-left:0;padding-left:0}
ul.tree li{margin:3px 0}
.axis{display:flex;justify-content:space-between;color:var(--muted);font-size:12px;margin-left:260px}
.row{display:flex;align-items:center;gap:8px;margin:2px 0}
.row .label{width:170px;flex:none;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;color:inherit;text-decoration:none}
.row .state{width:82px;flex:none}
.track{position:relative;flex:1;height:14px;background:var(--soft);border-radius:3px}
.seg{position:absolute;top:2px;height:10px;border-radius:2px}
.seg.queued,.swatch.queued{background:repeating-linear-gradient(45deg,var(--queued),var(--queued) 3px,#c9d1d9 3px,#c9d1d9 6px)}
.legend{margin-top:6px;color:var(--muted);font-size:12px}
.key{margin-right:12px}.swatch{display:inline-block;width:12px;height:10px;border-radius:2px;margin-right:4px;vertical-align:middle}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid var(--line);padding:4px 6px;text-align:left;white-space:nowrap}
tfoot td{font-weight:600}
details.transcript{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:var(--bg)}
details.transcript>summary{cursor:pointer;padding:6px 10px;background:var(--soft);border-radius:6px}
details.transcript[open]>summary{border-bottom:1px solid var(--line);border-radius:6px 6px 0 0}
.where,.transcript>.desc{margin:6px 10px;font-size:12px;word-break:break-all}
ol.records{list-style:none;margin:0;padding:0 10px 10px}
.rec{border-left:3px solid var(--line);padding:2px 8px;margin:4px 0}
.rec .ts{color:var(--muted);font-size:11px;margin-right:8px;font-variant-numeric:tabular-nums}
.rec .kind{font-weight:600;margin-right:4px}
.rec pre{margin:2px 0 0;white-space:pre-wrap;word-break:break-word;max-height:480px;overflow:auto;background:var(--soft);padding:4px 6px;border-radius:4px}
.role-user{border-left-color:var(--running)}.role-assistant{border-left-color:var(--completed)}
.rec-tool-call,.rec-tool-result{border-left-color:#8c959f}.is-error{border-left-color:var(--failed)}
.rec-permission{border-left-color:var(--timeout)}
.decision{font-weight:600}.d-allowed{color:var(--completed)}.d-denied{color:var(--failed)}
.rec-subagent-start,.rec-subagent-end{border-left-color:var(--lost)}
.level-warning{border-left-color:var(--timeout)}.level-error{border-left-color:var(--failed)}
.err{color:var(--failed)}.cut{color:var(--muted);font-style:italic}
.actions button{font:inherit;padding:2px 10px}
`

/** The report's inline script: expand or collapse every transcript, and open the one a link points at. */
export const REPORT_SCRIPT = `
(function(){
  var all=function(){return document.querySelectorAll("details.transcript")};
  document.addEventListener("click",function(ev){
    var t=ev.target;
    if(t&&t.getAttribute&&t.getAttribute("data-action")){var open=t.getAttribute("data-action")==="open";all().forEach(function(d){d.open=open});return}
    var a=t&&t.closest?t.closest("a[href^='#t-']"):null;
    if(a){var d=document.getElementById(a.getAttribute("href").slice(1));if(d)d.open=true}
  });
  if(location.hash.indexOf("#t-")===0){var d=document.getElementById(location.hash.slice(1));if(d)d.open=true}
})();
`
