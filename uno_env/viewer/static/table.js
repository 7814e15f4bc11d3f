// Draws one table view (the JSON made by uno_env.viewer.frames.table_view). No network, no dependencies.
"use strict";
const UnoTable = (() => {
  const COLOURS = ["red", "yellow", "green", "blue"];
  const colourOf = (name) => { const c = name.split(" ")[0]; return COLOURS.includes(c) ? c : "wild"; };
  const RGB = {red: "#d62828", yellow: "#ebbe14", green: "#28963c", blue: "#1e5ac8"};
  const SYMBOLS = {"skip": "⊘", "reverse": "⇄", "draw one": "+1", "draw two": "+2", "draw four": "+4"};
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }
  // a card's face: a big symbol (the number, ⇄, +2 ...) and, for the non-number cards, its words below; the top
  // card spells out its whole name
  function face(name, big) {
    const colour = colourOf(name);
    const rest = colour === "wild" ? name.slice(4).trim() : name.slice(name.indexOf(" ") + 1);
    const number = /^[0-9]+$/.test(rest);
    const sym = number ? rest : colour === "wild" ? (SYMBOLS[rest] || "W") : (SYMBOLS[rest] || rest);
    const word = big ? name : number ? "" : (rest || name);
    return [el("span", {class: "sym", text: sym}), word ? el("span", {class: "word", text: word}) : null];
  }
  function card(name, big, tag, die) {
    const cls = `card ${colourOf(name)}${big ? " big" : ""}${die ? " die" : ""}`;
    return el(tag || "span", {class: cls, title: name, "data-card": name}, ...face(name, big));
  }
  function back(n) { return el("span", {class: "card back", title: `${n} hidden`}); }
  // one entry of the action log: the action, then what else happened (a catch, a challenge's outcome, penalties)
  function logEntry(entry, attrs) {
    const events = (entry.events || []).map((t) => el("li", {text: t}));
    return el("li", attrs || {}, el("span", {class: "act", text: entry.text}),
      events.length ? el("ul", {class: "events"}, ...events) : null);
  }
  function seatBlock(f, s, names, options) {
    const h = f.hands[s];
    const acting = s === f.current && !f.done;
    const who = (names && names[s]) ? ` (${names[s]})` : "";
    const head = el("div", {},
      el("span", {class: "name", text: `player_${s}${who}${s === f.viewer ? " — you" : ""}`}),
      el("span", {class: "count", text: `${h.count} ${f.game === "dice" ? (h.count === 1 ? "die" : "dice")
                                                   : (h.count === 1 ? "card" : "cards")} · score ${f.scores[s]} `}),
      f.called_uno[s] ? el("span", {class: "uno", text: "UNO"}) : null,
      acting ? el("span", {text: " ◀ to act"}) : null);
    const cards = el("div", {class: "cards"});
    const onCard = s === f.viewer ? options.onCard : null;
    if (h.cards === null) { for (let i = 0; i < h.count; i++) cards.append(back(h.count)); }
    else h.cards.forEach((name, i) => {
      const c = card(name, false, onCard ? "button" : "span", f.game === "dice");
      c.dataset.index = i;
      if (h.dice) c.dataset.die = h.dice[i];
      if (onCard) onCard(i, c);
      cards.append(c);
    });
    return el("div", {class: `seat${acting ? " acting" : ""}`, id: `seat-${s}`, "data-seat": s}, head,
      el("div", {id: `hand-${s}`, class: "hand"}, cards), s === f.viewer ? options.panel : null);
  }
  // options.onCard(index, button) turns the viewer's cards into buttons (the play page); options.panel is placed
  // under the viewer's hand.  A seat's view puts the other seats above the centre and the viewer's own below it.
  function render(root, f, names, options) {
    options = options || {};
    root.replaceChildren();
    root.append(el("h1", {text: `UNO ${f.game} · round ${f.round} · decision ${f.turns}`}));
    if (f.done) {
      const end = f.done === "truncated" ? "game over: truncated" : `game over: player_${f.winner} wins`;
      root.append(el("div", {class: "gameover", id: "result", text: end}));
    }
    const top = card(f.top, true, "span", f.game === "dice"); top.id = "top-card";
    const sw = el("span", {class: "swatch", id: "colour-swatch", style: `background: ${RGB[f.colour]}`});
    const pile = el("span", {class: "card back pile", id: "pile", text: `${f.pile_name}: ${f.pile}`});
    const centre = el("div", {class: "centre"}, pile, top, sw,
      el("div", {class: "status"},
        el("div", {id: "colour", text: `colour: ${f.colour}`}),
        el("div", {id: "direction", text: f.direction === 1 ? "clockwise" : "counter-clockwise"}),
        el("div", {id: "phase", text: `phase: ${f.phase}`}),
        f.pending ? el("div", {id: "pending", text: `pending draw: ${f.pending}`}) : null));
    const seats = [...Array(f.num_players).keys()];
    if (f.viewer === null || f.viewer === undefined) {
      root.append(centre, ...seats.map((s) => seatBlock(f, s, names, options)));
    } else {
      root.append(...seats.filter((s) => s !== f.viewer).map((s) => seatBlock(f, s, names, options)), centre,
        seatBlock(f, f.viewer, names, options));
    }
  }
  return {render, el, logEntry};
})();
