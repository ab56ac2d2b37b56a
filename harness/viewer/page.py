"""One match as one self-contained HTML page: inline CSS and script, cards drawn with CSS, no requests.

:func:`render` is pure: a record's lines in, the page out (:mod:`harness.viewer.model` re-deals the record
through the game interface). The page steps through every decision (buttons, the slider, arrow keys;
PageUp/PageDown by deal), shows every hand or one seat's view (``seat``, or the view menu), the scores,
a forfeit with its cause, and each deal's reveal. Its position is kept in the address
(``#step=N&view=all|P``) so a link can point at one decision.
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from .model import steps

# The page may not fetch anything: a browser that honours the policy refuses every request it would make.
CSP = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"

CSS = """
:root{--bg:#f4f5f7;--card:#fff;--ink:#1d2330;--muted:#667085;--line:#e4e7ec;--accent:#4269d0;--bad:#b42318;
--felt:#1f6f4a;--felt2:#185c3d;--chip:#eef0f3}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--card:#171b22;--ink:#e6e8ec;--muted:#98a2b3;
--line:#2a303a;--accent:#7aa2ff;--bad:#ff8a7a;--chip:#222833}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,
"Helvetica Neue",Arial,"DejaVu Sans",sans-serif}
main{max-width:1180px;margin:0 auto;padding:20px 16px 48px}
h1{font-size:22px;margin:0 0 2px;letter-spacing:-.01em}
.sub{color:var(--muted);font-size:13px;margin:0}
.bar{display:flex;flex-wrap:wrap;align-items:center;gap:8px;margin:14px 0;position:sticky;top:0;z-index:2;
background:var(--bg);padding:8px 0}
button,select{font:inherit;border:1px solid var(--line);background:var(--card);color:var(--ink);border-radius:8px;
padding:5px 11px;cursor:pointer}
button:hover{border-color:var(--accent)}
input[type=range]{flex:1;min-width:160px}
#counter{font-variant-numeric:tabular-nums;min-width:9em;text-align:center;color:var(--muted)}
.problem{background:rgba(180,35,24,.12);color:var(--bad);border-radius:10px;padding:8px 12px;margin:10px 0}
#banner{font-size:17px;margin:6px 0 12px;min-height:1.6em}
#banner.forfeit,#banner.stopped{color:#ffb4a8;font-weight:600}
#banner.deal_end,#banner.start{font-weight:600}
#banner .sub{color:#e3efe8;font-weight:400;margin-top:2px}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 290px;gap:16px}
@media (max-width:860px){.layout{grid-template-columns:1fr}}
.felt{background:radial-gradient(ellipse at center,var(--felt) 0,var(--felt2) 100%);border-radius:18px;
padding:14px;color:#fff}
.seats{display:grid;grid-template-columns:repeat(auto-fit,minmax(250px,1fr));gap:10px}
.seat{background:rgba(0,0,0,.18);border:2px solid transparent;border-radius:12px;padding:8px 10px}
.seat.actor{border-color:#ffd166}
.seat.next{box-shadow:inset 0 0 0 1px rgba(255,255,255,.45)}
.seat.offender{border-color:#ff6b5b;background:rgba(180,35,24,.35)}
.seat.out{opacity:.55}
.who{display:flex;align-items:baseline;gap:8px;flex-wrap:wrap}
.who .name{font-weight:700}
.who .meta{font-size:12px;opacity:.8}
.who .score{margin-left:auto;font-weight:700;font-variant-numeric:tabular-nums}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%}
.hand{display:flex;flex-wrap:wrap;gap:4px;margin:7px 0 4px;min-height:58px}
.card{display:inline-flex;flex-direction:column;justify-content:space-between;width:40px;height:56px;
border-radius:6px;background:#fff;color:#1d2330;border:1px solid #c9ced6;padding:3px 4px;
box-shadow:0 1px 2px rgba(0,0,0,.25);font-weight:700;line-height:1;user-select:none}
.card b{font-size:15px}.card i{font-style:normal;font-size:20px;align-self:flex-end}
.card.red{color:#c81e1e}
.card.back{background:repeating-linear-gradient(45deg,#3a5bbf 0 5px,#2f4ea6 5px 10px);border-color:#fff}
.card.played{outline:3px solid #ffd166;outline-offset:1px}
.card.small{width:30px;height:42px;padding:2px 3px}.card.small b{font-size:12px}.card.small i{font-size:15px}
.chip{display:inline-block;background:rgba(255,255,255,.16);border-radius:999px;padding:1px 9px;font-size:12.5px;
margin:2px 3px 0 0}
.chip.chosen{background:#ffd166;color:#1d2330;font-weight:700}
.legal{font-size:12.5px;margin-top:4px}
.private{font-size:12px;opacity:.85}
.table{display:flex;align-items:center;justify-content:center;gap:14px;min-height:112px;margin:12px 0;
flex-wrap:wrap}
.play{display:flex;flex-direction:column;align-items:center;gap:3px;font-size:12px}
.table .label{opacity:.75;font-size:13px}
aside section,.panel{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:12px 14px;
margin-bottom:12px}
h2{font-size:14px;margin:0 0 8px;color:var(--muted);font-weight:600;text-transform:uppercase;letter-spacing:.04em}
table.facts{border-collapse:collapse;width:100%;font-size:13px}
table.facts td{padding:3px 4px;border-bottom:1px solid var(--line);vertical-align:top}
table.facts td:first-child{color:var(--muted);white-space:nowrap}
#log{display:flex;flex-wrap:wrap;gap:4px;font-size:12.5px}
#log a{color:inherit;text-decoration:none;border-radius:6px;padding:1px 6px;background:var(--chip);cursor:pointer}
#log a.now{background:var(--accent);color:#fff}
#reveal .deck{display:flex;flex-wrap:wrap;gap:3px;margin:6px 0}
.reveal{background:var(--card);color:var(--ink);border-radius:12px;padding:10px 12px;margin-top:12px}
pre{white-space:pre-wrap;font-size:12px;background:var(--chip);padding:8px;border-radius:8px;max-height:220px;
overflow:auto}
.hidden{display:none}
kbd{border:1px solid var(--line);border-radius:4px;padding:0 4px;font-size:12px;background:var(--card)}
"""

SCRIPT = r"""
(function(){
"use strict";
var D = JSON.parse(document.getElementById("match").textContent);
var S = D.steps, N = S.length, P = D.players.length;
var COLORS = ["#4269d0","#efb118","#ff725c","#6cc5b0","#3ca951","#ff8ab7","#a463f2","#97bbf5"];
var SUIT = {C:"\u2663", D:"\u2666", H:"\u2665", S:"\u2660"};
var state = {i: 0, view: D.view};
function $(id){ return document.getElementById(id); }
function h(tag, attrs){
  var e = document.createElement(tag);
  for (var k in (attrs || {})) {
    if (k === "text") e.textContent = attrs[k];
    else if (k === "cls") e.className = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  for (var j = 2; j < arguments.length; j++) {
    var c = arguments[j];
    if (c === null || c === undefined) continue;
    if (Array.isArray(c)) c.forEach(function(x){ if (x) e.appendChild(x); });
    else e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}
function isCard(t){ return typeof t === "string" && /^[2-9TJQKA][CDHS]$/.test(t); }
function cardEl(c, cls){
  var red = c[1] === "H" || c[1] === "D";
  return h("span", {cls: "card" + (red ? " red" : "") + (cls ? " " + cls : ""), "data-card": c, title: c},
           h("b", {text: c[0] === "T" ? "10" : c[0]}), h("i", {text: SUIT[c[1]]}));
}
function back(){ return h("span", {cls: "card back", "data-card": "?"}); }
function tokenText(t){
  if (isCard(t)) return (t[0] === "T" ? "10" : t[0]) + SUIT[t[1]];
  if (t.length === 1 && SUIT[t]) return SUIT[t];
  return t.replace(/_/g, " ");
}
function actionText(a){
  return a.split(":").map(function(part){ return part.split("+").map(tokenText).join("+"); }).join(" ");
}
function valueText(v){
  if (v === null || v === undefined) return "\u2014";
  if (Array.isArray(v)) return v.length ? v.map(valueText).join(" \u00b7 ") : "\u2014";
  if (typeof v === "object") return Object.keys(v).map(function(k){ return k + " " + valueText(v[k]); }).join(", ");
  if (typeof v === "string") return tokenText(v);
  return String(v);
}
function name(p){ return p === null || p === undefined ? "?" : (D.players[p] || ("player " + p)); }
function nameEl(p){
  return h("span", {cls: "who-inline"}, h("span", {cls: "dot", style: "background:" + COLORS[p % COLORS.length]}),
           " ", h("b", {text: name(p)}));
}
function facts(obj){
  var rows = Object.keys(obj || {}).map(function(k){
    return h("tr", null, h("td", {text: k.replace(/_/g, " ")}), h("td", {text: valueText(obj[k])}));
  });
  return h("table", {cls: "facts"}, h("tbody", null, rows));
}
function dealOf(i){ var d = S[i].deal; return d === null || d === undefined ? null : D.deals[d]; }
function viewing(){ return state.view === "all" ? null : Number(state.view); }
function sees(s, p){ var v = viewing(); return v === null || v === p || s.kind === "deal_end"; }

function render(){
  var i = state.i, s = S[i], v = viewing(), deal = dealOf(i);
  document.body.setAttribute("data-step", String(i));
  document.body.setAttribute("data-view", state.view);
  $("counter").textContent = "step " + i + " / " + (N - 1) + (deal ? " \u00b7 deal " + deal.deal_no : "");
  $("slider").value = String(i);
  $("deal").value = s.deal === null || s.deal === undefined ? "" : String(s.deal);
  $("view").value = state.view;
  // what happened
  var banner = $("banner");
  banner.className = s.kind;
  banner.textContent = "";
  var act = $("action");
  var hidden = s.actor !== null && v !== null && !s.seen[v];
  act.setAttribute("data-actor", s.actor === null ? "" : String(s.actor));
  act.setAttribute("data-action", s.action === null ? "" : (hidden ? "?" : s.action));
  act.setAttribute("data-kind", s.kind);
  if (s.kind === "start") {
    banner.appendChild(h("span", {text: "Deal " + deal.deal_no + " \u00b7 "}));
    banner.appendChild(nameEl(deal.dealer));
    banner.appendChild(h("span", {text: " deals"}));
  } else if (s.kind === "forfeit") {
    var e = D.end || {};
    banner.appendChild(nameEl(s.actor));
    banner.appendChild(h("span", {text: " forfeits: " + e.cause + (e.detail ? " \u2014 " + e.detail : "") +
      (e.decision_no ? " (decision " + e.decision_no + ")" : "")}));
  } else if (s.kind === "stopped") {
    var x = D.end || {};
    banner.appendChild(h("span", {text: "The match stopped: " + x.cause + (x.detail ? " \u2014 " + x.detail : "")}));
  } else if (s.actor !== null) {
    banner.appendChild(nameEl(s.actor));
    banner.appendChild(h("span", {text: hidden ? " acts (not seen from this seat)"
                                               : " \u2192 " + actionText(s.action)}));
    if (s.kind === "stop") banner.appendChild(h("span", {text: " \u2014 the record stops verifying here"}));
    if (s.kind === "deal_end") banner.appendChild(h("span", {text: " \u00b7 deal " + deal.deal_no + " ends"}));
  }
  if (i === N - 1 && D.end) banner.appendChild(h("div", {cls: "sub", id: "final", text: D.result}));
  // seats
  var seats = $("seats");
  seats.textContent = "";
  for (var p = 0; p < P; p++) {
    var hand = s.hands[p] || [];
    var cls = "seat" + (s.actor === p ? (s.kind === "forfeit" ? " offender" : " actor") : "") +
              (s.to_act === p && s.kind !== "forfeit" ? " next" : "") + (s.seats[p] === null ? " out" : "");
    var meta = (s.seats[p] === null ? "out" : "seat " + s.seats[p]) + (D.teams.length && new Set(D.teams).size < P ?
               " \u00b7 team " + D.teams[p] : "") + (deal && deal.dealer === p ? " \u00b7 dealer" : "") +
               (s.to_act === p && s.kind !== "forfeit" ? " \u00b7 to act" : "");
    var handEl = h("div", {cls: "hand", "data-player": String(p), "data-count": String(hand.length)},
      hand.map(function(c){ return sees(s, p) ? cardEl(c) : back(); }));
    var box = h("div", {cls: cls, "data-player": String(p)},
      h("div", {cls: "who"}, h("span", {cls: "dot", style: "background:" + COLORS[p % COLORS.length]}),
        h("span", {cls: "name", text: name(p)}), h("span", {cls: "meta", text: meta}),
        h("span", {cls: "score", title: "match score", text: String(s.scores[p])})),
      handEl);
    if (s.actor === p && s.legal.length && (v === null || v === p)) {
      box.appendChild(h("div", {cls: "legal"}, h("span", {text: "could: "}), s.legal.map(function(a){
        return h("span", {cls: "chip" + (a === s.action ? " chosen" : ""), text: actionText(a)});
      })));
    }
    var priv = s.private[p] || {};
    if (Object.keys(priv).length && (v === null || v === p)) {
      box.appendChild(h("div", {cls: "private", text: Object.keys(priv).map(function(k){
        return k.replace(/_/g, " ") + ": " + valueText(priv[k]); }).join(" \u00b7 ")}));
    }
    seats.appendChild(box);
  }
  // the trick on the table
  var table = $("trick");
  table.textContent = "";
  table.setAttribute("data-done", s.done ? "1" : "0");
  if (!s.trick.length) table.appendChild(h("span", {cls: "label", text: "no cards on the table"}));
  s.trick.forEach(function(play, k){
    var last = k === s.trick.length - 1 && play[0] === s.actor && s.kind !== "start";
    table.appendChild(h("div", {cls: "play", "data-player": String(play[0])},
      h("div", {cls: "hand"}, play[1].map(function(c){ return isCard(c) ? cardEl(c, last ? "played" : "") :
                                                        h("span", {cls: "chip", text: c}); })),
      h("span", {text: name(play[0])})));
  });
  if (s.done) table.appendChild(h("span", {cls: "label", text: "trick complete"}));
  // facts
  $("public").textContent = "";
  $("public").appendChild(facts(s.public));
  // reveal at the end of a deal
  var rv = $("reveal");
  rv.textContent = "";
  if (s.kind === "deal_end" && deal && deal.reveal) {
    rv.className = "reveal";
    rv.appendChild(h("h2", {text: "Deal " + deal.deal_no + " revealed"}));
    rv.appendChild(h("div", {cls: "deck", "data-deck": deal.reveal.deck.join(" ")},
      deal.reveal.deck.map(function(c){ return isCard(c) ? cardEl(c, "small") : h("span", {text: c}); })));
    rv.appendChild(facts(Object.assign({
      "points won": deal.reveal.points.map(function(x, q){ return name(q) + " " + x; }),
      "match scores": deal.reveal.scores.map(function(x, q){ return name(q) + " " + x; })}, deal.reveal.record)));
  } else rv.className = "hidden";
  // this deal's decisions
  var log = $("log");
  log.textContent = "";
  if (deal) {
    var last = s.deal === D.deals.length - 1 ? N : D.deals[s.deal + 1].step;
    for (var j = deal.step + 1; j < last; j++) {
      var t = S[j], hid = t.actor !== null && v !== null && !t.seen[v];
      var a = h("a", {"data-step": String(j), cls: j === i ? "now" : "", title: name(t.actor),
        text: (t.kind === "forfeit" ? "forfeit" : hid ? "?" : actionText(t.action || ""))});
      a.style.borderLeft = "3px solid " + COLORS[(t.actor || 0) % COLORS.length];
      log.appendChild(a);
    }
  }
  var hash = "#step=" + i + "&view=" + state.view;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}
function go(i){ state.i = Math.max(0, Math.min(N - 1, i)); render(); }
function dealStep(delta){
  var s = S[state.i], d = s.deal === null || s.deal === undefined ? 0 : s.deal;
  var start = D.deals.length ? D.deals[d].step : 0;
  if (delta < 0 && state.i > start) return go(start);
  var t = d + delta;
  if (t < 0) return go(0);
  if (t >= D.deals.length) return go(N - 1);
  go(D.deals[t].step);
}
function load(){
  var m = /step=(\d+)/.exec(location.hash), w = /view=(all|\d+)/.exec(location.hash);
  if (m) state.i = Math.min(N - 1, Number(m[1]));
  if (w && (w[1] === "all" || Number(w[1]) < P)) state.view = w[1];
}
$("first").onclick = function(){ go(0); };
$("prev").onclick = function(){ go(state.i - 1); };
$("next").onclick = function(){ go(state.i + 1); };
$("last").onclick = function(){ go(N - 1); };
$("slider").max = String(N - 1);
$("slider").oninput = function(){ go(Number(this.value)); };
$("deal").onchange = function(){ if (this.value !== "") go(D.deals[Number(this.value)].step); };
$("view").onchange = function(){ state.view = this.value; render(); };
$("log").onclick = function(ev){ var s = ev.target.getAttribute("data-step"); if (s !== null) go(Number(s)); };
document.addEventListener("keydown", function(ev){
  if (ev.target && ev.target.tagName === "SELECT") return;
  var k = ev.key;
  if (k === "ArrowRight") go(state.i + 1);
  else if (k === "ArrowLeft") go(state.i - 1);
  else if (k === "Home") go(0);
  else if (k === "End") go(N - 1);
  else if (k === "PageDown") dealStep(1);
  else if (k === "PageUp") dealStep(-1);
  else return;
  ev.preventDefault();
});
window.addEventListener("hashchange", function(){ load(); render(); });
if (N) { load(); render(); }
})();
"""


def result_text(data: dict[str, Any]) -> str:
    """One line: how the match ended."""
    end = data.get("end")
    players = data["players"]
    if not end:
        return "no end line: the record is cut short"

    def who(p: Any) -> str:
        return players[p] if isinstance(p, int) and 0 <= p < len(players) else "?"

    ranks, scores = end.get("ranks"), end.get("scores") or []
    score = " : ".join(str(s) for s in scores)
    if ranks is None:
        return f"no result: {end.get('cause')}" + (f" — {end['detail']}" if end.get("detail") else "")
    first = " and ".join(who(p) for p, r in enumerate(ranks) if r == 0)
    if end.get("cause") == "normal":
        return f"{first} {'wins' if list(ranks).count(0) == 1 else 'win'} · scores {score}"
    return (f"{first} {'wins' if list(ranks).count(0) == 1 else 'win'} by forfeit: {who(end.get('offender'))} "
            f"{end.get('cause')}" + (f" — {end['detail']}" if end.get("detail") else "") + f" · scores {score}")


def _json(data: dict[str, Any]) -> str:
    """JSON safe inside a script element."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c")  # no "</script>" or "<!--" can end or bend the element


def render(lines: list[dict[str, Any]], seat: int | None = None) -> str:
    """The page of one match record (its lines, as :func:`harness.arena.record.read_checked` gives them);
    ``seat`` opens it in that player's view (default: every hand shown)."""
    data = steps(lines)
    players = data["players"]
    data["view"] = "all" if seat is None or not 0 <= seat < len(players) else str(seat)
    data["result"] = result_text(data)
    title = f"{data['title']} · {' vs '.join(players)}"
    deals = "".join(f"<option value=\"{k}\">deal {d['deal_no']}</option>" for k, d in enumerate(data["deals"]))
    views = "<option value=\"all\">all hands</option>" + "".join(
        f"<option value=\"{p}\">{escape(n)}'s view</option>" for p, n in enumerate(players))
    rules = ", ".join(data["rule_changes"]) or "default rules"
    problem = (f"<p class=\"problem\" id=\"problem\">This record does not verify: {escape(str(data['problem']))}. "
               "The page follows it as far as it can.</p>" if data["problem"] else "")
    tails = [(players[p] if p < len(players) else str(p), t) for p, t in enumerate(data["stderr"]) if t.strip()]
    stderr = "".join(f"<h2>stderr of {escape(n)}</h2><pre>{escape(t)}</pre>" for n, t in tails)
    empty = "" if data["steps"] else "<p class=\"problem\">This record has no decision to show.</p>"
    return "".join([
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">",
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">",
        "<meta name=\"color-scheme\" content=\"light dark\">",
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body data-step=\"0\"><main>",
        f"<header><h1>{escape(title)}</h1><p class=\"sub\">Sixty-Six Arena · match {escape(data['match_id'])} · "
        f"seed {escape(str(data['seed']))} · {escape(rules)}</p></header>",
        problem, empty,
        "<nav class=\"bar\" aria-label=\"step through the match\">",
        "<button id=\"first\" title=\"first (Home)\">«</button><button id=\"prev\" title=\"back (←)\">◀</button>",
        "<span id=\"counter\"></span>",
        "<button id=\"next\" title=\"forward (→)\">▶</button><button id=\"last\" title=\"last (End)\">»</button>",
        "<input id=\"slider\" type=\"range\" min=\"0\" value=\"0\" aria-label=\"step\">",
        f"<select id=\"deal\" aria-label=\"deal\" title=\"deal (PageUp/PageDown)\">{deals}</select>",
        f"<select id=\"view\" aria-label=\"view\">{views}</select></nav>",
        "<div class=\"layout\"><div><div class=\"felt\"><div id=\"banner\"></div><span id=\"action\" hidden></span>",
        "<div id=\"trick\" class=\"table\"></div><div id=\"seats\" class=\"seats\"></div></div>",
        "<div id=\"reveal\" class=\"hidden\"></div></div>",
        "<aside><section><h2>Table</h2><div id=\"public\"></div></section>",
        "<section><h2>This deal</h2><div id=\"log\"></div></section>",
        f"<section id=\"result\"><h2>Result</h2><details><summary>show</summary><p>{escape(data['result'])}</p>"
        f"</details>{stderr}</section>",
        "<section><h2>Keys</h2><p class=\"sub\"><kbd>←</kbd> <kbd>→</kbd> step · "
        "<kbd>Home</kbd> <kbd>End</kbd> · "
        "<kbd>PgUp</kbd> <kbd>PgDn</kbd> deal</p></section></aside></div></main>",
        f"<script type=\"application/json\" id=\"match\">{_json(data)}</script>",
        f"<script>{SCRIPT}</script></body></html>\n",
    ])
