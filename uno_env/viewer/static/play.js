// The page of `uno-env serve`: draws the server's view and sends the action ids the person clicks.
"use strict";
const $ = (id) => document.getElementById(id);
const table = $("table"), log = $("log"), panel = $("turn"), error = $("error"), unoChoice = $("uno-choice");
let busy = false;  // one request at a time: a second click while the server plays the other seats is ignored
async function call(path, body) {
  if (busy) return;
  busy = true;
  try {
    const post = {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)};
    const r = await fetch(path, body === undefined ? {} : post);
    const data = await r.json();
    if (!r.ok) { error.textContent = data.error || `error ${r.status}`; return; }
    error.textContent = data.error || ""; show(data);
  } finally { busy = false; }
}
const act = (id) => call("/action", {action: id});
// a play that leaves one card asks, on the play itself, whether to call UNO with it
function askUno(moves, button) {
  button.classList.add("chosen");
  const item = button.classList.contains("die") ? "die" : "card";
  $("uno-question").textContent = `Playing ${button.title} leaves you one ${item}:`;
  $("uno-call").onclick = () => act(moves.play_uno.id);
  $("uno-skip").onclick = () => act(moves.play.id);
  $("uno-cancel").onclick = () => { unoChoice.hidden = true; button.classList.remove("chosen"); };
  unoChoice.hidden = false;
  $("uno-call").focus();
}
function show(s) {
  // the server names the hand positions each legal play or give may take: the page never matches names
  const byCard = new Map(), others = [];
  for (const m of s.legal) {
    if (!m.cards) { others.push(m); continue; }
    const kind = m.section === "give" ? "give" : m.section.endsWith("_uno") ? "play_uno" : "play";
    for (const i of m.cards) { if (!byCard.has(i)) byCard.set(i, {}); byCard.get(i)[kind] = m; }
  }
  unoChoice.hidden = true;
  UnoTable.render(table, s.table, s.names, {panel, onCard: (i, button) => {
    const moves = byCard.get(i);
    if (!moves) { button.disabled = true; if (s.legal.length) button.classList.add("unplayable"); return; }
    const only = moves.give || moves.play || moves.play_uno;
    button.classList.add("legal"); button.dataset.action = only.id;
    if (moves.play && moves.play_uno) button.dataset.unoAction = moves.play_uno.id;
    button.onclick = () => (moves.play && moves.play_uno) ? askUno(moves, button) : act(only.id);
  }});
  $("prompt").textContent = s.prompt;
  $("actions").replaceChildren(...others.map((m) => {
    const b = UnoTable.el("button", {text: m.label, "data-action": m.id, "data-section": m.section,
                                     class: m.section === "colour" ? `colour ${m.label}` : ""});
    b.onclick = () => act(m.id); return b;
  }));
  log.replaceChildren(...s.log.map((entry) => UnoTable.logEntry(entry)));
  if (log.lastChild) log.lastChild.scrollIntoView({block: "nearest"});
}
$("new-game").onclick = () => call("/new", {});
call("/state");
