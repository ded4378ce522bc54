// The table's page: draws the state on the server-made SVG and keeps it live over SSE.
// Plain JS, no build step. Card and player text is always set with textContent, never as HTML.
"use strict";
(function () {
  const sim = document.body.dataset.sim === "true";
  let state = JSON.parse(document.getElementById("initial-state").textContent);

  function text(el, s) { el.textContent = s; }

  function render(s) {
    state = s;
    const lights = s.lights || { territories: {}, stands: {} };
    for (const t of s.territories) {
      const el = document.querySelector(`[data-territory="${t.number}"]`);
      if (!el) continue;
      const c = lights.territories[String(t.number)] || "#181818";
      el.style.fill = c; el.style.stroke = c;
      el.classList.toggle("contention", !!t.contention);
      el.dataset.owner = t.owner == null ? "" : String(t.owner);
      el.dataset.claim = t.claim || "";
    }
    for (const st of s.stands) {
      const el = document.querySelector(`[data-stand="${CSS.escape(st.id)}"]`);
      if (!el) continue;
      el.classList.toggle("occupied", st.occupied);
      el.dataset.occupied = st.occupied ? "true" : "false";
      el.style.fill = st.occupied ? (lights.stands[st.id] || "#ffffff") : "";
    }
    text(document.getElementById("phase"), s.phase);
    text(document.getElementById("diel"), s.diel && s.diel.phase ? `${s.diel.phase}, cycle ${s.diel.cycle}` : "no diel roll yet");
    const list = document.getElementById("territory-list");
    list.replaceChildren(...s.territories.map((t) => {
      const li = document.createElement("li");
      const sw = document.createElement("span"); sw.className = "swatch";
      sw.style.background = lights.territories[String(t.number)] || "#181818";
      const name = (s.map.territories.find((m) => m.number === t.number) || {}).name || "";
      const owner = (s.players.find((p) => p.seat === t.owner) || {}).name;
      li.append(sw, document.createTextNode(`${t.number} ${name}${t.claim ? " – " + t.claim.replace("_", " ") : ""}${owner ? " (" + owner + ")" : ""}`));
      return li;
    }));
    const probs = document.getElementById("problems");
    const items = (s.problems || []).map((p) => { const li = document.createElement("li"); li.textContent = p; return li; });
    if (!items.length) { const li = document.createElement("li"); li.className = "none"; li.textContent = "none"; items.push(li); }
    probs.replaceChildren(...items);
  }

  function connect() {
    const link = document.getElementById("link");
    const es = new EventSource("/api/stream");
    es.addEventListener("open", () => { link.textContent = "live"; link.className = "up"; });
    es.addEventListener("state", (ev) => render(JSON.parse(ev.data)));
    es.addEventListener("error", () => { link.textContent = "reconnecting…"; link.className = "down"; });
  }

  if (sim) {
    document.getElementById("board").addEventListener("click", async (ev) => {
      const el = ev.target.closest("[data-stand]");
      if (!el) return;
      const id = el.dataset.stand;
      const st = state.stands.find((x) => x.id === id);
      await fetch(`/api/sim/stands/${encodeURIComponent(id)}`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ occupied: !(st && st.occupied) }),
      });
    });
  }
  render(state);
  connect();
})();
