// The souls panel and the bout assistant. Listens for the board page's "kb:state" event; every
// number the board computed is shown beside its source; all text goes in with textContent.
"use strict";
(function () {
  const { el, api, act, message } = KB;
  let state = null;
  const $ = (id) => document.getElementById(id);
  const seatName = (s, seat) => ((s.players || []).find((p) => p.seat === seat) || {}).name || `seat ${seat}`;
  const where = (sid) => (KB.place ? KB.place(sid) : sid);  // a stand in words (board.js)
  const standTerritory = (s, sid) => ((s.stands || []).find((x) => x.id === sid) || {}).territory;
  // "Grey Peaks (4)", or "territory 4" on a map that leaves it unnamed (board.js, as board/places.py words it)
  const territoryName = (s, n) => KB.territory(s, n);
  // A downed soul cannot attack, nor one whose blow or retreat failed this diel cycle: the board says so
  // in each soul's ``downed`` and ``attack_spent`` (and refuses a plan for it), so the page offers such a
  // soul as a defender only and never asks the board for a bout it would refuse.
  const cannotAttack = (x) => (x.downed ? "downed" : x.attack_spent ? "no attack this cycle" : "");

  function keep(select, options) {
    const v = select.value;
    select.replaceChildren(...options);
    if ([...select.options].some((o) => o.value === v)) select.value = v;
  }
  const opt = (value, text) => el("option", { value, text });

  function soulRow(s, soul) {
    const keal = `${soul.keal.lost}/${soul.keal.tolerance} KEAL lost`;
    const status = soul.wasted ? "wasted" : soul.downed ? "downed" : "";
    const li = el("li", { dataset: { soul: soul.id } },
      el("strong", { text: soul.title }), ` ${seatName(s, soul.seat)} · ${soul.stand ? where(soul.stand) : "off the map"} · ${keal}`,
      status ? el("span", { class: `pill ${status}`, text: status }) : "");
    if (soul.attack_spent) {  // a failed blow (both rule books) or a failed retreat (the Kipukas web rules)
      // Why, in the board's words with the rule that applies, one tap away: a phone cannot hover a
      // tooltip. Opened, it stays open across redraws until it is closed or the soul may attack again.
      const why = el("details", { class: "spent",
        ontoggle: (ev) => (ev.target.open ? openWhy.add(soul.id) : openWhy.delete(soul.id)) },
      el("summary", { class: "pill spent", text: "no attack this cycle" }),
      el("p", { class: "spent-why", text: KB.sentence(soul.attack_spent_why || "The board gave no reason.") }));
      why.open = openWhy.has(soul.id);
      li.append(" ", why);
    }
    if (!soul.wasted && soul.keal.tolerance === 0) {  // the web rules' Myrthvither Raven
      li.append(" ", el("span", { class: "hint", text: "0 KEAL means: fights, and is wasted by the first bout it loses" }));
    }
    if (!soul.wasted) {
      li.append(" ",
        el("button", { type: "button", text: "−1", title: "loses one KEAL means",
          onclick: () => act("/api/actions/soul-damage", { soul: soul.id, count: 1 }, `${soul.title} hurt.`) }),
        el("button", { type: "button", text: "+1", title: "heals one KEAL means",
          onclick: () => act("/api/actions/soul-damage", { soul: soul.id, healed: 1 }, `${soul.title} healed.`) }),
        el("button", { type: "button", text: "unbind",
          onclick: () => act("/api/actions/soul-unbind", { soul: soul.id }, `${soul.title} unbound.`) }));
    }
    return li;
  }

  const openWhy = new Set();  // the souls whose "no attack this cycle" a player opened to read why
  function render(s) {
    state = s;
    const souls = s.souls || [];
    for (const id of openWhy) if (!souls.some((x) => x.id === id && x.attack_spent)) openWhy.delete(id);
    $("souls").replaceChildren(...(souls.length ? souls.map((x) => soulRow(s, x))
      : [el("li", { class: "none", text: "No soul card bound yet." })]));
    const live = souls.filter((x) => !x.wasted);
    keep($("bind-soul"), live.map((x) => opt(x.id, `${x.title} (${seatName(s, x.seat)})`)));
    keep($("bind-stand"), (s.stands || []).filter((x) => x.kind === "movement" && x.occupied)
      .map((x) => opt(x.id, where(x.id))));
    keep($("bout-territory"), (s.territories || []).filter((t) => live.some((x) => x.stand && standTerritory(s, x.stand) === t.number))
      .map((t) => opt(String(t.number), `${territoryName(s, t.number)}${t.contention ? ", contention" : ""}`)));
    // Bouts are fought in play: without a soul in a territory, or with the game not in play, nothing to pick.
    const fight = s.phase === "play" && $("bout-territory").options.length > 0;
    $("bout-form").hidden = !fight;
    $("bout-none").hidden = fight;
    $("bout-none").textContent = s.phase === "over" ? "The game is over: no more bouts."
      : "The bout assistant opens once souls the board knows stand in a territory (a soul card shown at a seat binds to the token played next).";
    $("soul-bind").hidden = !live.length || !$("bind-stand").options.length;
    const n = Number($("bout-territory").value);
    const fighting = live.filter((x) => x.stand && standTerritory(s, x.stand) === n);
    const here = fighting.map((x) => {
      const o = opt(x.id, `${x.title} (${seatName(s, x.seat)})${cannotAttack(x) ? `: ${cannotAttack(x)}, cannot attack` : ""}`);
      o.disabled = !!cannotAttack(x);
      return o;
    });
    keep($("bout-attacker"), here);
    propose(s, n, fighting);
    // the defender is a soul of another player than the attacker's
    const attSeat = (fighting.find((x) => x.id === $("bout-attacker").value) || {}).seat;
    keep($("bout-defender"), fighting.filter((x) => x.seat !== attSeat)
      .map((x) => opt(x.id, `${x.title} (${seatName(s, x.seat)})${x.downed ? " downed" : ""}`)));
    propose(s, n, fighting);
    renderResult(s.last_bout);
    if (!fight) return;  // no plan to ask for (the board refuses one out of play)
    showPlan();  // a soul hurt or moved: redo the sums (or say why there are none)
  }

  // The souls of the fight on each side: the attacker is the soul of the player taking the
  // territory (or the first there), the defender a soul of another player, never the same soul.
  function propose(s, n, fighting) {
    const att = $("bout-attacker"), dfn = $("bout-defender");
    const seatOf = (id) => (fighting.find((x) => x.id === id) || {}).seat;
    const t = (s.territories || []).find((x) => x.number === n) || {};
    const able = fighting.filter((x) => !cannotAttack(x));
    const unable = !able.some((x) => x.id === att.value);
    if (!att.value || unable || (t.taker != null && seatOf(att.value) !== t.taker && !att.dataset.picked)) {
      const first = able.find((x) => x.seat === t.taker) || able[0];
      att.value = first ? first.id : "";
      if (unable) delete att.dataset.picked;
    }
    if (!dfn.value || seatOf(dfn.value) === seatOf(att.value)) {
      const foe = fighting.find((x) => x.seat !== seatOf(att.value));
      if (foe) dfn.value = foe.id;
    }
  }

  // Open the assistant on a fight (the contention banner's button): its territory and its souls.
  function openOn(n) {
    $("bout-territory").value = String(n);
    $("bout-attacker").value = ""; $("bout-defender").value = "";
    delete $("bout-attacker").dataset.picked;
    pickedSince = true;
    if (state) render(state);
    showPlan();
    $("bout-panel").scrollIntoView({ block: "start" });
    $("bout-territory").focus({ preventScroll: true });
  }
  document.addEventListener("kb:bout", (ev) => openOn(ev.detail));

  function sideBlock(title, side) {
    const box = el("div", { class: "bout-side" }, el("strong", { text: `${title}: ${side.title}` }),
      side.dice.length ? ` rolls ${side.dice.map((d) => "D" + d).join(" + ")}` : " rolls no die (a fixed base)");
    if (side.assumed) box.append(el("div", { class: "hint", text: side.assumed }));
    const ul = el("ul");
    for (const m of side.modifiers) ul.append(el("li", { text: `${m.value > 0 ? "+" : ""}${m.value} ${m.source}` }));
    if (!side.modifiers.length) ul.append(el("li", { class: "none", text: "No modifier." }));
    box.append(ul);
    return box;
  }

  function bout() {  // an empty archetype field: the board's typing table (a Final Blow) or 0
    const b = { territory: Number($("bout-territory").value), attacker: $("bout-attacker").value,
                defender: $("bout-defender").value };
    if ($("bout-archetype").value.trim() !== "") b.archetype = Number($("bout-archetype").value) || 0;
    return b;
  }

  let planAsked = 0;  // answers to older questions arriving late are dropped
  async function showPlan() {
    const asked = ++planAsked;
    if ($("bout-form").hidden) return;  // not in play, or no souls meet: the board would refuse a plan
    const b = bout();
    const box = $("bout-plan");
    const two = b.attacker && b.defender && b.attacker !== b.defender;  // a bout to roll; else the buttons say why
    for (const id of ["bout-roll", "bout-physical"]) {
      $(id).disabled = !two;
      $(id).title = two ? "" : "pick an attacker and a defender first (see above)";
    }
    const fighting = (state && state.souls || []).filter((x) => !x.wasted && x.stand && standTerritory(state, x.stand) === b.territory);
    if (!b.attacker && fighting.length && fighting.every((x) => cannotAttack(x))) {
      box.replaceChildren(el("span", { class: "error", text: `No soul here can attack now: ${fighting.map((x) =>
        `${x.title} is ${x.downed ? "downed" : "out of attacks this diel cycle"}`).join(", ")}.` }));
      return;
    }
    if (!b.attacker || !b.defender || b.attacker === b.defender) {
      box.replaceChildren("Pick two souls of different players in a territory to see both sides."); return;
    }
    const q = new URLSearchParams({ territory: b.territory, attacker: b.attacker, defender: b.defender });
    if (b.archetype !== undefined) q.set("archetype", b.archetype);
    try {
      const p = await api(`/api/bout/plan?${q}`, undefined, { method: "GET" });
      if (asked !== planAsked) return;
      plan = p;
      sayDice(p);
      box.replaceChildren(el("div", { text: `${p.final_blow ? "Final Blow" : "KEAL means bout"} in ${p.geography} land` +
        (p.best_of > 1 ? `, best ${Math.ceil(p.best_of / 2)} of ${p.best_of}` : "") }),
        ...p.notes.map((t) => el("div", { class: "hint", text: t })),
        sideBlock("Attack", p.attacker), sideBlock("Defense", p.defender));
    } catch (e) {  // the board's refusal, as a sentence
      if (asked === planAsked) box.replaceChildren(el("span", { class: "error", text: KB.upFirst(e.message) + (/[.!?]$/.test(e.message) ? "" : ".") }));
    }
  }

  // The dice each side rolls, as players say them: one group per round, its dice apart by spaces.
  let plan = null;
  function example(dice, rounds) {
    const faces = [6, 5, 2, 3, 4, 1];
    return Array.from({ length: rounds }, (_, r) => dice.map((_, i) => faces[(r * 2 + i) % faces.length]).join(" ")).join(", ");
  }
  function sayDice(p) {
    for (const [role, id] of [["attacker", "bout-att-rolls"], ["defender", "bout-def-rolls"]]) {
      const dice = p[role].dice;
      const input = $(id);
      if (!dice.length) {  // a card with only a base ("Base 3"): nothing to roll or type
        input.placeholder = "";
        input.title = "no die: the card's base is fixed";
        $(`${id}-how`).textContent = "no die: the card's base is fixed, leave this empty";
        continue;
      }
      input.placeholder = example(dice, p.best_of);
      input.title = `${p.best_of > 1 ? `${p.best_of} rounds` : "one round"} of ${dice.map((d) => "D" + d).join(" + ")}`;
      $(`${id}-how`).textContent = `${p.best_of > 1 ? `${p.best_of} rounds of ` : ""}${dice.map((d) => "D" + d).join("+")}, ` +
        `e.g. “${example(dice, p.best_of)}”`;
    }
  }
  // "6 6, 5 3, 2 2", "6 6; 5 3; 2 2" or "6 6 5 3 2 2": every face in order, split into rounds of
  // as many dice as the side rolls (the board checks the count and each face).
  function faces(text, dice) {
    const all = (text.match(/\d+/g) || []).map(Number);
    if (!dice.length) return null;  // a card with only a base rolls nothing: the caller sends empty rounds
    const per = dice.length;
    const rounds = [];
    for (let i = 0; i < all.length; i += per) rounds.push(all.slice(i, i + per));
    return rounds;
  }

  // A bout's result shows until the players pick the next bout (a soul, a territory), and a bout
  // fought anywhere shows its own result.
  let seenBout, pickedSince = false;
  function renderResult(r) {
    const box = $("bout-result");
    const key = r ? `${r.territory}:${r.attacker.soul}:${r.defender.soul}:${JSON.stringify(r.rolls)}` : null;
    if (key !== seenBout) { seenBout = key; pickedSince = false; }
    if (!r || pickedSince) { box.replaceChildren(); return; }
    box.replaceChildren(el("div", { text: `Last bout: ${r.attacker.title} against ${r.defender.title} — ` +
      `${r.winner === "attacker" ? r.attacker.title : r.defender.title} wins` }),
      ...r.rounds.map((x, i) => el("div", { text: `round ${i + 1}: ${x.attacker} against ${x.defender}` +
        (x.brawl ? " (tie: the brawl sequence decides)" : "") })));
  }

  ["bout-territory", "bout-attacker", "bout-defender", "bout-archetype"].forEach((id) =>
    $(id).addEventListener("change", () => {
      if (id === "bout-attacker") $(id).dataset.picked = "1";
      pickedSince = true; $("bout-result").replaceChildren();  // a new bout: the old result goes
      if ((id === "bout-territory" || id === "bout-attacker") && state) render(state);  // whom it may fight
      showPlan();
    }));
  function fought(r) { if (r) { $("bout-att-rolls").value = ""; $("bout-def-rolls").value = ""; } }
  $("bout-roll").addEventListener("click", async () => fought(await act("/api/actions/bout-roll", bout(), "The board rolled the bout.")));
  // Dice that cannot fit the bout (a round too many, a die missing) are told in the players' words
  // before anything is sent: who rolls what, how many numbers to say, how many were said. How many
  // rounds may be said is the board's plan's ("rounds": the fewest and the most).
  function misfit(text, role) {
    const side = plan && plan[role];
    if (!side || !side.dice.length) return null;
    const said = (text.match(/\d+/g) || []).length;
    const per = side.dice.length;
    const rounds = [...new Set(plan.rounds || [plan.best_of])];
    if (said % per === 0 && said / per >= rounds[0] && said / per <= rounds[rounds.length - 1]) return null;
    const counts = rounds.map((r) => r * per).filter((n, i, all) => all.indexOf(n) === i).join(" or ");
    const how = rounds.length > 1 || rounds[0] > 1 ? `in each of ${rounds.join(" or ")} rounds` : "once";
    return `${side.title} rolls ${side.dice.map((d) => "D" + d).join(" + ")} ${how}: say ${counts} number${counts === "1" ? "" : "s"} ` +
      `(e.g. “${example(side.dice, plan.best_of)}”), not ${said}.`;
  }
  $("bout-physical").addEventListener("click", async () => {
    const wrong = misfit($("bout-att-rolls").value, "attacker") || misfit($("bout-def-rolls").value, "defender");
    if (wrong) { message(wrong, "error"); return; }
    const dice = (role) => (plan && plan[role] ? plan[role].dice : [6]);
    const att = faces($("bout-att-rolls").value, dice("attacker"));
    const dfn = faces($("bout-def-rolls").value, dice("defender"));
    // A side whose card rolls no die says as many (empty) rounds as the other side said.
    const count = Math.max((att || []).length, (dfn || []).length) || (plan ? plan.best_of : 1);
    const empty = () => Array.from({ length: count }, () => []);
    fought(await act("/api/actions/bout-roll", { ...bout(), rolls: { attacker: att || empty(), defender: dfn || empty() } },
      "Bout settled with the dice said."));
  });
  $("bind-button").addEventListener("click", () => {
    if (!$("bind-soul").value || !$("bind-stand").value) { message("Pick a soul and a stand first.", "error"); return; }
    act("/api/actions/soul-bind", { soul: $("bind-soul").value, stand: $("bind-stand").value }, "Soul bound to its token.");
  });
  document.addEventListener("kb:state", (ev) => render(ev.detail));
  render(JSON.parse($("initial-state").textContent));
})();
