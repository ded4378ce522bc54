// The card duel's page: each player's Hearts, pile counts, line and hands with every card's
// contribution and why, the terrain, the play controls for the player to act, captions and a new duel.
// Board text only via textContent.
"use strict";
(function () {
  const { el, act, api } = KB;
  const A = (name) => `/api/actions/duel/${name}`;
  let state = JSON.parse(document.getElementById("initial-state").textContent);
  let gameShown = false;
  const $ = (id) => document.getElementById(id);

  function option(value, text) { return el("option", { value, text }); }
  function fillSelect(sel, items) {
    const keep = sel.value;
    sel.replaceChildren(...items.map(([v, t]) => option(v, t)));
    if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  }
  const nameOf = (d, seat) => ((d.seats || []).find((s) => s.seat === Number(seat)) || {}).name || `seat ${seat}`;

  function cardRow(c, contrib) {
    const nums = [];
    if (contrib && contrib.attack) nums.push(`atk ${contrib.attack}`);
    if (contrib && contrib.defense) nums.push(`def ${contrib.defense}`);
    const extra = [];
    if (c.status && c.status.length) extra.push(c.status.join(" "));
    if (c.type === "assist") extra.push(`shield ${c.shield} · ${c.hands} hand${c.hands > 1 ? "s" : ""}`);
    if (c.side) extra.push(`turned ${c.side}`);
    return el("li", { class: "card", dataset: { card: c.card } },
      el("div", { class: "card-head" }, el("span", { class: "card-name", text: c.name }),
        el("span", { class: "card-num", text: nums.join(" ") || "0" })),
      el("div", { class: "card-text", text: [c.text, ...extra].filter(Boolean).join(" · ") }),
      contrib && contrib.why ? el("div", { class: "card-why", text: contrib.why }) : "");
  }

  function seatBox(d, s) {
    const sw = el("span", { class: "swatch" }); sw.style.background = s.color;
    const hearts = el("span", { class: "hearts", "aria-label": `${s.hearts} of ${s.hearts_total} Hearts` },
      ...Array.from({ length: s.hearts_total }, (_, i) => el("span", { class: i < s.hearts ? "heart up" : "heart down",
        text: i < s.hearts ? "♥" : "♡" })));
    hearts.style.color = s.color;
    const acting = d.phase !== "over" && d.to_act === s.seat;
    const byCard = Object.fromEntries((s.contributions || []).map((c) => [c.card, c]));
    const box = el("section", { class: `panel seat${acting ? " acting" : ""}`, dataset: { seat: String(s.seat) } },
      el("h2", {}, sw, el("span", { text: s.name }), hearts, acting ? el("span", { class: "pill turn", text: "to act" }) : ""),
      el("div", { class: "piles" },
        ...[["source", s.source], ["pool", s.pool], ["trash", s.trash], ["limbo", s.limbo]].map(([k, v]) =>
          el("span", { class: "pile", dataset: { pile: k } }, el("b", { text: String(v) }), ` ${k}`))),
      el("div", { class: "totals" }, el("span", { class: "attack", text: `attack ${s.attack}` }),
        el("span", { class: "defense", text: `defense ${s.defense}` })));
    box.append(el("h3", { text: "Line" }),
      s.line.length ? el("ol", { class: "line" }, ...s.line.map((c) => cardRow(c, byCard[c.card])))
        : el("p", { class: "hint none", text: "No card in line." }));
    box.append(el("h3", { text: "Hands" }),
      s.hands.length ? el("ul", { class: "line" }, ...s.hands.map((c) => cardRow(c, byCard[c.card])))
        : el("p", { class: "hint none", text: "Both hand slots are free." }));
    if (s.aim) box.append(el("p", { class: "hint", text: `aims at ${s.aim.split("#")[0]}` }));
    if (s.limbo_cards.length) box.append(el("p", { class: "hint", text: `limbo: ${s.limbo_cards.map((c) => c.name).join(", ")}` }));
    if (d.phase !== "over") {
      box.append(el("button", { type: "button", class: "danger", text: "Concede",
        onclick: () => confirm(`${s.name} concedes?`) && act(A("concede"), { seat: s.seat }, `${s.name} conceded.`) }));
    }
    return box;
  }

  const said = KB.gameCaptions("duel", "duel");
  function render(s) {
    state = s;
    const d = s.duel;
    $("duel-caption").textContent = said(s);  // its own news (and what was said while out of sight)
    const problems = s.game === "duel" ? (s.problems || []).slice(-5) : [];  // another game's are on its page
    $("duel-problems").replaceChildren(...problems.map((p) => el("li", { text: KB.sentence(p) })));
    $("duel-problems-panel").hidden = !problems.length;
    if (s.game !== "duel" || !d) {
      $("duel-phase").textContent = "No duel: start one under Controls.";
      $("duel-seats").replaceChildren();
      $("duel-play-panel").hidden = true;
      $("duel-new-game").open = true;
      gameShown = false;
      return;
    }
    if (!gameShown) $("duel-new-game").open = false;
    gameShown = true;
    $("duel-phase").textContent = d.phase === "over" ? `${nameOf(d, d.winner)} wins`
      : `turn ${d.turn} · ${nameOf(d, d.to_act)}`;
    $("duel-terrain").textContent = d.terrain
      ? `${d.terrain.name} (${nameOf(d, d.terrain.seat)})${d.terrain.text ? ` — ${d.terrain.text}` : ""}` +
        (d.terrain_safe_until >= d.turn ? ` · cannot be destroyed until turn ${d.terrain_safe_until} ends` : "")
      : "No terrain in play.";
    $("duel-terrain").classList.toggle("none", !d.terrain);  // an empty panel's note, as on the Kipukas page
    const r = d.last_result;
    $("duel-last").textContent = r ? `turn ${r.turn}: ${r.attack} attack against ${nameOf(d, r.seat)}'s ${r.defense}` +
      `${r.shield ? ` + shield ${r.shield}` : ""} defense → ${r.flipped ? "a Heart flips" : "held"}` +
      (r.attack_from.length ? ` (attack from ${r.attack_from.map((x) => `${x.name} ${x.attack}`).join(", ")})` : "") : "";
    $("duel-seats").replaceChildren(...d.seats.map((x) => seatBox(d, x)));
    $("duel-play-panel").hidden = d.phase === "over";
    if (d.phase !== "over") {
      const me = d.seats.find((x) => x.seat === d.to_act);
      const foe = d.seats.find((x) => x.seat !== d.to_act);
      $("duel-play-who").textContent = `for ${me.name}`;
      fillSelect($("duel-play-card"), me.playable.map((id) => [id, `${d.cards[id].name} (${d.cards[id].type})`]));
      const inPlay = d.seats.flatMap((x) => [...x.hands, ...x.line]).concat(d.terrain ? [d.terrain] : []);
      fillSelect($("duel-play-target"), [["", "–"], ...inPlay.map((c) => [c.card, `${c.name} (${c.card})`])]);
      fillSelect($("duel-aim-target"), [["", "no assist"], ...foe.hands.filter((c) => c.type === "assist")
        .map((c) => [c.card, `${c.name} (shield ${c.shield})`])]);
      fillSelect($("duel-adjust-card"), inPlay.map((c) => [c.card, `${c.name} (${c.card})`]));
    }
  }

  $("duel-play").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = { card: $("duel-play-card").value };
    if ($("duel-play-side").value) body.side = $("duel-play-side").value;
    if ($("duel-play-target").value) body.target = $("duel-play-target").value;
    if ($("duel-play-needs").checked) body.needs_met = true;
    act(A("play"), body, "Played.");
  });
  $("duel-aim").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act(A("aim"), { target: $("duel-aim-target").value || null }, "Aimed.");
  });
  $("duel-adjust").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act(A("adjust"), { card: $("duel-adjust-card").value, attack: Number($("duel-adj-attack").value) || 0,
      defense: Number($("duel-adj-defense").value) || 0, reason: $("duel-adj-reason").value }, "Adjustment saved.");
  });
  $("duel-pass").addEventListener("click", () => act(A("pass"), {}, "Turn passed."));
  $("duel-undo").addEventListener("click", () => act(A("undo"), {}, "Undone."));

  const COLORS = ["#e4572e", "#1e90ff"];
  async function newGameForm() {
    let decks = {};
    try { decks = (await api("/api/duel/decks", undefined, { method: "GET" })).decks; } catch (e) { decks = {}; }
    const names = Object.keys(decks);
    const count = (d) => Object.values(decks[d] || {}).reduce((a, b) => a + b, 0);
    $("duel-new-players").replaceChildren(...[1, 2].map((seat, i) => el("fieldset", { class: "row", dataset: { seat: String(seat) } },
      el("legend", { text: i === 0 ? "challenged (plays first)" : "challenger" }),
      // the seat: which seat's camera reads this player's cards
      el("label", { title: "the seat whose camera reads this player's cards" }, "Seat",
        el("input", { name: "seat", type: "number", min: "1", max: "8", value: String(seat), inputmode: "numeric",
          "aria-label": `player ${i + 1} seat (its camera)` })),
      el("input", { name: "name", value: `Player ${seat}`, maxlength: "40", "aria-label": `player ${i + 1} name` }),
      el("input", { name: "color", type: "color", value: COLORS[i], "aria-label": `player ${i + 1} colour` }),
      el("select", { name: "deck", "aria-label": `player ${i + 1} deck` },
        ...(names.length ? names.map((d) => option(d, `${d} (${count(d)} different cards)`)) : [option("", "no deck imported")])))));
    [...$("duel-new-players").querySelectorAll("select")].forEach((s, i) => { if (names[i]) s.value = names[i]; });
  }
  $("duel-new-game-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!(await KB.okToStart(state, "Card duel"))) return;
    const players = [...$("duel-new-players").querySelectorAll("fieldset")].map((f) => ({
      seat: Number(f.querySelector("[name=seat]").value), name: f.querySelector("[name=name]").value,
      color: f.querySelector("[name=color]").value, deck: f.querySelector("[name=deck]").value }));
    const form = ev.target;
    // Started, the duel is told at the top (the caption, any problem, the seats): go there.
    if (await act("/api/actions/new-game", { game: "duel", players, challenged: players[0].seat,
      hearts: Number(form.hearts.value), deck_size: Number(form.deck_size.value) }, "New card duel started.")) window.scrollTo({ top: 0 });
  });

  // A deck imported on this page (Import cards) joins the deck lists at once; what was typed stays.
  document.addEventListener("kb:cards", (ev) => {
    if (ev.detail.game === "duel") KB.rebuildKeeping($("duel-new-players"), newGameForm);
  });
  KB.setupPin();
  newGameForm();
  render(state);
  KB.stream({ state: render });
})();
