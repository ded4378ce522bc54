// Creature Combat Territory's page: lands in the five slots, the combat at the land being fought,
// each player's piles, the Round End choices, captions and controls. Board text only via textContent.
"use strict";
(function () {
  const { el, act, api } = KB;
  const A = (name) => `/api/actions/creature-combat/${name}`;
  let state = JSON.parse(document.getElementById("initial-state").textContent);
  let gameShown = false;
  const $ = (id) => document.getElementById(id);
  const BIOME = { forest: "#148c28", mountain: "#786e8c", plain: "#c8b43c", lake: "#2878dc", ocean: "#0a28c8",
    swamp: "#466428", desert: "#e69632", tundra: "#c8e6ff", jungle: "#00c85a", volcano: "#e6280a" };

  function option(value, text) { return el("option", { value, text }); }
  function fillSelect(sel, items) {
    const keep = sel.value;
    sel.replaceChildren(...items.map(([v, t]) => option(v, t)));
    if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  }
  const seatName = (cc, seat) => ((cc.seats || []).find((s) => s.seat === Number(seat)) || {}).name || `seat ${seat}`;
  const cname = (cc, id) => { const c = cc.creatures[id]; return c ? `${c.name} (${c.species})` : id; };

  // Combat has no turns: every player reveals what they deployed at the land. The page reveals for one
  // player at a time, offering only that player's ready creatures: the first who has revealed nothing
  // here yet, until someone picks a player by hand (kept for the rest of this land's combat).
  let revealPicked = null;
  let revealSlot = null;
  function revealChoices(cc) {
    if (revealSlot !== cc.combat.slot) { revealSlot = cc.combat.slot; revealPicked = null; }
    const seats = cc.seats.filter((x) => !x.conceded);
    const waiting = seats.find((x) => !(cc.combat.revealed[String(x.seat)] || []).length);
    const picked = seats.find((x) => x.seat === revealPicked);
    const seat = (picked || waiting || seats[0] || {}).seat;
    const seatSel = $("cc-reveal-seat");
    seatSel.replaceChildren(...seats.map((x) => option(String(x.seat), x.name)));
    if (seat != null) seatSel.value = String(seat);
    const ready = Object.entries(cc.creatures).filter(([, c]) => c.pile === "ready" && c.seat === seat);
    const creatureSel = $("cc-reveal-creature");
    fillSelect(creatureSel, ready.length ? ready.map(([id, c]) => [id, `${c.name} (${c.species})`])
      : [["", `${seatName(cc, seat)} has no ready creature`]]);
    creatureSel.disabled = !ready.length;
    $("cc-reveal").querySelector('button[type="submit"]').disabled = !ready.length;
  }

  // An empty panel says why it is empty: no land of this game tallied yet.
  const noResults = () => el("li", { class: "none", text: "No land tallied yet: each land's result is listed here." });

  const said = KB.gameCaptions("cc", "creature-combat");
  function render(s) {
    state = s;
    const cc = s.creature_combat;
    $("cc-caption").textContent = said(s);  // its own news (and what was said while out of sight)
    const problems = s.game === "creature-combat" ? (s.problems || []).slice(-5) : [];  // another game's are on its page
    $("cc-problems").replaceChildren(...problems.map((p) => el("li", { text: KB.sentence(p) })));
    $("cc-problems-panel").hidden = !problems.length;
    if (s.game !== "creature-combat" || !cc) {
      $("cc-phase").textContent = "No game: start one under Controls.";
      $("cc-slots").replaceChildren();
      $("cc-combat-panel").hidden = true;
      $("cc-deal").hidden = true;
      $("cc-players").replaceChildren();
      $("cc-results").replaceChildren(noResults());
      $("cc-new-game").open = true;
      gameShown = false;
      return;
    }
    if (!gameShown) $("cc-new-game").open = false;  // a game started: the form folds away
    gameShown = true;
    $("cc-phase").textContent = cc.phase === "over"
      ? (cc.winner != null ? `${seatName(cc, cc.winner)} wins` : "over: a tie")
      : `round ${cc.round} · ${cc.phase.replace("_", " ")}`;
    const fighting = cc.combat ? cc.combat.slot : null;
    $("cc-slots").replaceChildren(...cc.slots.map((sl) => {
      const li = el("li", { dataset: { slot: String(sl.number) } }, el("span", { class: "num", text: `${sl.number} ` }));
      if (sl.land) {
        li.append(el("span", { text: `${sl.land.name} · ${sl.land.biome}` }));
        li.style.borderColor = BIOME[sl.land.biome] || "#555";
      } else li.append(el("span", { class: "none", text: "Empty." }));
      li.classList.toggle("fighting", sl.number === fighting);
      return li;
    }));
    $("cc-deck").textContent = `${cc.deck} land(s) left in the land deck · ${cc.lands_total} in the game`;
    $("cc-deal").hidden = cc.phase !== "round_begin";
    fillSelect($("cc-deal-land"), (cc.deck_lands || []).map((l) => [l.id, `${l.name} (${l.biome})`]));

    // Combat at the land being fought.
    $("cc-combat-panel").hidden = !cc.combat;
    if (cc.combat) {
      $("cc-combat-land").textContent = `at land ${cc.combat.slot}: ${cc.combat.land.name} (${cc.combat.land.biome})`;
      const rows = [];
      for (const seat of cc.seats.filter((x) => !x.conceded)) {
        const fighters = cc.combat.revealed[String(seat.seat)] || [];
        rows.push(el("div", { class: "fighter-row total" }, el("span", { text: seat.name }),
          el("span", { text: `total ${cc.combat.totals[String(seat.seat)] || 0}` })));
        for (const f of fighters) {
          const a = f.adjustment;
          const why = a ? ` · ${a.reason}${a.count > 1 ? ` (${a.count} abilities added up)` : ""}${a.sacrifice ? " · sacrificed" : ""}` : "";
          rows.push(el("div", { class: "fighter-row", dataset: { creature: f.id } },
            el("span", { text: `${f.name} (${f.species}) ${f.base_power}${f.modifier >= 0 ? "+" : ""}${f.modifier}${why}` }),
            el("span", { text: f.counts ? `power ${f.power}` : "support" }),
            el("button", { type: "button", class: "chip", text: "take back",
              onclick: () => act(A("unreveal"), { creature: f.id }, "Taken back.") })));
        }
      }
      $("cc-fighters").replaceChildren(...rows);
      revealChoices(cc);
      const atLand = Object.entries(cc.creatures).filter(([, c]) => c.pile === "land");
      fillSelect($("cc-adjust-creature"), atLand.map(([id]) => [id, cname(cc, id)]));
    }

    // Players: lands, piles, done buttons, Round End choices.
    $("cc-players").replaceChildren(...cc.seats.map((seat) => {
      const sw = el("span", { class: "swatch" }); sw.style.background = seat.color;
      const box = el("div", { class: "cc-seat", dataset: { seat: String(seat.seat) } },
        el("h3", {}, sw, el("span", { text: seat.name + (seat.conceded ? " (conceded)" : "") }),
          el("span", { class: "count", text: `${seat.lands.length} land(s)` })));
      const p = seat.piles;
      const label = (id) => cname(cc, id) + (cc.creatures[id].sacrificed ? " (sacrificed: removed at round end)" : "");
      const chips = (ids, btn) => ids.map((id) => btn ? el("button", { type: "button", class: "chip", text: `${label(id)} ${btn[0]}`,
        onclick: () => act(A("choose"), { creature: id, choice: btn[1] }, "Done.") }) : el("span", { class: "chip", text: label(id) }));
      const choosing = cc.phase === "round_end" && !seat.done && seat.choices_left > 0;
      box.append(el("div", { class: "cc-pile" }, el("b", { text: "Ready" }), ...chips(p.ready)));
      for (const [n, ids] of Object.entries(p.resting)) {
        box.append(el("div", { class: "cc-pile" }, el("b", { text: `Resting ${n}` }), ...chips(ids, choosing ? ["−1 rest", "rest"] : null)));
      }
      box.append(el("div", { class: "cc-pile" }, el("b", { text: "Returning" }), ...chips(p.returning, choosing ? ["→ ready", "ready"] : null)));
      if ((p.removed || []).length) box.append(el("div", { class: "cc-pile" }, el("b", { text: "Removed (Sacrifice)" }), ...chips(p.removed)));
      box.append(el("div", { class: "cc-pile" }, el("b", { text: "Land pile" }),
        ...seat.lands.map((l) => el("span", { class: "chip", text: `${l.name} (${l.biome})` }))));
      if (cc.phase === "round_end" && !seat.conceded) box.append(el("p", { class: "hint", text: `${seat.choices_left} land-pile choice(s) left` }));
      if ((cc.phase === "deploy" || cc.phase === "round_end") && !seat.conceded) {
        box.append(el("button", seat.done ? { type: "button", text: "done ✓", disabled: "disabled" }
          : { type: "button", class: "primary", text: "Done", onclick: () => act(A("done"), { seat: seat.seat }, "Done.") }));
      }
      if (cc.phase !== "over" && !seat.conceded) {
        box.append(el("button", { type: "button", class: "danger", text: "Concede",
          onclick: () => confirm(`${seat.name} concedes?`) && act(A("concede"), { seat: seat.seat }, `${seat.name} conceded.`) }));
        const majority = seat.lands.length * 2 > cc.lands_total;
        if (majority) box.append(el("button", { type: "button", text: "Agree: winner by majority",
          onclick: () => act(A("end-game"), { winner: seat.seat }, `Game over: ${seat.name} wins.`) }));
      }
      return box;
    }));
    const results = (cc.results || []).slice().reverse().map((r) => el("li", {
      text: `round ${r.round}, ${r.name}: ${Object.entries(r.totals).map(([s, t]) => `${seatName(cc, s)} ${t}`).join(", ")}` +
        ` → ${r.winner == null ? "draw" : seatName(cc, r.winner)}` }));
    $("cc-results").replaceChildren(...(results.length ? results : [noResults()]));
  }

  $("cc-deal").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const body = { land: $("cc-deal-land").value };
    if ($("cc-deal-slot").value) body.slot = Number($("cc-deal-slot").value);
    act(A("deal"), body, "Dealt.");
  });
  $("cc-reveal").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act(A("reveal"), { creature: $("cc-reveal-creature").value, seat: Number($("cc-reveal-seat").value) }, "Revealed.");
  });
  $("cc-reveal-seat").addEventListener("change", () => {
    revealPicked = Number($("cc-reveal-seat").value);
    if (state.creature_combat && state.creature_combat.combat) revealChoices(state.creature_combat);
  });
  $("cc-adjust").addEventListener("submit", (ev) => {
    ev.preventDefault();
    act(A("adjust"), { creature: $("cc-adjust-creature").value, base: Number($("cc-adj-base").value) || 0,
      power: Number($("cc-adj-power").value) || 0, rest: Number($("cc-adj-rest").value) || 0,
      support: $("cc-adj-support").checked, sacrifice: $("cc-adj-sacrifice").checked,
      reason: $("cc-adj-reason").value }, "adjusted");
  });
  $("cc-resolve").addEventListener("click", () => act(A("resolve"), {}, "Tallied."));
  $("cc-undo").addEventListener("click", () => act(A("undo"), {}, "Undone."));
  $("cc-end").addEventListener("click", () => confirm("End the game now? The most lands wins.") && act(A("end-game"), {}, "Game over."));

  // New game: a row per player (seat, name, colour, deck).
  const COLORS = ["#e4572e", "#1e90ff", "#2ecc71", "#f1c40f"];
  async function newGameForm() {
    let decks = {};
    try { decks = (await api("/api/creature-combat/decks", undefined, { method: "GET" })).decks; } catch (e) { decks = {}; }
    const names = Object.keys(decks);
    $("cc-new-players").replaceChildren(...[1, 2, 3, 4].map((seat, i) => el("fieldset", { class: "row", dataset: { seat: String(seat) } },
      el("label", { class: "inline" }, el("input", { type: "checkbox", name: "play", ...(i < 2 ? { checked: "checked" } : {}) }), ` seat ${seat}`),
      el("input", { name: "name", value: `Player ${seat}`, maxlength: "40", "aria-label": `seat ${seat} name` }),
      el("input", { name: "color", type: "color", value: COLORS[i], "aria-label": `seat ${seat} colour` }),
      el("select", { name: "deck", "aria-label": `seat ${seat} deck` },
        ...(names.length ? names.map((d) => option(d, `${d} (${decks[d].creature || 0} creatures, ${decks[d].land || 0} lands)`))
          : [option("", "no deck imported")])))));
    [...$("cc-new-players").querySelectorAll("select")].forEach((s, i) => { if (names[i]) s.value = names[i]; });
  }
  $("cc-new-game-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!(await KB.okToStart(state, "Creature Combat Territory"))) return;
    const players = [...$("cc-new-players").querySelectorAll("fieldset")].filter((f) => f.querySelector("[name=play]").checked)
      .map((f) => ({ seat: Number(f.dataset.seat), name: f.querySelector("[name=name]").value,
        color: f.querySelector("[name=color]").value, deck: f.querySelector("[name=deck]").value }));
    const form = ev.target;
    // Started, the game is told at the top (the caption, any problem, the lands): go there.
    if (await act("/api/actions/new-game", { game: "creature-combat", players,
      options: { deck_cost: Number(form.deck_cost.value), land_deck: Number(form.land_deck.value) } },
    "New game of Creature Combat started.")) window.scrollTo({ top: 0 });
  });

  // A deck imported on this page (Import cards) joins the deck lists at once; what was typed stays.
  document.addEventListener("kb:cards", (ev) => {
    if (ev.detail.game === "creature-combat") KB.rebuildKeeping($("cc-new-players"), newGameForm);
  });
  KB.setupPin();
  newGameForm();
  render(state);
  KB.stream({ state: render });
})();
