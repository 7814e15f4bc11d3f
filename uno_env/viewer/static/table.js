// Draws one table view (the JSON made by uno_env.viewer.frames.table_view). No network, no dependencies.
"use strict";
const UnoTable = (() => {
  const COLOURS = ["red", "yellow", "green", "blue"];
  const colourOf = (name) => { const c = name.split(" ")[0]; return COLOURS.includes(c) ? c : "wild"; };
  const RGB = {red: "#d62828", yellow: "#ebbe14", green: "#28963c", blue: "#1e5ac8"};
  // small cards show the symbol (the colour is the background); the top card says it in full
  const label = (name, big) => big || colourOf(name) === "wild" ? name : name.slice(name.indexOf(" ") + 1);
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  function card(name, big, tag) {
    const e = el(tag || "span", {class: `card ${colourOf(name)}${big ? " big" : ""}`, title: name, "data-card": name});
    e.textContent = label(name, big);
    return e;
  }
  function back(n) { return el("span", {class: "card back", title: `${n} hidden`}); }
  // onCard(name, element) may turn a hand card into a button (the play page does)
  function render(root, f, names, onCard) {
    root.replaceChildren();
    root.append(el("h1", {text: `UNO ${f.game} · round ${f.round} · decision ${f.turns}`}));
    if (f.done) {
      const end = f.done === "truncated" ? "game over: truncated" : `game over: player_${f.winner} wins`;
      root.append(el("div", {class: "gameover", id: "result", text: end}));
    }
    const top = card(f.top, true); top.id = "top-card";
    const sw = el("span", {class: "swatch", id: "colour-swatch", style: `background: ${RGB[f.colour]}`});
    const pile = el("span", {class: "card back pile", id: "pile", text: `${f.pile_name}: ${f.pile}`});
    root.append(el("div", {class: "centre"}, pile, top, sw,
      el("div", {class: "status"},
        el("div", {id: "colour", text: `colour: ${f.colour}`}),
        el("div", {id: "direction", text: f.direction === 1 ? "clockwise" : "counter-clockwise"}),
        el("div", {id: "phase", text: `phase: ${f.phase}`}),
        f.pending ? el("div", {id: "pending", text: `pending draw: ${f.pending}`}) : null)));
    for (let s = 0; s < f.num_players; s++) {
      const h = f.hands[s];
      const acting = s === f.current && !f.done;
      const who = (names && names[s]) ? ` (${names[s]})` : "";
      const head = el("div", {},
        el("span", {class: "name", text: `player_${s}${who}${s === f.viewer ? " — you" : ""}`}),
        el("span", {class: "count", text: `${h.count} ${f.game === "dice" ? "dice" : "cards"} · score ${f.scores[s]} `}),
        f.called_uno[s] ? el("span", {class: "uno", text: "UNO"}) : null,
        acting ? el("span", {text: " ◀ to act"}) : null);
      const cards = el("div", {class: "cards"});
      if (h.cards === null) { for (let i = 0; i < h.count; i++) cards.append(back(h.count)); }
      else for (const name of h.cards) { const c = card(name, false, onCard ? "button" : "span"); if (onCard) onCard(name, c); cards.append(c); }
      root.append(el("div", {class: `seat${acting ? " acting" : ""}`, id: `seat-${s}`, "data-seat": s}, head,
        el("div", {id: `hand-${s}`, class: "hand"}, cards)));
    }
  }
  return {render, el};
})();
