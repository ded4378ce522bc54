// The souls panel and the bout assistant. Listens for the board page's "kb:state" event; every
// number the board computed is shown beside its source; all text goes in with textContent.
"use strict";
(function () {
  const { el, api, act, message } = KB;
  let state = null;
  const $ = (id) => document.getElementById(id);
  const seatName = (s, seat) => ((s.players || []).find((p) => p.seat === seat) || {}).name || `seat ${seat}`;
  const standTerritory = (s, sid) => ((s.stands || []).find((x) => x.id === sid) || {}).territory;

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
      el("strong", { text: soul.title }), ` ${seatName(s, soul.seat)} · ${soul.stand || "off the map"} · ${keal}`,
      status ? el("span", { class: `pill ${status}`, text: status }) : "");
    if (soul.attack_spent) {  // both rule books: a failed blow ends that soul's attacks for the cycle
      li.append(" ", el("span", { class: "pill spent", text: "no attack this cycle",
        title: "After an unsuccessful blow, the player loses their ability to attack with that card for this diel cycle" }));
    }
    if (!soul.wasted && soul.keal.tolerance === 0) {  // the web rules' Myrthvither Raven
      li.append(" ", el("span", { class: "hint", text: "0 KEAL means: fights, and is wasted by the first bout it loses" }));
    }
    if (!soul.wasted) {
      li.append(" ",
        el("button", { type: "button", text: "−1", title: "loses one KEAL means",
          onclick: () => act("/api/actions/soul-damage", { soul: soul.id, count: 1 }, `${soul.title} hurt`) }),
        el("button", { type: "button", text: "+1", title: "heals one KEAL means",
          onclick: () => act("/api/actions/soul-damage", { soul: soul.id, healed: 1 }, `${soul.title} healed`) }),
        el("button", { type: "button", text: "unbind",
          onclick: () => act("/api/actions/soul-unbind", { soul: soul.id }, `${soul.title} unbound`) }));
    }
    return li;
  }

  function render(s) {
    state = s;
    const souls = s.souls || [];
    $("souls").replaceChildren(...(souls.length ? souls.map((x) => soulRow(s, x))
      : [el("li", { class: "none", text: "no soul card bound yet" })]));
    const live = souls.filter((x) => !x.wasted);
    keep($("bind-soul"), live.map((x) => opt(x.id, `${x.title} (${seatName(s, x.seat)})`)));
    keep($("bind-stand"), (s.stands || []).filter((x) => x.kind === "movement" && x.occupied)
      .map((x) => opt(x.id, x.id)));
    keep($("bout-territory"), (s.territories || []).filter((t) => live.some((x) => x.stand && standTerritory(s, x.stand) === t.number))
      .map((t) => opt(String(t.number), `${t.number}${t.contention ? " (contention)" : ""}`)));
    const fight = $("bout-territory").options.length > 0;  // without a soul in a territory, nothing to pick
    $("bout-form").hidden = !fight;
    $("bout-none").hidden = fight;
    $("soul-bind").hidden = !live.length || !$("bind-stand").options.length;
    const n = Number($("bout-territory").value);
    const here = live.filter((x) => x.stand && standTerritory(s, x.stand) === n)
      .map((x) => opt(x.id, `${x.title} (${seatName(s, x.seat)})${x.downed ? " downed" : ""}`));
    keep($("bout-attacker"), here.map((o) => o.cloneNode(true)));
    keep($("bout-defender"), here);
    renderResult(s.last_bout);
    if ($("bout-attacker").value && $("bout-defender").value) showPlan();  // a soul hurt or moved: redo the sums
  }

  function sideBlock(title, side) {
    const box = el("div", { class: "bout-side" }, el("strong", { text: `${title}: ${side.title}` }),
      ` rolls ${side.dice.map((d) => "D" + d).join(" + ")}`);
    if (side.assumed) box.append(el("div", { class: "hint", text: side.assumed }));
    const ul = el("ul");
    for (const m of side.modifiers) ul.append(el("li", { text: `${m.value > 0 ? "+" : ""}${m.value} ${m.source}` }));
    if (!side.modifiers.length) ul.append(el("li", { class: "none", text: "no modifier" }));
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
    const b = bout();
    const box = $("bout-plan");
    if (!b.attacker || !b.defender || b.attacker === b.defender) {
      box.replaceChildren("Pick two souls in a territory to see both sides."); return;
    }
    const q = new URLSearchParams({ territory: b.territory, attacker: b.attacker, defender: b.defender });
    if (b.archetype !== undefined) q.set("archetype", b.archetype);
    try {
      const p = await api(`/api/bout/plan?${q}`, undefined, { method: "GET" });
      if (asked !== planAsked) return;
      box.replaceChildren(el("div", { text: `${p.final_blow ? "Final Blow" : "KEAL means bout"} in ${p.geography} land` +
        (p.best_of > 1 ? `, best ${Math.ceil(p.best_of / 2)} of ${p.best_of}` : "") }),
        ...p.notes.map((t) => el("div", { class: "hint", text: t })),
        sideBlock("Attack", p.attacker), sideBlock("Defense", p.defender));
    } catch (e) { if (asked === planAsked) box.replaceChildren(el("span", { class: "error", text: e.message })); }
  }

  function renderResult(r) {
    const box = $("bout-result");
    if (!r) { box.replaceChildren(); return; }
    box.replaceChildren(el("div", { text: `Last bout: ${r.attacker.title} against ${r.defender.title} — ` +
      `${r.winner === "attacker" ? r.attacker.title : r.defender.title} wins` }),
      ...r.rounds.map((x, i) => el("div", { text: `round ${i + 1}: ${x.attacker} against ${x.defender}` +
        (x.brawl ? " (tie: the brawl sequence decides)" : "") })));
  }

  const faces = (text) => text.split(";").map((r) => r.trim().split(/[\s,]+/).filter(Boolean).map(Number));
  ["bout-territory", "bout-attacker", "bout-defender", "bout-archetype"].forEach((id) =>
    $(id).addEventListener("change", () => { if (id === "bout-territory" && state) render(state); showPlan(); }));
  $("bout-roll").addEventListener("click", () => act("/api/actions/bout-roll", bout(), "bout rolled"));
  $("bout-physical").addEventListener("click", () => act("/api/actions/bout-roll",
    { ...bout(), rolls: { attacker: faces($("bout-att-rolls").value), defender: faces($("bout-def-rolls").value) } },
    "bout settled"));
  $("bind-button").addEventListener("click", () => {
    if (!$("bind-soul").value || !$("bind-stand").value) { message("pick a soul and a stand", "error"); return; }
    act("/api/actions/soul-bind", { soul: $("bind-soul").value, stand: $("bind-stand").value }, "bound");
  });
  document.addEventListener("kb:state", (ev) => render(ev.detail));
  render(JSON.parse($("initial-state").textContent));
})();
