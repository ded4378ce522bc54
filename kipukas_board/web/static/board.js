// The table's page: the live board, players, questions, contention, timers, cards, log, health,
// and the PIN-guarded controls. Everything the board says is shown with textContent.
"use strict";
(function () {
  const { el, api, act, message } = KB;
  const sim = document.body.dataset.sim === "true";
  let state = JSON.parse(document.getElementById("initial-state").textContent);

  const player = (s, seat) => (s.players || []).find((p) => p.seat === seat);
  const tname = (s, n) => ((s.map.territories || []).find((m) => m.number === n) || {}).name || "";
  const plural = (n) => `${n} ${n === 1 ? "territory" : "territories"}`;
  const none = (what) => el("li", { class: "none", text: what || "none" });
  const swatch = (c) => { const e = el("span", { class: "swatch" }); e.style.background = c || "#555"; return e; };
  function fill(id, items, empty) {
    document.getElementById(id).replaceChildren(...(items.length ? items : [none(empty)]));
  }

  function render(s) {
    state = s;
    KB.paintBoard(s);
    document.getElementById("phase").textContent = s.phase === "over" ? "game over" : s.phase;
    document.getElementById("diel").textContent = s.diel && s.diel.phase
      ? `${s.diel.phase} · cycle ${s.diel.cycle}` : "no diel roll yet";
    document.getElementById("diel").dataset.phase = (s.diel && s.diel.phase) || "";
    const ini = document.getElementById("initiative");
    const iniSeat = s.initiative && typeof s.initiative === "object" ? s.initiative.seat : s.initiative;
    ini.hidden = iniSeat == null;
    if (iniSeat != null) ini.textContent = `initiative: ${(player(s, iniSeat) || {}).name || "seat " + iniSeat}`;
    const win = document.getElementById("winner");
    win.hidden = s.winner == null;
    if (s.winner != null) win.textContent = `${(player(s, s.winner) || {}).name || "seat " + s.winner} wins`;

    // Players and how many territories each holds.
    const held = {};
    for (const t of s.territories) if (t.owner != null && t.claim) held[t.owner] = (held[t.owner] || 0) + 1;
    const unknown = s.territories.filter((t) => t.claim && t.owner == null).length;
    const rows = (s.players || []).map((p) => el("li", { dataset: { seat: String(p.seat) } }, swatch(p.color),
      el("span", { class: "name", text: p.name }),
      el("span", { class: "count", text: plural(held[p.seat] || 0) })));
    if (unknown) rows.push(el("li", {}, swatch("#c8aa78"), el("span", { class: "name", text: "holder unknown" }),
      el("span", { class: "count", text: plural(unknown) })));
    fill("players", rows, "no game yet: start one under Controls");

    // Open questions, each with its answers.
    fill("questions", (s.questions || []).map((q) => {
      const li = el("li", { class: "question" }, el("p", { text: q.text || q.question || JSON.stringify(q) }));
      const opts = q.options || q.answers || [];
      const row = el("div", { class: "buttons" });
      for (const o of opts) {
        const value = typeof o === "object" ? o.value : o;
        const label = typeof o === "object" ? (o.label || String(o.value)) : String(o);
        row.append(el("button", { type: "button", text: label,
          onclick: () => act("/api/actions/answer", { question: q.id, answer: value }, "answered") }));
      }
      li.append(row);
      return li;
    }), "none");

    // Territories in contention.
    fill("contention", s.territories.filter((t) => t.contention).map((t) => {
      const li = el("li", {}, el("span", { text: `${t.number} ${tname(s, t.number)}` }));
      for (const p of s.players || []) {
        li.append(el("button", { type: "button", text: `${p.name} won`,
          onclick: () => act("/api/actions/resolve-contention", { territory: t.number, winner: p.seat }, "resolved") }));
      }
      return li;
    }), "none");

    // Timers count diel cycles: {"label", "seat", "started", "cycles", "due"} (game/core.py).
    const cycle = (s.diel && s.diel.cycle) || 0;
    fill("timers", (s.timers || []).map((t) => {
      const left = t.due - cycle;
      const who = t.seat != null ? ` (${(player(s, t.seat) || {}).name || "seat " + t.seat})` : "";
      const when = left > 0 ? `due in cycle ${t.due}, ${left} ${left === 1 ? "cycle" : "cycles"} left` : "due now";
      return el("li", { class: left > 0 ? "" : "bad", dataset: { timer: String(t.id) }, text: `${t.label}${who}: ${when}` });
    }), "none");

    renderCards(s);
    renderHealth(s.health || {});
    renderCalibration((s.health || {}).calibration);
    fill("problems", (s.problems || []).map((p) => el("li", { class: "error", text: p })), "none");
    refreshSelectors(s);
    scheduleLog();
  }

  // The last card shown at each seat, with its data.
  function renderCards(s) {
    const bySeat = new Map();
    for (const c of s.cards || []) if (c && c.seat != null) bySeat.set(c.seat, c);
    const boxes = [];
    for (const [seat, c] of [...bySeat.entries()].sort((a, b) => a[0] - b[0])) {
      const p = player(s, seat);
      const card = c.card && typeof c.card === "object" ? { ...c, ...c.card } : c;
      const dl = el("dl");
      for (const [k, v] of Object.entries(card)) {
        if (["seat", "card", "name", "title"].includes(k) || v == null || typeof v === "object") continue;
        dl.append(el("dt", { text: k.replace(/_/g, " ") }), el("dd", { text: String(v) }));
      }
      boxes.push(el("div", { class: "card", dataset: { seat: String(seat) } },
        el("h3", { text: `${p ? p.name : "seat " + seat}: ${card.name || card.title || card.code || "card"}` }), dl));
    }
    document.getElementById("cards").replaceChildren(...(boxes.length ? boxes : [el("p", { class: "none", text: "no card shown yet" })]));
  }

  function healthRow(name, h) {
    const ok = h && h.ok !== false;
    const detail = h ? Object.entries(h).filter(([k, v]) => k !== "ok" && typeof v !== "object")
      .map(([k, v]) => `${k} ${v}`).join(", ") : "";
    return el("li", { class: ok ? "ok" : "bad", dataset: { part: name } },
      el("span", { class: "dot", text: ok ? "●" : "▲" }), el("b", { text: name }), el("span", { class: "detail", text: detail }));
  }

  function renderHealth(h) {
    const rows = [healthRow("core", h.core), healthRow("sensor link", h.sensors), healthRow("LEDs", h.leds),
      healthRow("voice", h.voice)];
    for (const c of h.cameras || []) rows.push(healthRow(`camera seat ${c.seat}`, c));
    if (h.calibration) rows.push(healthRow("calibration", h.calibration));
    if (h.journal) rows.push(healthRow("journal", h.journal));
    if (h.fleet) rows.push(healthRow("fleet link", h.fleet));
    if (h.sensors && h.sensors.unmapped_channels) {
      rows.push(el("li", { class: "bad", text: `unmapped sensor channels: ${h.sensors.unmapped_channels.join(", ")} (run the calibration)` }));
    }
    rows.push(el("li", { class: "detail", text: `${h.stream_clients || 0} pages open` }));
    document.getElementById("health").replaceChildren(...rows);
  }

  // A calibration walk left open keeps token moves from the game (or the game off the LEDs): say so
  // where nobody can miss it, with the way back to the walk.
  function renderCalibration(c) {
    const banner = document.getElementById("calibration-banner");
    const why = c && c.ok === false ? [c.active ? `Calibration open (${c.active}): ${c.note}.` : "",
      c.error ? `The saved calibration was not applied: ${c.error}` : "",
      c.faults ? `The board cannot see every stand: ${c.faults.join("; ")}.` : ""].filter(Boolean).join(" ") : "";
    banner.hidden = !why;
    banner.querySelector(".text").textContent = why;
    banner.dataset.active = (c && c.active) || "";
  }

  function keepOptions(select, options) {
    const keep = select.value;
    select.replaceChildren(select.options[0], ...options);
    if ([...select.options].some((o) => o.value === keep)) select.value = keep;
  }

  function refreshSelectors(s) {
    const seat = document.getElementById("act-seat");
    const keepSeat = seat.value;
    seat.replaceChildren(...(s.players || []).map((p) => el("option", { value: String(p.seat), text: p.name })));
    if (keepSeat) seat.value = keepSeat;
    const terr = document.getElementById("act-territory");
    if (terr.options.length !== s.territories.length) {
      terr.replaceChildren(...s.territories.map((t) => el("option", { value: String(t.number), text: `${t.number} ${tname(s, t.number)}` })));
    }
    // Soul wasted: which soul token (a movement stand holding one), and who defeated it.
    keepOptions(document.getElementById("act-stand"), s.stands.filter((st) => st.occupied && st.kind === "movement")
      .map((st) => el("option", { value: st.id, text: st.owner != null ? `${st.id} (${(player(s, st.owner) || {}).name || "seat " + st.owner})` : st.id })));
    keepOptions(document.getElementById("act-by"), (s.players || []).map((p) => el("option", { value: String(p.seat), text: p.name })));
    const hill = document.querySelector('#new-game-form [name="territory"]');
    if (hill.options.length !== s.territories.length + 1) {
      keepOptions(hill, s.territories.map((t) => el("option", { value: String(t.number), text: `${t.number} ${tname(s, t.number)}` })));
    }
  }

  // The event log: the journal's last entries, fetched after changes (at most every 500 ms).
  let logTimer = null;
  function scheduleLog() {
    if (logTimer) return;
    logTimer = setTimeout(async () => {
      logTimer = null;
      try {
        const r = await fetch("/api/log?limit=30");
        const d = await r.json();
        document.getElementById("log").replaceChildren(...d.entries.slice().reverse().map((e) =>
          el("li", { value: String(e.seq) }, el("time", { text: new Date(e.ts * 1000).toLocaleTimeString() }), " ",
            el("span", { text: e.text }))));
      } catch (e) { /* the stream's status shows the link is down */ }
    }, 500);
  }

  // Controls.
  document.querySelectorAll("[data-action]").forEach((b) => b.addEventListener("click", () => {
    const a = b.dataset.action;
    const seat = Number(document.getElementById("act-seat").value) || null;
    const territory = Number(document.getElementById("act-territory").value) || null;
    let body = {};
    if (a === "roll-diel") {
      const phys = document.getElementById("physical-roll").value;
      if (phys) body = { phase: phys };
    } else if (a === "initiative") body = { seat };
    else if (a === "resolve-contention") body = { territory, winner: seat };
    else if (a === "soul-lost") {
      body = { seat };  // the soul-lost action takes seat, by, count and stand (web/actions.py)
      const stand = document.getElementById("act-stand").value;
      const by = Number(document.getElementById("act-by").value);
      if (stand) body.stand = stand;
      if (by) body.by = by;
    }
    else if (a === "end-game" && !confirm("End this game?")) return;
    act(`/api/actions/${a}`, body, `${b.textContent}: done`);
  }));

  document.getElementById("export-log").addEventListener("click", async () => {
    try {
      const resp = await api("/api/journal/export", undefined, { method: "GET", raw: true });
      const blob = await resp.blob();
      const a = el("a", { href: URL.createObjectURL(blob), download: "kipukas-journal.json" });
      document.body.append(a); a.click(); a.remove();
    } catch (e) { message(e.message, "error"); }
  });

  const COLORS = ["#d7263d", "#1b98e0", "#f4d35e", "#2ec4b6"];
  function addPlayerRow() {
    const box = document.getElementById("new-players");
    const n = box.children.length + 1;
    if (n > 4) return;
    box.append(el("div", { class: "row player-row" },
      el("label", {}, `Seat ${n} `, el("input", { name: "name", value: `Player ${n}`, maxlength: "40", required: "" })),
      el("input", { name: "color", type: "color", value: COLORS[n - 1], "aria-label": `seat ${n} colour` })));
  }
  addPlayerRow(); addPlayerRow();
  document.getElementById("add-player").addEventListener("click", addPlayerRow);
  // Play styles that need options (King of the Hill: territory and cycles; Coastal War and The Ends
  // Must Justify the Means: cycles; The Cost Is Too Great: soul_limit) show just those fields.
  const styleSelect = document.getElementById("play-style");
  const styleNeeds = () => (styleSelect.selectedOptions[0].dataset.needs || "").split(" ").filter(Boolean);
  function showStyleOptions() {
    const needs = styleNeeds();
    document.querySelectorAll("#new-game-form [data-option]").forEach((l) => { l.hidden = !needs.includes(l.dataset.option); });
    document.getElementById("play-style-summary").textContent = styleSelect.selectedOptions[0].title;
  }
  styleSelect.addEventListener("change", showStyleOptions);
  showStyleOptions();
  document.getElementById("new-game-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const players = [...document.querySelectorAll(".player-row")].map((r, i) => ({
      seat: i + 1, name: r.querySelector('[name="name"]').value.trim(), color: r.querySelector('[name="color"]').value }));
    const options = {};
    for (const key of styleNeeds()) {
      const v = f.elements[key].value;
      options[key] = key === "territory" && v === "random" ? "random" : Number(v);
    }
    act("/api/actions/new-game", { players, map: state.map.name, edition: f.edition.value,
      play_style: f.play_style.value, options }, "new game started");
  });

  if (sim) {
    document.getElementById("board").addEventListener("click", async (ev) => {
      const hit = ev.target.closest("[data-stand],[data-hit]");
      if (!hit) return;
      const id = hit.dataset.stand || hit.dataset.hit;
      const st = state.stands.find((x) => x.id === id);
      try { await api(`/api/sim/stands/${encodeURIComponent(id)}`, { occupied: !(st && st.occupied) }); }
      catch (err) { message(err.message, "error"); }
    });
  }
  KB.setupPin();
  render(state);
  KB.stream({ state: render });
})();
