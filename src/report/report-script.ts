// The report's whole script (no framework: the page needs counting, filtering, searching and
// sorting of rows that are already in the document, nothing that would pay for a runtime).
// It reads only the rows' data- attributes, so it works the same on a report cut short by
// Ctrl-C: it runs when parsing ends, whatever was written. It also gives a copy's row the
// thumbnail of the first row with the same SHA-256 (each picture is in the file once), and
// makes a row's card from the comment that holds it when the row is first opened.
// Sorting: `idx` holds the rows' input places in the order shown; each sort keys the rows by input
// place (keys[i] is row i's key), never by place in `idx`, which an earlier sort has permuted.
export const REPORT_SCRIPT = `"use strict";
document.addEventListener("DOMContentLoaded",function(){
var list=document.getElementById("rows"),rows=Array.prototype.slice.call(list.children),
q=document.getElementById("q"),sort=document.getElementById("sort"),shown=document.getElementById("shown"),
words={found:"found",not_found:"not found",unavailable:"unavailable",error:"could not be read"},
counts={},order=[],errors=0,text=[];
rows.forEach(function(r,i){
 text[i]=(r.getAttribute("data-source")+" "+(r.getAttribute("data-search")||"")).toLowerCase();
 if(r.hasAttribute("data-error")){errors++;return}
 for(var a=r.attributes,k=0;k<a.length;k++){var n=a[k].name;if(n.indexOf("data-result-")!==0)continue;
  var c=n.slice(12);if(!counts[c]){counts[c]={found:0,not_found:0,unavailable:0};order.push(c)}
  counts[c][a[k].value]=(counts[c][a[k].value]||0)+1}
});
var pics={};Array.prototype.forEach.call(list.querySelectorAll("img[data-sha]"),function(i){pics[i.getAttribute("data-sha")]=i.src});
Array.prototype.forEach.call(list.querySelectorAll("img[data-same]"),function(i){var s=pics[i.getAttribute("data-same")];if(s)i.src=s});
function card(d){if(!d.open)return;for(var c=d.firstChild;c;c=c.nextSibling)if(c.nodeType===8){d.insertAdjacentHTML("beforeend",c.data);d.removeChild(c);return}}
list.addEventListener("toggle",function(e){if(e.target.tagName==="DETAILS")card(e.target)},true);
Array.prototype.forEach.call(list.querySelectorAll("details[open]"),card);
var total=rows.length,chart=document.getElementById("chart"),h="";
order.forEach(function(c){var t=counts[c],sum=t.found+t.not_found+t.unavailable+errors,bar="",label=[];
 ["found","not_found","unavailable"].concat(errors?["error"]:[]).forEach(function(k){var v=k==="error"?errors:t[k];
  if(v)bar+='<i class="b-'+k+'" style="flex-grow:'+v+'"></i>';label.push(v+" "+words[k])});
 h+='<tr><th scope="row">'+c+'</th><td>'+label.join(", ")+'</td><td><div class="bar" role="img" aria-label="'+c+': '+label.join(", ")+'">'+bar+"</div></td></tr>"});
chart.innerHTML=h?'<table><caption class="sr">Results per check</caption><thead><tr><th scope="col">check</th><th scope="col">files</th><th scope="col"><span class="sr">share</span></th></tr></thead><tbody>'+h+"</tbody></table>":"<p>No file was checked.</p>";
var end=document.getElementById("scan-end"),meta=document.getElementById("scan-meta");
meta.textContent=end?end.textContent:"The scan did not finish (it stopped before it could close this report): "+total+" input"+(total===1?"":"s")+" listed, each checked whole.";
function apply(){var f=document.querySelector("input[name=show]:checked").value,s=q.value.trim().toLowerCase(),n=0;
 for(var i=0;i<total;i++){var r=rows[i],ok=f==="all"||(" "+r.getAttribute("data-tags")+" ").indexOf(" "+f+" ")>=0;
  if(ok&&s)ok=text[i].indexOf(s)>=0;if(r.hidden===ok)r.hidden=!ok;if(ok)n++}
 shown.textContent=n+" of "+total+" shown"}
var idx=rows.map(function(r,i){return i});
function resort(){var k=sort.value,key=function(i){var r=rows[i];
  return k==="name"?r.getAttribute("data-source").toLowerCase():k==="type"?r.getAttribute("data-type")||"~":k==="size"?+r.getAttribute("data-bytes")||0:k==="found"?((" "+r.getAttribute("data-tags")+" ").indexOf(" found ")>=0?0:1):i};
 var keys=rows.map(function(r,i){return key(i)});idx.sort(function(a,b){return keys[a]<keys[b]?-1:keys[a]>keys[b]?1:a-b});
 var frag=document.createDocumentFragment();idx.forEach(function(i){frag.appendChild(rows[i])});list.appendChild(frag)}
var tools=document.getElementById("tools");tools.addEventListener("change",function(e){if(e.target===sort)resort();else apply()});
tools.addEventListener("submit",function(e){e.preventDefault()});
q.addEventListener("input",apply);
apply();
});`;
